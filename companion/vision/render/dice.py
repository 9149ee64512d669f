"""Dice on the rendered table: a cuboid per die, its faces painted as real dice look.

Split from `draw` so the look of the dice can grow without touching the rest of the table. A die
is drawn like every other solid (`draw.Cuboid`, painted far-to-near); each visible face gets a
texture: the body (plain, marbled or translucent with the pips of the far side showing through),
rounded edges, engraved pips (round or square-ish, black, white, red one and four of Chinese dice,
or coloured), a highlight. The same painter draws the dice of the training pictures of the dice
reader (`models/dice/`), so what the reader learns is what the simulated camera shows.

`Die.colour` picks a base palette entry; the rest of the look (material, pip style, tint) follows
from the die's own numbers, so a scene stays deterministic without more fields on `Die`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.render.draw import Cuboid, View, _box, _light, _warp, _yaw

#: pip positions per face in face units (-0.5..0.5); the usual layout of a six-sided die
PIPS = {
    1: [(0, 0)],
    2: [(-0.27, -0.27), (0.27, 0.27)],
    3: [(-0.27, -0.27), (0, 0), (0.27, 0.27)],
    4: [(-0.27, -0.27), (0.27, -0.27), (-0.27, 0.27), (0.27, 0.27)],
    5: [(-0.27, -0.27), (0.27, -0.27), (0, 0), (-0.27, 0.27), (0.27, 0.27)],
    6: [(-0.27, -0.27), (0.27, -0.27), (-0.27, 0), (0.27, 0), (-0.27, 0.27), (0.27, 0.27)],
}

#: base palette (body BGR, pips BGR, pips of the one and four or None); index = `Die.colour`
DICE_COLOURS = [
    ((235, 235, 235), (25, 25, 25), (30, 30, 200)),  # Chinese dice: red one and four
    ((240, 240, 240), (20, 20, 20), None),
    ((40, 40, 190), (240, 240, 240), None),
    ((30, 30, 30), (240, 240, 240), None),
    ((60, 140, 40), (240, 240, 240), None),
    ((160, 80, 30), (240, 240, 240), None),
    ((60, 200, 230), (20, 20, 20), None),
]

#: extra body colours a die's tint may move to (purple, orange, pink, brown, teal, ivory)
EXTRA_BODIES = [(120, 40, 110), (30, 120, 235), (170, 120, 235), (40, 70, 110), (130, 130, 30), (200, 225, 235)]

#: pip colours of dice whose pips differ from the body in colour more than in lightness (red on
#: blue, gold on green: real sets have them), and the share of training dice drawn so
HUE_PIPS = [(40, 40, 200), (40, 180, 220), (200, 90, 30), (60, 170, 40), (170, 120, 235), (30, 120, 235)]
HUE_PIPS_SHARE = 0.2


def _colour_distance(a, b) -> float:
    """CIE76 distance of two BGR colours (OpenCV's 8-bit Lab, lightness rescaled to 0–100)."""
    lab = cv2.cvtColor(np.uint8([[a, b]]), cv2.COLOR_BGR2Lab).astype(np.float64)[0]
    lab[:, 0] *= 100 / 255
    return float(np.linalg.norm(lab[0] - lab[1]))


@dataclass(frozen=True)
class DieLook:
    """How one die looks: colours, material and pip shape."""

    body: tuple[int, int, int]
    pip: tuple[int, int, int]
    red: tuple[int, int, int] | None  # pips of the one and four (Chinese dice) or None
    material: str = "plain"  # plain | marbled | translucent
    vein: tuple[int, int, int] = (255, 255, 255)  # second colour of a marbled die
    pip_radius: float = 0.1  # face units
    pip_spread: float = 0.27  # distance of the corner pips from the centre, face units
    corner: float = 0.14  # rounding of the edges, face units
    seed: int = 0

    @staticmethod
    def of(die) -> DieLook:
        """The look of a `render.scene.Die`: its palette entry, varied by the die's own numbers."""
        rng = np.random.default_rng([die.colour, die.turn, die.face, int(abs(die.x) * 97), int(abs(die.y) * 89)])
        return DieLook.random(rng, base=die.colour)

    @staticmethod
    def random(rng: np.random.Generator, base: int | None = None) -> DieLook:
        """A random ordinary die; `base` fixes the palette entry the body starts from."""
        body, pip, red = DICE_COLOURS[(base if base is not None else int(rng.integers(len(DICE_COLOURS))))
                                      % len(DICE_COLOURS)]
        if base is None and rng.random() < 0.3:
            body = EXTRA_BODIES[int(rng.integers(len(EXTRA_BODIES)))]
            pip = (20, 20, 20) if sum(body) > 450 else (240, 240, 240)
        body = tuple(int(np.clip(c * rng.uniform(0.85, 1.12) + rng.normal(0, 8), 0, 255)) for c in body)
        r = rng.random()
        material = "plain" if r < 0.6 else ("marbled" if r < 0.8 else "translucent")
        vein = tuple(int(v) for v in (rng.integers(0, 256, 3) if rng.random() < 0.5 else
                                      np.clip(np.array(body) * rng.uniform(0.3, 1.7), 0, 255)))
        if rng.random() < 0.15:  # coloured pips (gold, red, blue) on some dice
            pip = [(40, 180, 220), (40, 40, 200), (200, 90, 30)][int(rng.integers(3))]
        # people buy dice whose pips can be read: the pips stand out from the body and its veins,
        # mostly in lightness, but some only in colour (red pips on a blue die: nearly the same
        # grey). Only the training pictures (`base` None) draw those, so the rendered table's
        # scenes stay as they were.
        def luma(c) -> float:
            return 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2]
        near_colours = [body] + ([vein] if material == "marbled" else [])
        near = [luma(c) for c in near_colours]
        by_colour = False
        if base is None and rng.random() < HUE_PIPS_SHARE:
            pip = HUE_PIPS[int(rng.integers(len(HUE_PIPS)))]
            by_colour = min(_colour_distance(pip, c) for c in near_colours) >= 60
        if not by_colour and min(abs(luma(pip) - v) for v in near) < 70:
            pip = (20, 20, 20) if np.mean(near) > 128 else (240, 240, 240)
            if min(abs(luma(pip) - v) for v in near) < 70:  # veins both light and dark: no veins
                material = "plain"
        return DieLook(body, tuple(int(c) for c in pip), red, material, vein,
                       pip_radius=float(rng.uniform(0.085, 0.125)), pip_spread=float(rng.uniform(0.24, 0.3)),
                       corner=float(rng.uniform(0.06, 0.22)), seed=int(rng.integers(1 << 30)))


