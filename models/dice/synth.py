"""Training pictures for the dice reader, made with the table renderer's own dice painter.

Two kinds, each a list of (image BGR uint8, dice [{face, cocked, box}]):

* `table_views`: rendered table scenes (`companion.vision.render`), calibrated from their markers
  and warped to the top-down view of the square inside the walls, exactly as `scene.analyse`
  does; more dice than a game has (0–7, some cocked, each leaning on a wall or another die, some touching),
  with the scene's discards, walls and hands around them as things that are not dice. Discards
  are drawn in both looks the camera simulator has (the `render` extra's tile art and the
  procedural stand-in of a plain install), and their boxes are kept as "tiles" so training can
  show the face model die-sized crops of face-up tiles as "not a die".
* `tray_photos`: a phone held 25–60 cm above a tray: light boxes, cardboard, dark trays, wood,
  felt, with a tray rim in some; 1–25 dice of any colour and material, some in clusters, soft
  shadows, uneven light, blur, noise and JPEG. Dice 16–70 px wide in a 640×640 picture, like the
  real developer photos, so the reader learns dice it has never seen photographed.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace

import cv2
import numpy as np

from companion.vision.calibrate import from_markers
from companion.vision.geometry import TableLayout
from companion.vision.render import tiles as tile_look
from companion.vision.render.dice import DieLook, die_cuboid, die_faces, paint_die
from companion.vision.render.draw import Cuboid, make_view, render
from companion.vision.render.scene import Camera, Die
from companion.vision.render.scenes import LEVELS, drawn_wall_face, lean, random_scene, scene_variant
from companion.vision.scene import DICE_PX_PER_CM, dice_view, dice_view_foot


def _box(pts: np.ndarray) -> list[float]:
    return [float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())]


# --- table views ---------------------------------------------------------------------------------


#: share of cocked dice leaned on another die (when there is one) rather than on whatever is
#: nearest: more pairs of a flat support and a die leaning on it, where the reader flags the
#: support instead. 0 draws the pictures the shipped models trained on; the eighteenth cycle
#: tried 0.5 (`make_data.py --lean-on-die`, models/dice/README.md)
LEAN_ON_DIE = 0.0


def _scatter_dice(rng: np.random.Generator, layout: TableLayout, taken: list[tuple[float, float, float]],
                  n: int, wall_face=None) -> list[Die]:
    cx, cy = layout.centre
    inner = layout.inner
    dice: list[Die] = []
    for _ in range(n):
        near_wall = rng.random() < 0.25
        for _try in range(60):
            if near_wall:  # against a wall: where a die ends up cocked on a tile's edge (R18)
                along = rng.uniform(-inner + 1.5, inner - 1.5)
                off = inner - rng.uniform(1.0, 1.6)
                x, y = [(cx + along, cy + off), (cx + along, cy - off), (cx + off, cy + along),
                        (cx - off, cy + along)][int(rng.integers(4))]
            elif dice and rng.random() < 0.3:  # touching another die
                a = rng.uniform(0, 2 * math.pi)
                x, y = dice[-1].x + 2.0 * math.cos(a), dice[-1].y + 2.0 * math.sin(a)
            else:
                x, y = cx + rng.uniform(-inner + 1.2, inner - 1.2), cy + rng.uniform(-inner + 1.2, inner - 1.2)
            if abs(x - cx) < inner - 1.0 and abs(y - cy) < inner - 1.0 and \
                    all(math.hypot(x - a, y - b) > 1.9 + r * 0.5 for a, b, r in taken):
                break
        else:
            continue
        taken.append((float(x), float(y), 1.8))
        cocked = rng.random() < (0.5 if near_wall else 0.15)
        dice.append(Die(face=int(rng.integers(1, 7)), x=float(x), y=float(y), angle=float(rng.uniform(0, 360)),
                        cocked=bool(cocked), tilt=float(rng.uniform(20, 50)), colour=int(rng.integers(7)),
                        turn=int(rng.integers(4)), size=float(rng.uniform(1.6, 2.0))))
    # R18: a die rests cocked only leaning on something: each cocked die is moved against its
    # nearest standing wall or die (or, LEAN_ON_DIE of the time, its nearest die), tipped onto it,
    # as the bench's scenes draw it; with no room anywhere it lies flat
    for i, d in enumerate(dice):
        if d.cocked:
            others = [o for o in dice if o is not d]
            on_die = LEAN_ON_DIE > 0 and bool(others) and rng.random() < LEAN_ON_DIE
            dice[i] = ((on_die and lean(d, layout, others, taken, wall_face, dice_only=True))
                       or lean(d, layout, others, taken, wall_face) or replace(d, cocked=False))
            spot = taken.index((d.x, d.y, 1.8))
            taken[spot] = (dice[i].x, dice[i].y, 1.8)  # where it lies now, for the next one to keep clear of
    return dice


@contextlib.contextmanager
def _stand_in_tiles():
    """Draw face-up tiles with the renderer's procedural stand-in (a plain install's look)."""
    art = tile_look._tile_art
    tile_look._tile_art = lambda: None
    try:
        yield
    finally:
        tile_look._tile_art = art


def view_truth(image: np.ndarray, truth: dict, cal, layout: TableLayout):
    """The dice reader's view of a rendered table (`scene.dice_view`), the true dice boxes on it
    ({face, cocked, box}) and the face-up tiles' boxes lying in it (the things that are not dice)."""
    view, M = dice_view(image, cal, layout)
    dice = [{"face": d["face"], "cocked": d["cocked"],
             "box": _box(cv2.perspectiveTransform(cal.to_table(d["corners"]).reshape(-1, 1, 2), M).reshape(-1, 2))}
            for d in truth["dice"]]
    n_px = view.shape[0]
    tiles = [b for b in (cal.box_to_view(t["box"], M) for t in truth["tiles"])
             if b[2] > 0 and b[3] > 0 and b[0] < n_px and b[1] < n_px]
    return view, dice, tiles


