"""The simulated camera: the table renderer (`companion.vision.render`) as a `FrameSource`.

`SimCamera` plays scenes given by a callable (or one fixed scene); every frame carries the
scene's ground truth in `Frame.truth`. `scene_for_state()` draws the table as the game says it
should look (walls built or broken where the dice say, the last dice thrown, the East marker in
front of East, the wind disc showing the prevalent wind), and `SimTableFeed` plays it as the live
game goes: the camera source "sim" of `companion run`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from companion.hardware.camera.base import CameraError, Frame, FrameSource
from companion.vision.render.scene import Scene

SceneSource = Callable[[], Scene]

#: throws made with real dice on the table (typed on a phone or entered by hand afterwards, or
#: read by the camera); the dice box ("serial") and the virtual box ("sim") show their dice on
#: LEDs, so after such a throw there are no dice lying on the simulated table.
DICE_ON_THE_TABLE = frozenset({"camera", "phone", "manual"})


class SimCamera(FrameSource):
    kind = "sim"

    def __init__(self, scenes: Scene | SceneSource, fps: float = 5.0, noise: float = 0.0, seed: int = 0) -> None:
        self._source: SceneSource = scenes if callable(scenes) else (lambda: scenes)
        self.fps, self.noise = fps, noise
        self._rng = np.random.default_rng(seed)
        self._open = False
        self._seq = 0
        self._cache: tuple[int, np.ndarray, dict] | None = None
        self._last_t = 0.0

    def open(self) -> None:
        self._open = True

    def close(self) -> None:
        self._open = False

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "fps": self.fps}

    def read(self, timeout: float = 1.0) -> Frame:
        if not self._open:
            raise CameraError("the simulated camera is not open")
        wait = self._last_t + 1 / self.fps - time.monotonic()
        if wait > timeout:
            raise CameraError("no frame within the timeout")
        if wait > 0:
            time.sleep(wait)
        from companion.vision.render.draw import render

        scene = self._source()
        if self._cache is None or self._cache[0] != id(scene):
            image, pixels = render(scene)
            self._cache = (id(scene), image, {**scene.truth, "pixels": pixels})
        _, image, truth = self._cache
        if self.noise > 0:
            image = np.clip(image + self._rng.normal(0, self.noise, image.shape), 0, 255).astype(np.uint8)
        self._seq += 1
        self._last_t = time.monotonic()
        return Frame(image=image, seq=self._seq, t=self._last_t, truth=truth)


def scene_for_state(state, vision_settings, size: tuple[int, int] = (1280, 720), *, broken_at=None,
                    dice_shown: list[tuple[int, bool]] | None = None, hands=()) -> Scene:
    """The table as the game state says it looks now (deterministic for a given state).

    The last throw's dice lie in the square only when they were real dice (`DICE_ON_THE_TABLE`).

    `broken_at` (a `Stack`) draws the wall broken there instead (a breaker who miscounted);
    `dice_shown` [(face, cocked)] draws those dice instead of the last throw; `hands` adds hands.
    """
    from companion.rules.seats import WINDS
    from companion.rules.wall import Square
    from companion.vision.geometry import SIDES, TableLayout, seat_sides
    from companion.vision.render.scene import Camera, Die, Look, Marker, WindDisc
    from companion.vision.render.scenes import lean, wall_state

    variant = state.variant
    sq = Square.for_variant(variant)
    rng = np.random.default_rng([state.game, state.hand])
    at = sq.index(state.brk.wall, state.brk.stack) if state.brk is not None else None
    if broken_at is not None:
        at = sq.index(broken_at.seat, broken_at.stack)
    ws = wall_state(variant, at)
    sides = seat_sides(state.dealer, vision_settings.first_east_side, variant.seating.direction)
    walls, offsets = ws.by_side(sq, sides)
    table = tuple(vision_settings.table_size_cm)
    layout = TableLayout(table, sq.n)
    cx, cy = layout.centre
    dice = []
    faces, cocked = [], []
    if state.pending is not None:
        if state.pending.source in DICE_ON_THE_TABLE:
            faces, cocked = state.pending.faces, state.pending.cocked
    elif state.throws and state.throw_sources[-1] in DICE_ON_THE_TABLE:
        faces = state.throws[-1]
    if dice_shown is not None:
        faces, cocked = [f for f, _ in dice_shown], [i for i, (_, c) in enumerate(dice_shown) if c]
    for i, face in enumerate(faces):
        dice.append(Die(face=max(1, face), x=cx - 4 + 8 * i + float(rng.uniform(-2, 2)), y=cy + float(rng.uniform(-3, 3)),
                        angle=float(rng.uniform(0, 90)), cocked=i in cocked, colour=i, size=vision_settings.die_cm))
    for i in cocked:  # R18: a cocked die leans on the other die or a wall
        dice[i] = lean(dice[i], layout, [d for d in dice if d is not dice[i]]) or dice[i]
    dist = layout.inner + layout.tile.depth + 8
    east_side = sides["E"]
    mx, my = {"bottom": (cx + 12, cy + dist), "top": (cx - 12, cy - dist),
              "left": (cx - dist, cy - 12), "right": (cx + dist, cy + 12)}[east_side]
    wind_side = SIDES[(SIDES.index(east_side) + 1) % 4]
    wx, wy = {"bottom": (cx - 12, cy + dist), "top": (cx + 12, cy - dist),
              "left": (cx - dist, cy + 12), "right": (cx + dist, cy - 12)}[wind_side]
    seat_of_side = {side: w for w, side in sides.items()}
    truth = {"walls": {seat_of_side[side]: [k + 1 for k, h in enumerate(walls[side]) if h > 0] for side in SIDES},
             "break": sq.stack_at(at).to_json() if at is not None else None,
             "dice": [{"face": d.face, "cocked": d.cocked} for d in dice], "east_marker": "E",
             "wind_shown": state.prevalent, "dealer": state.dealer, "variant": variant.name}
    assert set(WINDS) == set(sides)
    return Scene(seed=int(state.game * 1000 + state.hand), stacks=sq.n, table_size=table, walls=walls,
                 offsets=offsets, dice=dice, east_marker=Marker("button", mx, my), wind=WindDisc(state.prevalent, wx, wy),
                 hands=list(hands), camera=Camera(size=size), look=Look(tile_back=1, noise=1.0), truth=truth)


class SimTableFeed:
    """The simulated table camera's scenes: the table as the game says it looks, drawn again only
    when the game changed (`source`: the `SimCamera` that plays them, for the camera service)."""

    def __init__(self, table, vision_settings, fps: float = 2.0) -> None:
        self.table, self.settings = table, vision_settings
        self._key = None
        self._scene: Scene | None = None
        self.source = SimCamera(self._current, fps=fps)

    def _current(self) -> Scene:
        state = self.table.state
        key = (state.game, state.hand, len(state.throws), state.pending is not None,
               state.brk.to_json()["dice"] if state.brk else None) if state else None
        if key != self._key or self._scene is None:
            self._key, self._scene = key, scene_for_state(state, self.settings)
        return self._scene
