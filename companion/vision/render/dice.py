"""Dice on the rendered table: a cuboid per die, its faces painted with pips.

Split from `draw` so the look of the dice can grow (colours, materials, cocked poses) without
touching the rest of the table. A die is drawn like every other solid (`draw.Cuboid`, painted
far-to-near), and its pixel box goes into the scene's ground truth.
"""

from __future__ import annotations

import math

import numpy as np

from companion.vision.render.draw import Cuboid, View, _box, _fill, _light, _outline, _shade, _yaw

#: pip positions per face in face units (-0.5..0.5); the usual layout of a six-sided die
PIPS = {
    1: [(0, 0)],
    2: [(-0.27, -0.27), (0.27, 0.27)],
    3: [(-0.27, -0.27), (0, 0), (0.27, 0.27)],
    4: [(-0.27, -0.27), (0.27, -0.27), (-0.27, 0.27), (0.27, 0.27)],
    5: [(-0.27, -0.27), (0.27, -0.27), (0, 0), (-0.27, 0.27), (0.27, 0.27)],
    6: [(-0.27, -0.27), (0.27, -0.27), (-0.27, 0), (0.27, 0), (-0.27, 0.27), (0.27, 0.27)],
}

#: die colours (body BGR, pips BGR, pips of the one and four or None)
DICE_COLOURS = [
    ((235, 235, 235), (25, 25, 25), (30, 30, 200)),  # Chinese dice: red one and four
    ((240, 240, 240), (20, 20, 20), None),
    ((40, 40, 190), (240, 240, 240), None),
    ((30, 30, 30), (240, 240, 240), None),
    ((60, 140, 40), (240, 240, 240), None),
    ((160, 80, 30), (240, 240, 240), None),
    ((60, 200, 230), (20, 20, 20), None),
]


def die_cuboid(die) -> Cuboid:
    s = die.size
    R = _yaw(die.angle)
    z = -s / 2
    if die.cocked:  # leaning on an edge against a wall or another die (R18)
        tilt = math.radians(die.tilt)
        Rt = np.array([[1, 0, 0], [0, math.cos(tilt), -math.sin(tilt)], [0, math.sin(tilt), math.cos(tilt)]])
        R = R @ Rt
        z = -(s / 2) * (math.cos(tilt) + math.sin(tilt))
    return Cuboid(np.array([die.x, die.y, z]), (s / 2, s / 2, s / 2), R)


def die_faces(top: int, turn: int) -> dict[str, int]:
    """Values on the faces of a die whose -z (up) face shows `top`; opposite faces add up to 7."""
    side = [v for v in (1, 2, 3, 4, 5, 6) if v not in (top, 7 - top)]
    a = side[turn % 4]
    b = next(v for v in side if v not in (a, 7 - a))
    return {"-z": top, "+z": 7 - top, "+x": a, "-x": 7 - a, "+y": b, "-y": 7 - b}


def die_painter(img: np.ndarray, view: View, die, truth: dict):
    body, pip, red = DICE_COLOURS[die.colour % len(DICE_COLOURS)]
    values = die_faces(die.face, die.turn)

    def paint(cub: Cuboid) -> None:
        for name in cub.visible_faces(view.centre):
            corners = cub.face_quad(name)
            quad = view.project(corners)
            _fill(img, quad, _shade(body, _light(cub.normal(name))))
            _outline(img, quad, _shade(body, 0.6))
            origin = corners.mean(0)
            e1, e2 = corners[1] - corners[0], corners[3] - corners[0]
            value = values[name]
            colour = red if (red is not None and value in (1, 4)) else pip
            radius = 0.1 * (1.25 if value == 1 else 1.0)
            for px, py in PIPS[value]:
                ring = [origin + e1 * (px + radius * math.cos(a)) + e2 * (py + radius * math.sin(a))
                        for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)]
                _fill(img, view.project(ring), colour)
        truth["dice"].append({"face": die.face, "cocked": die.cocked, "box": _box(view.project(cub.corners))})
    return paint