def table_view(seed: int, level: str | None = None):
    """One rendered table, as the top-down view of the square the dice reader gets, and its dice."""
    rng = np.random.default_rng([seed, 7])
    level = level or LEVELS[int(rng.integers(3))]
    sc = random_scene(seed, level)
    layout = TableLayout(sc.table_size, sc.stacks)
    taken = [(d.x, d.y, 3.0) for d in sc.discards]
    sc.dice = _scatter_dice(rng, layout, taken, int(rng.integers(0, 8)),
                            drawn_wall_face(layout, sc.walls, sc.offsets, sc.wall_shift))
    stand_in = tile_look._tile_art() is None or rng.random() < 0.5  # both looks of the discards
    with _stand_in_tiles() if stand_in else contextlib.nullcontext():
        image, truth = render(sc)
    cal = from_markers(image)
    if cal is None or not cal.calibrated:
        return None
    view, dice, tiles = view_truth(image, truth, cal, layout)
    return view, dice, {"die_px": 1.8 * 1.03 * DICE_PX_PER_CM, "level": level, "tiles": tiles,
                        "look": "stand-in" if stand_in else "art", "foot": dice_view_foot(cal, layout)}


# --- tray photos ---------------------------------------------------------------------------------


def _noise_field(rng, shape, cells: int) -> np.ndarray:
    n = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(n, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _background(rng: np.random.Generator, size: int) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A tray or table surface; returns the picture and the inner area (x0, y0, x1, y1) dice lie in."""
    kind = rng.choice(["lightbox", "cardboard", "dark", "wood", "felt", "paper"], p=[.25, .2, .2, .1, .15, .1])
    if kind == "lightbox":
        base = rng.uniform(205, 250) * np.array([1, 1, 1]) + rng.normal(0, 4, 3)
    elif kind == "cardboard":
        base = np.array([rng.uniform(150, 200)] * 3) * np.array([0.85, 0.95, 1.0])
    elif kind == "dark":
        base = rng.uniform(15, 70, 3) * rng.uniform(0.7, 1.0)
    elif kind == "wood":
        base = np.array([40, 90, 150]) * rng.uniform(0.6, 1.3)
    elif kind == "felt":
        base = [(70, 110, 40), (110, 80, 30), (60, 60, 60), (40, 40, 120), (90, 110, 130)][int(rng.integers(5))]
        base = np.array(base) * rng.uniform(0.7, 1.3)
    else:
        base = rng.uniform(120, 240, 3)
    img = np.empty((size, size, 3), np.float32)
    img[:] = np.clip(base, 0, 255)
    tex = _noise_field(rng, (size, size), int(rng.integers(20, 120))) - 0.5
    img += tex[..., None] * rng.uniform(4, 25)
    if kind == "wood":
        yy = np.arange(size, dtype=np.float32)[:, None]
        img *= (1 + 0.12 * np.sin(yy / rng.uniform(3, 9) + 3 * _noise_field(rng, (size, size), 6)))[..., None]
    img += rng.normal(0, rng.uniform(0, 4), img.shape).astype(np.float32)  # grain
    area = (0.0, 0.0, float(size), float(size))
    if rng.random() < 0.35:  # a tray with a rim, dark or light, and the floor beyond
        m = rng.uniform(0.03, 0.15, 4) * size
        x0, y0, x1, y1 = m[0], m[1], size - m[2], size - m[3]
        rim = np.array(rng.uniform(10, 80, 3) if rng.random() < 0.6 else rng.uniform(150, 240, 3))
        t = rng.uniform(0.02, 0.05) * size
        outer = img.copy()
        outer[:] = np.clip(rng.uniform(150, 250) + rng.normal(0, 6, 3), 0, 255)
        mask = np.zeros((size, size), np.uint8)
        cv2.rectangle(mask, (int(x0), int(y0)), (int(x1), int(y1)), 255, -1)
        ring = np.zeros_like(mask)
        cv2.rectangle(ring, (int(x0 - t), int(y0 - t)), (int(x1 + t), int(y1 + t)), 255, -1)
        img = np.where(mask[..., None] > 0, img, np.where(ring[..., None] > 0, rim, outer)).astype(np.float32)
        area = (x0 + 0.02 * size, y0 + 0.02 * size, x1 - 0.02 * size, y1 - 0.02 * size)
    return img, area


def tray_photo(seed: int, size: int = 640):
    """A picture of dice on a tray taken from above with a phone, and its dice."""
    rng = np.random.default_rng([seed, 11])
    img, area = _background(rng, size)
    die_px = float(rng.uniform(18, 65))
    cam = Camera(height=float(rng.uniform(25, 60)), tilt_x=float(rng.uniform(-6, 6)), tilt_y=float(rng.uniform(-6, 6)),
                 yaw=float(rng.uniform(0, 360)), focal=die_px * 95 * 720 / (size * 1.6), size=(size, size))
    table = (200.0, 200.0)
    view = make_view(cam, table)
    # the table points seen at the area's corners: dice are scattered within
    H = cv2.getPerspectiveTransform(np.float32(view.project([(90, 90, 0), (110, 90, 0), (110, 110, 0), (90, 110, 0)])),
                                    np.float32([(90, 90), (110, 90), (110, 110), (90, 110)]))
    x0, y0, x1, y1 = area
    inset = die_px * 0.8
    quad = cv2.perspectiveTransform(np.float64([[[x0 + inset, y0 + inset], [x1 - inset, y0 + inset],
                                                 [x1 - inset, y1 - inset], [x0 + inset, y1 - inset]]]), H)[0]

    def spot() -> tuple[float, float]:
        a, b = rng.random(2)
        top = quad[0] + (quad[1] - quad[0]) * a
        bottom = quad[3] + (quad[2] - quad[3]) * a
        p = top + (bottom - top) * b
        return float(p[0]), float(p[1])

    n = int(rng.choice([1, 2, 3, 5, 8, 12, 18, 25]) * rng.uniform(0.6, 1.0)) or 1
    dice: list[tuple[Die, DieLook]] = []
    taken: list[tuple[float, float]] = []
    cluster = rng.random() < 0.5
    for _ in range(n):
        s = float(rng.uniform(1.45, 1.75))
        for _try in range(40):
            if cluster and taken and rng.random() < 0.6:
                a = rng.uniform(0, 2 * math.pi)
                bx, by = taken[int(rng.integers(len(taken)))]
                x, y = bx + rng.uniform(1.7, 2.3) * math.cos(a), by + rng.uniform(1.7, 2.3) * math.sin(a)
            else:
                x, y = spot()
            if all(math.hypot(x - a, y - b) > 1.75 for a, b in taken):
                break
        else:
            continue
        taken.append((x, y))
        die = Die(face=int(rng.integers(1, 7)), x=x, y=y, angle=float(rng.uniform(0, 360)),
                  cocked=bool(rng.random() < 0.06), tilt=float(rng.uniform(20, 50)), turn=int(rng.integers(4)), size=s)
        dice.append((die, DieLook.random(rng)))
    # soft shadows first, then the dice far to near
    shadow = np.zeros((size, size), np.float32)
    sx, sy = rng.normal(0, 0.25, 2)
    for die, _ in dice:
        pts = view.project([(die.x + sx + die.size * 0.55 * math.cos(a), die.y + sy + die.size * 0.55 * math.sin(a), 0)
                            for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)])
        cv2.fillPoly(shadow, [np.round(pts).astype(np.int32)], 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), die_px * rng.uniform(0.08, 0.25))
    img *= (1 - rng.uniform(0.15, 0.45) * shadow)[..., None]
    canvas = np.clip(img, 0, 255).astype(np.uint8)
    order = sorted(dice, key=lambda dl: -math.hypot(dl[0].x - view.centre[0], dl[0].y - view.centre[1]))
    out = []
    for die, look in order:
        cub: Cuboid = die_cuboid(die)
        paint_die(canvas, view, cub, look, die_faces(die.face, die.turn))
        pts = view.project(cub.corners)
        out.append({"face": die.face, "cocked": die.cocked, "box": _box(pts)})
    f = canvas.astype(np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    f *= (1 + gx * xx + gy * yy - rng.uniform(0, 0.4) * (xx * xx + yy * yy))[..., None]
    f *= rng.uniform(0.75, 1.2)
    if rng.random() < 0.7:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.3))
    f += rng.normal(0, rng.uniform(1, 7), f.shape).astype(np.float32)
    canvas = np.clip(f, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
    canvas = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    keep = [d for d in out if d["box"][0] >= 0 and d["box"][1] >= 0 and d["box"][2] <= size and d["box"][3] <= size]
    return canvas, keep, {"die_px": die_px}


__all__ = ["table_view", "tray_photo", "scene_variant"]
