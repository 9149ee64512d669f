"""Seeded random table scenes that follow the game's rules, at three levels of difficulty.

A scene is built from a real game situation: a variant (17, 18 or 19 stacks per wall), a dealer,
a prevalent wind, dice and the break they call for (`companion.rules.wall.break_wall`), then
drawn as a camera would see it. Sometimes the breaker counts wrong, the East marker stands at
the wrong seat or the wind disc shows the wrong wind: the ground truth says what is really on
the table, and `expected_*` what the game expects, so the cross-checks can be tested on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import msgspec
import numpy as np

from companion.rules.seats import WINDS
from companion.rules.tiles import ALL_CODES
from companion.rules.variant import TilesSpec, Variant, load_variant
from companion.rules.wall import LAYERS, Square, WallShape, break_wall, loose_pair_order
from companion.vision import markers_spec
from companion.vision.geometry import SIDES, WALL_FRAMES, TableLayout, seat_sides
from companion.vision.render.scene import Camera, Die, Discard, Hand, Look, Marker, Scene, WindDisc

LEVELS = ("easy", "medium", "hard")
#: the walls built; broken (R19, R20); dealt: during the deal (R24) or later in play
STAGES = ("built", "broken", "dealt")
#: variants the scenes are drawn from; "classical-19" has 8 jokers: 152 tiles, 19 stacks a wall
VARIANTS = ("classical", "german", "mcr", "riichi", "hongkong", "classical-19")


def scene_variant(name: str) -> Variant:
    if name == "classical-19":
        v = load_variant("classical")
        return msgspec.structs.replace(v, name="classical-19", tiles=TilesSpec(jokers=8))
    return load_variant(name)


@dataclass
class WallState:
    """Heights per ring index (clockwise from East's stack 1), push offsets and live tiles left."""

    heights: list[int]
    offsets: list[float]
    live_left: int | None
    loose: list[int]

    def by_side(self, sq: Square, sides: dict[str, str]) -> tuple[dict[str, list[int]], dict[str, list[float]]]:
        """Heights and push offsets per table side (`sides`: seat -> side), indexed by stack - 1."""
        walls = {side: [0] * sq.n for side in SIDES}
        offsets = {side: [0.0] * sq.n for side in SIDES}
        for i in range(sq.size):
            s = sq.stack_at(i)
            walls[sides[s.seat]][s.stack - 1] = self.heights[i]
            offsets[sides[s.seat]][s.stack - 1] = self.offsets[i]
        return walls, offsets


def wall_state(variant: Variant, at: int | None, drawn: int = 0, separate: bool = True,
               split_cm: float = 0.6) -> WallState:
    """The walls after breaking at ring index `at` (None: not broken) and `drawn` live tiles taken.

    Follows R19–R22 through the variant's settings: a lifted stack leaves a gap and its two tiles
    lie on the dead wall, which is pushed 3 mm towards the gap, leaving a narrow gap at its far
    end (R20: separated from the live wall). A split leaves every stack in place but opens the
    wall by `split_cm`: the part of that wall on each side of the split slides half of it
    towards its own end, as a block (stacks do not pass through one another).
    """
    sq = Square.for_variant(variant)
    size = sq.size
    heights, offsets = [2] * size, [0.0] * size
    if at is None:
        return WallState(heights, offsets, None, [])
    shape = WallShape.of(variant)  # R19–R21
    back, ahead, n_dead = shape.back, shape.ahead, shape.dead_stacks
    loose: list[int] = []
    if shape.lift:
        heights[at] = 0
        dead = shape.dead_wall(at)
        if shape.loose_on_top and dead:
            loose = [dead[k - 1] for k in shape.loose_laid]
            for i in loose:
                heights[i] = 3
        if separate:
            for i in dead:  # pushed towards the gap, leaving a gap at the far end of the dead wall
                offsets[i] = ahead * 0.3
        live = [(at + ahead * k) % size for k in range(1, size - n_dead)]
    else:
        if separate:  # split between `at` and the next stack ahead: each side slides towards its wall's end
            for start, step in ((at, back), ((at + ahead) % size, ahead)):
                i = start
                while True:
                    offsets[i] = step * split_cm / 2
                    nxt = (i + step) % size
                    if nxt // sq.n != i // sq.n:
                        break
                    i = nxt
        live = [(at + ahead * k) % size for k in range(1, size - n_dead + 1)]
    tiles = [(i, layer) for i in live for layer in LAYERS]
    for i, _ in tiles[:drawn]:
        heights[i] -= 1
    return WallState(heights, offsets, len(tiles) - drawn, loose)


def _levels(level: str, rng: np.random.Generator) -> tuple[Camera, Look]:
    u = rng.uniform
    if level == "easy":
        cam = Camera(height=u(90, 100), yaw=u(-3, 3))
        look = Look(noise=2.0)
    elif level == "medium":
        cam = Camera(height=u(85, 105), tilt_x=u(-5, 5), tilt_y=u(-5, 5), yaw=u(-12, 12), k1=u(-0.12, 0.05),
                     shift=(u(-2, 2), u(-2, 2)))
        look = Look(light_gradient=(u(-0.3, 0.3), u(-0.3, 0.3)), vignette=u(0, 0.3), noise=4.0, blur=u(0, 0.6),
                    exposure=u(0.9, 1.1))
    else:
        cam = Camera(height=u(80, 110), tilt_x=u(-9, 9), tilt_y=u(-9, 9), yaw=u(-180, 180), k1=u(-0.2, 0.08),
                     shift=(u(-4, 4), u(-4, 4)))
        look = Look(light_gradient=(u(-0.5, 0.5), u(-0.5, 0.5)), vignette=u(0.1, 0.5), noise=u(5, 8),
                    blur=u(0.4, 1.0), exposure=u(0.75, 1.2))
    look.felt = int(rng.integers(4))
    look.tile_back = (look.felt + 1 + int(rng.integers(3))) % 4  # backs never the felt's own colour
    return cam, look


def _fit_camera(cam: Camera, table_size: tuple[float, float]) -> Camera:
    """Zoom out until the four calibration markers are inside the picture (a sensible mounting)."""
    from companion.vision.render.draw import make_view

    corners = np.array([(x, y, 0.0) for c in markers_spec.marker_corners(table_size).values() for x, y in c])
    for _ in range(30):
        pts = make_view(cam, table_size).project(corners)
        w, h = cam.size
        if (pts.min(0) > 15).all() and pts[:, 0].max() < w - 15 and pts[:, 1].max() < h - 15:
            return cam
        cam.focal *= 0.95
    return cam


def _free(x: float, y: float, taken: list[tuple[float, float, float]], r: float) -> bool:
    return all(math.hypot(x - a, y - b) > r + rr for a, b, rr in taken)


def lean(die: Die, layout: TableLayout, others: list[Die] = (), taken: list[tuple[float, float, float]] = (),
         wall_face=None, dice_only: bool = False) -> Die | None:
    """`die` cocked the only way a die comes to rest cocked (R18): tipped onto an edge, leaning
    against the nearest standing wall or other die. None when there is no room beside any of them.

    `taken`: (x, y, radius) of things the die must keep clear of (the support and the die's own
    spot excepted).
    `wall_face(side, x, y)`: how far from the centre the inner face of the wall on `side` lies
    beside the table point (x, y), or None where no stack stands there (default: whole walls at
    `layout.inner`). `dice_only`: lean on one of `others`, never on a wall. The die falls towards its local −y side (`render.dice.die_cuboid`), so its
    raised edge, the one that rests on the support, lies (size / 2)(cos tilt + sin tilt) from
    its centre that way."""
    cx, cy = layout.centre
    t = math.radians(die.tilt)
    reach = die.size / 2 * (math.cos(t) + math.sin(t)) + 0.05
    options = []  # (contact point, unit direction from the die to it, the support's own spot)
    for side in () if dice_only else SIDES:
        nx, ny = (-v for v in WALL_FRAMES[side].inward)
        at = layout.inner if wall_face is None else wall_face(side, die.x, die.y)
        if at is not None:
            options.append(((cx + nx * at if nx else die.x, cy + ny * at if ny else die.y), (nx, ny), None))
    for o in others:
        dx, dy = o.x - die.x, o.y - die.y
        n = math.hypot(dx, dy) or 1.0
        options.append(((o.x - dx / n * o.size / 2, o.y - dy / n * o.size / 2), (dx / n, dy / n), (o.x, o.y)))
    options.sort(key=lambda o: math.hypot(o[0][0] - die.x, o[0][1] - die.y))
    r = layout.inner + 0.6  # inside the walls, which the scenes shift by up to 0.6 cm
    for (px, py), (dx, dy), own in options:
        x, y = px - dx * reach, py - dy * reach
        clear = [c for c in taken if c[:2] != (die.x, die.y) and (own is None or c[:2] != own)]
        if abs(x - cx) <= r - reach + 1e-6 and abs(y - cy) <= r - reach + 1e-6 and _free(x, y, clear, die.size * 0.75):
            # yaw: the die's local −y axis, (sin a, −cos a) after `_yaw(a)`, points at the support
            return replace(die, x=float(x), y=float(y), angle=math.degrees(math.atan2(dx, -dy)))
    return None


def drawn_wall_face(layout: TableLayout, walls: dict[str, list[int]], offsets: dict[str, list[float]],
                    wall_shift: dict[str, tuple[float, float]]):
    """`lean`'s `wall_face` for walls drawn as `render.draw` draws them: stacks standing, pushed
    along their wall (`offsets`) and the whole wall shifted (`wall_shift`)."""
    w, n = layout.tile.width, layout.stacks
    c = np.array(layout.centre)

    def face(side: str, x: float, y: float) -> float | None:
        along = float(np.dot(np.array([x, y]) - c, WALL_FRAMES[side].u))
        shift_along, shift_out = wall_shift.get(side, (0.0, 0.0))
        for k, height in enumerate(walls[side], 1):
            if height > 0 and abs(along - ((k - (n + 1) / 2) * w + offsets[side][k - 1] + shift_along)) <= w / 2:
                return layout.inner + shift_out
        return None

    return face


def random_scene(seed: int, level: str = "medium", stage: str | None = None, variant_name: str | None = None,
                 size: tuple[int, int] = (1280, 720), loose_taken: int = 0) -> Scene:
    """A random table scene; the same seed and level always give the same scene.

    `loose_taken`: loose tiles already taken from the dead wall as replacement tiles, 0 to 2, in
    the order R21 draws them (`rules.wall.loose_pair_order`); the rest of the scene stays the same."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    if not 0 <= loose_taken <= 2:
        raise ValueError("loose_taken must be 0, 1 or 2 (two loose tiles lie on the dead wall, R21)")
    rng = np.random.default_rng([seed, LEVELS.index(level)])
    variant = scene_variant(variant_name or VARIANTS[int(rng.integers(len(VARIANTS)))])
    stage = stage or STAGES[int(rng.integers(len(STAGES)))]
    table = markers_spec.TABLE_SIZE_CM
    layout = TableLayout(table, variant.stacks_per_wall)
    first_east_side = SIDES[int(rng.integers(4))]
    dealer = int(rng.integers(4))
    prevalent = variant.rounds.winds[int(rng.integers(len(variant.rounds.winds)))]
    throws = [[int(rng.integers(1, 7)), int(rng.integers(1, 7))] for _ in variant.dice.throws]
    brk = break_wall(variant, throws)
    sq = Square.for_variant(variant)
    expected_at = sq.index(brk.wall, brk.stack)

    at = None
    if stage != "built":
        at = expected_at
        if rng.random() < 0.25:  # the breaker miscounted
            at = (expected_at + int(rng.choice([-2, -1, 1, 2]))) % sq.size
    drawn = 0
    if stage == "dealt":
        dealt = sum(variant.deal.blocks) * 4 + sum(variant.deal.final)  # R24: East 14, the others 13
        if rng.random() < 0.25:  # the deal still going on: blocks of two stacks taken
            drawn = 4 * int(rng.integers(1, dealt // 4 + 1))
        else:  # then play: tiles drawn one by one
            drawn = dealt + int(rng.integers(0, 40))
    # the breaker opens a split wall by half a centimetre to a centimetre (riichi, MCR)
    ws = wall_state(variant, at, drawn, split_cm=float(rng.uniform(0.5, 1.0)))
    if ws.loose and loose_taken:  # `wall_state` lists the former top tile first; R21 says which is drawn first
        by_layer = dict(zip(LAYERS, ws.loose))
        gone = [by_layer[layer] for layer in loose_pair_order(variant)[:loose_taken]]
        for i in gone:
            ws.heights[i] -= 1
        ws.loose = [i for i in ws.loose if i not in gone]

    sides = seat_sides(dealer, first_east_side, variant.seating.direction)
    walls, offsets = ws.by_side(sq, sides)
    jitter = 0.3 if level == "easy" else 0.6
    wall_shift = {side: (float(rng.uniform(-jitter, jitter)), float(rng.uniform(-jitter, jitter))) for side in SIDES}

    cam, look = _levels(level, rng)
    cam.size = size
    cam = _fit_camera(cam, table)
    cx, cy = layout.centre
    inner = layout.inner - 2.0
    taken: list[tuple[float, float, float]] = []

    discards: list[Discard] = []
    if stage == "dealt":
        for _ in range(int(rng.integers(0, 25))):
            for _try in range(20):
                x, y = cx + rng.uniform(-inner + 2, inner - 2), cy + rng.uniform(-inner + 2, inner - 2)
                if _free(x, y, taken, 1.9):
                    taken.append((x, y, 1.9))
                    code = ALL_CODES[int(rng.integers(len(ALL_CODES)))]
                    discards.append(Discard(code, x, y, float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 4))))
                    break

    dice: list[Die] = []
    n_dice = 0 if (stage == "dealt" and rng.random() < 0.5) else variant.dice.dice
    cocked_one = int(rng.integers(n_dice)) if n_dice and rng.random() < 0.2 else -1
    for d in range(n_dice):
        for _try in range(50):
            x, y = cx + rng.uniform(-inner + 1, inner - 1), cy + rng.uniform(-inner + 1, inner - 1)
            if _free(x, y, taken, 1.6):
                taken.append((x, y, 1.6))
                break
        dice.append(Die(face=int(rng.integers(1, 7)), x=float(x), y=float(y), angle=float(rng.uniform(0, 90)),
                        cocked=d == cocked_one, tilt=float(rng.uniform(28, 45)), colour=int(rng.integers(7)),
                        turn=int(rng.integers(4))))
    if cocked_one >= 0:  # R18: it leans on a wall or the other die (no draw of its own: the rest stays the same)
        me = dice[cocked_one]
        leaning = lean(me, layout, [d for d in dice if d is not me], taken,
                       drawn_wall_face(layout, walls, offsets, wall_shift))
        dice[cocked_one] = leaning if leaning is not None else replace(me, cocked=False)  # no room: it lies flat

    # East marker in front of the dealer (sometimes left at the wrong seat), the wind disc somewhere outside
    marker_seat = "E" if rng.random() < 0.8 else WINDS[int(rng.integers(1, 4))]
    outer_lo, outer_hi = layout.inner + layout.tile.depth + 4.5, table[0] / 2 - 7.0
    outside: list[tuple[float, float, float]] = []

    def outer_spot(side: str, r: float) -> tuple[float, float]:
        for _try in range(50):
            dist, along = rng.uniform(outer_lo + r * 0.5, outer_hi), rng.uniform(-22, 22)
            x, y = {"bottom": (cx + along, cy + dist), "top": (cx + along, cy - dist),
                    "left": (cx - dist, cy + along), "right": (cx + dist, cy + along)}[side]
            if _free(x, y, outside, r):
                outside.append((x, y, r))
                return float(x), float(y)
        return float(x), float(y)

    kind = "box" if rng.random() < 0.4 else "button"
    mx, my = outer_spot(sides[marker_seat], 5.0 if kind == "box" else 2.5)
    marker = Marker(kind, mx, my, float(rng.uniform(0, 90)))
    wind_shown = prevalent if rng.random() < 0.8 else WINDS[(WINDS.index(prevalent) + int(rng.integers(1, 4))) % 4]
    if kind == "box":
        wind = WindDisc(wind_shown, mx, my, float(rng.uniform(-20, 20)))
    else:
        wx, wy = outer_spot(SIDES[int(rng.integers(4))], 2.5)
        wind = WindDisc(wind_shown, wx, wy, float(rng.uniform(0, 360)))

    hands: list[Hand] = []
    if level == "hard":
        for _ in range(int(rng.integers(0, 3))):
            side = SIDES[int(rng.integers(4))]
            for _try in range(20):
                x, y = outer_spot(side, 0.0)
                if all(math.hypot(x - a, y - b) > rr + 12 for a, b, rr in outside[:-1]):
                    break
            angle = {"bottom": -90, "top": 90, "left": 0, "right": 180}[side] + rng.uniform(-25, 25)
            hands.append(Hand(x, y, float(angle), float(rng.uniform(7, 12))))

    seat_of_side = {side: w for w, side in sides.items()}
    truth = {
        "level": level,
        "stage": stage,
        "variant": variant.name,
        "stacks": sq.n,
        "dealer": dealer,
        "first_east_side": first_east_side,
        "seating": variant.seating.direction,
        "walls": {seat_of_side[side]: [k + 1 for k, hgt in enumerate(walls[side]) if hgt > 0] for side in SIDES},
        "break": sq.stack_at(at).to_json() if at is not None else None,
        # a split between the last stack of one wall and the first of the next lies at a corner,
        # where the walls stand apart anyway: nothing on the table shows it (MCR, totals of 18)
        "break_at_corner": bool(at is not None and variant.break_.style == "split" and drawn == 0
                                and (at % sq.n == sq.n - 1 if variant.dead_wall.side == "right" else at % sq.n == 0)),
        "expected_break": brk.at.to_json(),
        "throws": throws,
        "loose": [sq.stack_at(i).to_json() for i in ws.loose],
        "live_tiles": ws.live_left,
        "dice": [{"face": d.face, "cocked": d.cocked} for d in dice],
        "east_marker": marker_seat,
        "wind_shown": wind_shown,
        "prevalent": prevalent,
    }
    return Scene(seed=seed, stacks=sq.n, table_size=table, walls=walls, offsets=offsets, wall_shift=wall_shift,
                 dice=dice, east_marker=marker, wind=wind, discards=discards, hands=hands, camera=cam, look=look,
                 truth=truth)


def resting_hand(scene: Scene, seed: int, colour: tuple[int, int, int] | None = None) -> Scene:
    """The same scene with a player's hand resting on a wall, as a still scene may show one: the
    fingertips on the wall or just inside it, the arm reaching in from the player's side. Walls
    under a hand look broken where they are not; the reading must not take that for the break.
    `colour`: the hand's (BGR; None: skin), e.g. the felt's for a sleeve the wall reader cannot
    tell from it."""
    rng = np.random.default_rng([seed, 7])
    layout = TableLayout(scene.table_size, scene.stacks)
    cx, cy = layout.centre
    side = SIDES[int(rng.integers(4))]
    along = float(rng.uniform(-layout.half_length + 3, layout.half_length - 3))
    reach = layout.inner + float(rng.uniform(-1, 3))  # from the centre to the fingertips
    x, y = {"bottom": (cx + along, cy + reach), "top": (cx + along, cy - reach),
            "left": (cx - reach, cy + along), "right": (cx + reach, cy + along)}[side]
    angle = {"bottom": -90, "top": 90, "left": 0, "right": 180}[side] + float(rng.uniform(-25, 25))
    hand = Hand(x, y, angle, float(rng.uniform(3.5, 6)), colour)  # palm on the tops
    return replace(scene, hands=[*scene.hands, hand])