def face_texture(look: DieLook, value: int, size: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The texture (BGR) of one face of a die showing `value`, and its mask (rounded corners)."""
    rng = np.random.default_rng([look.seed, value, size])
    s = size
    body = np.array(look.body, np.float32)
    tex = np.empty((s, s, 3), np.float32)
    tex[:] = body
    if look.material == "marbled":  # swirls of a second colour: smooth noise, folded
        n = rng.random((5, 5)).astype(np.float32)
        field = cv2.resize(n, (s, s), interpolation=cv2.INTER_CUBIC)
        field = np.abs(np.sin(field * rng.uniform(6, 14)))
        w = np.clip((field - 0.55) * 2.5, 0, 1)[..., None]
        tex = tex * (1 - w) + np.array(look.vein, np.float32) * w
    if look.material == "translucent":  # lighter in the middle, the far side's pips faint inside
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s - 0.5
        tex *= (1.15 - 0.6 * (xx * xx + yy * yy))[..., None]
        ghost = 7 - value
        for px, py in PIPS[ghost]:
            c = (int((0.5 - px * 0.8) * s), int((0.5 + py * 0.8) * s))
            cv2.circle(tex, c, max(1, int(look.pip_radius * s * 0.8)), tuple(float(v) * 0.75 for v in body), -1,
                       cv2.LINE_AA)
    # engraved pips: a darker rim, then the paint
    colour = look.red if (look.red is not None and value in (1, 4)) else look.pip
    radius = look.pip_radius * (1.3 if value == 1 else 1.0)
    k = look.pip_spread / 0.27
    for px, py in PIPS[value]:
        c = (int(round((0.5 + px * k) * s * 16)), int(round((0.5 + py * k) * s * 16)))
        r = int(round(radius * s * 16))
        cv2.circle(tex, c, r + 16, tuple(float(v) * 0.55 for v in body), -1, cv2.LINE_AA, shift=4)
        cv2.circle(tex, c, r, tuple(float(v) for v in colour), -1, cv2.LINE_AA, shift=4)
    # rounded edges catch less light: darken towards the border
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / (s - 1)
    edge = np.minimum(np.minimum(xx, 1 - xx), np.minimum(yy, 1 - yy))
    tex *= (0.72 + 0.28 * np.clip(edge / max(look.corner, 0.04), 0, 1))[..., None]
    mask = np.zeros((s, s), np.uint8)
    rad = max(1, int(look.corner * s))
    cv2.rectangle(mask, (rad, 0), (s - 1 - rad, s - 1), 255, -1)
    cv2.rectangle(mask, (0, rad), (s - 1, s - 1 - rad), 255, -1)
    for cx in (rad, s - 1 - rad):
        for cy in (rad, s - 1 - rad):
            cv2.circle(mask, (cx, cy), rad, 255, -1, cv2.LINE_AA)
    return np.clip(tex, 0, 255).astype(np.uint8), mask


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


def paint_die(img: np.ndarray, view: View, cub: Cuboid, look: DieLook, values: dict[str, int]) -> None:
    """Paint the visible faces of a die (far ones first) into `img`."""
    for name in cub.visible_faces(view.centre):
        quad = view.project(cub.face_quad(name))
        span = float(np.max(np.ptp(quad, axis=0)))
        if span < 0.5:
            continue
        size = int(np.clip(span * 3, 24, 96))
        tex, mask = face_texture(look, values[name], size)
        tex = cv2.convertScaleAbs(tex, alpha=_light(cub.normal(name)) * 1.05)
        if size > span * 2:  # keep it from aliasing when drawn much smaller than the texture
            tex = cv2.GaussianBlur(tex, (0, 0), size / span / 3)
        _warp(img, tex, quad, mask)


def die_painter(img: np.ndarray, view: View, die, truth: dict):
    look = DieLook.of(die)
    values = die_faces(die.face, die.turn)

    def paint(cub: Cuboid) -> None:
        paint_die(img, view, cub, look, values)
        corners = view.project(cub.corners)
        truth["dice"].append({"face": die.face, "cocked": die.cocked, "box": _box(corners),
                              "corners": corners.round(1).tolist()})
    return paint
