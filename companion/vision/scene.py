"""One picture of the table → what is on it, in the game's terms (`companion observe`).

`analyse()` calibrates (markers, a manual calibration, or none: the image is the table), reads
the walls, finds the break by the rules of the variant, reads the dice, the East marker and the
wind disc, and asks the tile recogniser for face-up tiles. Stack positions follow the position
contract: a seat wind and the stack number from that wall's right end.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.rules.variant import Variant
from companion.rules.wall import Square, WallShape
from companion.vision import loose
from companion.vision import markers as marker_reader
from companion.vision.calibrate import TYPICAL_HEIGHT_CM, Calibration, camera_position, read_markers, uncalibrated
from companion.vision.dice import DieReading, find_dice, on_table
from companion.vision.geometry import TableLayout, TileSize, side_seats
from companion.vision.observation import DieSeen, EastMarkerAt, Observation, SeatWall, TileSeen, Walls, WindDiscAt
from companion.vision.wall_cover import SHADE_HAND_CM
from companion.vision.walls import WallReading, read_walls

DICE_PX_PER_CM = 12.0
#: how far the dice view reaches past the walls' inner faces, cm (negative: it stops inside them)
DICE_VIEW_REACH = -0.3
#: a die the dice view cuts off at its edge (one leaning on a wall has its top over the wall's
#: foot) is looked for again on a view reaching this far past the faces, cm; one found there is
#: kept when the first view had no die there, its middle lies within EDGE_BAND of the first
#: view's edge and no more than -EDGE_INSIDE beyond the faces (both × a die's side). A die leaning
#: on a wall pushed out a little is seen with its middle up to 0.31 of a side beyond where the
#: faces should be (its top, seen from the camera, lies over the wall), so the view reaches 1.6 cm
#: to see it whole; the detector, trained on views cut inside the walls, takes bits of the walls'
#: foot for dice, and those lie from 0.49 of a side beyond the faces (models/dice/README.md, "Dice
#: the view cuts off"). A cocked die shows a side face too, so its box is wider than a die and
#: the first view cuts it with its middle up to 0.51 of a side in from its edge (easy 110150; the
#: band was 0.5 then): the band is 0.75 (of 3 060 scenes of six seeds, nothing else is found
#: between 0.42 and 1.2 of a side in)
DICE_EDGE_REACH = 1.6
EDGE_BAND, EDGE_INSIDE = 0.75, -0.4
#: "the first view had no die there": none within SAME_DIE of a die's side. Two dice lie a side
#: apart or more (1.003 the closest of 6 120 scenes of twelve seeds, a die leaning on another),
#: while the same die cocked against a wall, cut by the first view and seen whole by the wider
#: one, lies up to 0.68 of a side off (hard 150155 and 170105, read as two dice at 0.6; of 5 100
#: scenes of ten seeds nothing else the wider look finds lies within 11 sides of a die)
SAME_DIE = 0.85
#: face-up tiles are read on a top-down view of the table at this scale: a little above what a
#: 720p camera over the table gives (6-9 px/cm), so the view loses nothing the camera saw
TILES_PX_PER_CM = 12.0
#: a face-up tile's box on the top-down view measures between these shares of the tile's face
TILE_FIT = (0.68, 1.6)
#: a top that looks this much higher than its neighbours (in half a stack's height) carries a loose tile
LOOSE_RISE = 0.5
#: … or that the loose-tile model (`loose.py`) says carries one with this probability
LOOSE_P = 0.5
#: a hand resting on a wall hides at most this many stacks (`wall_cover.SHADE_HAND_CM`, 15 cm, of 2.2 cm
#: tiles): a wider gap is stacks taken for sure, even where no loose tile is seen beside it
HAND_STACKS = int(SHADE_HAND_CM // TileSize().width)

#: a photo without markers: a tile the recogniser scores this high is a tile (on the 121 real dice
#: photos, where none lie, 99 % of the "tiles" score under 0.53) …
SURE_TILE = 0.55
#: … and where it is sure of this many, a die's side is at least this share of their median short
#: side (dice sold with sets are 12–16 mm, tile faces 18–30 mm wide: 0.4 and up); the smaller
#: "dice" are a tile's dots or its index numeral
DIE_AMONG_TILES = 3
DIE_TILE_SHARE = 0.35
#: a wall that looks this many stacks longer than the variant's is built for another variant: on
#: 540 rendered scenes (`wall_length`) walls read at most 0.48 over their true length; four whole
#: walls shorter than the variant's agree in length to within this many stacks
LONGER_WALL, SAME_LENGTH = 0.7, 0.5

log = logging.getLogger(__name__)


@dataclass
class SceneSettings:
    """What the analysis must know about the table (from the `[vision]` settings and the game)."""

    variant: Variant
    #: the table side where the player who began as East sits (see `geometry`)
    first_east_side: str = "bottom"
    #: player index of the current East (GameState.dealer): decides which seat sits at which side
    dealer: int = 0
    die_cm: float = 1.8
    tile: TileSize = TileSize()
    table_size: tuple[float, float] | None = None
    #: the camera's height over the table as measured (cm), else None: estimated (`camera_position`)
    camera_height_cm: float | None = None


#: why the taught set is not used although there is one (its file is damaged), else None
_taught_note: str | None = None


@functools.cache
def tile_recognizer():
    """The tile recogniser, loaded once per process, with the set taught by `companion teach` if
    any (a damaged set: the shipped classifier, and `_taught_note` says why)."""
    from companion.vision.tiles.recognizer import TileRecognizer
    from companion.vision.tiles.teach import load_or_shipped

    global _taught_note
    taught, _taught_note = load_or_shipped()
    if _taught_note:
        log.warning("%s", _taught_note)
    return TileRecognizer(taught=taught)


def use_taught_set(taught) -> None:
    """Have the process's recogniser name tiles with a newly taught set (None: the shipped
    classifier again), without loading its models again; if it is not loaded yet, it will find
    the saved set when it is."""
    global _taught_note
    _taught_note = None
    if tile_recognizer.cache_info().currsize:
        tile_recognizer().taught = taught


def recognise_tiles(image: np.ndarray) -> tuple[list[dict], str | None]:
    """Face-up tiles through the tile recogniser: [{"tile", "box", "score"}], and a note if it cannot run."""
    try:
        recognizer = tile_recognizer()
    except CompanionError as e:  # e.g. the model files are missing from this installation
        return [], f"tile recogniser unavailable: {e}"
    return [t.to_json() for t in recognizer.recognize(image)], _taught_note


def recognise_table_tiles(image: np.ndarray, cal: Calibration, tile: TileSize,
                          not_tiles: list[tuple[float, float, float]] = ()) -> tuple[list[dict], str | None]:
    """Face-up tiles on a calibrated table, with boxes in camera pixels.

    A whole 720p frame shrunk to the detector's input leaves a tile a few pixels long, so the
    table is first rectified to a top-down view (tiles upright rectangles of a known size, as in
    the photos the recogniser learnt from) and read in windows at the detector's scale (see
    `TileRecognizer.detect`). Each box found there is mapped back through the homography.
    `not_tiles`: (x, y, radius) in table cm of things already known to be something else (the
    dice, the wind disc, the East marker): ivory with black marks, which the detector can take
    for a tile face; a box centred on one is dropped.
    """
    try:
        recognizer = tile_recognizer()
    except CompanionError as e:
        return [], f"tile recogniser unavailable: {e}"
    k = TILES_PX_PER_CM
    tw, th = cal.table_size
    to_view = np.diag([k, k, 1.0])  # table cm -> view px
    view = cal.view(image, to_view, (int(tw * k), int(th * k)))
    tiles = recognizer.recognize(view, tile_px=max(tile.width, tile.depth) * k)
    out = []
    for t in tiles:
        x1, y1, x2, y2 = t.box
        cx, cy = (x1 + x2) / 2 / k, (y1 + y2) / 2 / k
        if any(np.hypot(cx - x, cy - y) < r for x, y, r in not_tiles):
            continue
        long, short = max(x2 - x1, y2 - y1) / k, min(x2 - x1, y2 - y1) / k
        if not (TILE_FIT[0] * tile.depth <= long <= TILE_FIT[1] * tile.depth and short >= TILE_FIT[0] * tile.width):
            continue  # not a tile's size: half a tile found on its own, or something larger
        out.append({"tile": t.tile, "box": cal.box_to_image(t.box, to_view), "score": round(t.score, 3)})
    return out, _taught_note


def dice_view(image: np.ndarray, cal: Calibration, layout: TableLayout,
              reach: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The top-down view of the square inside the walls that the dice reader gets (DICE_PX_PER_CM),
    and the homography from table cm to its pixels (the training scripts look the same way).
    `reach`: cm past the walls' faces (None: DICE_VIEW_REACH)."""
    x0, y0, side = _view_square(layout, reach)
    k = DICE_PX_PER_CM
    A = np.array([[1 / k, 0, x0], [0, 1 / k, y0], [0, 0, 1]])  # view px -> table cm
    to_view = np.linalg.inv(A)
    n_px = int(side * k)
    return cal.view(image, to_view, (n_px, n_px)), to_view


def _view_square(layout: TableLayout, reach: float | None = None) -> tuple[float, float, float]:
    """`dice_view`'s square: the table point (cm) at its top-left pixel, and its side (cm)."""
    r = layout.inner + (DICE_VIEW_REACH if reach is None else reach)
    return layout.centre[0] - r, layout.centre[1] - r, 2 * r


def dice_view_faces_in() -> float:
    """How far in from `dice_view`'s edges the walls' inner faces lie, px (negative: beyond them)."""
    return DICE_VIEW_REACH * DICE_PX_PER_CM


def dice_view_foot(cal: Calibration, layout: TableLayout, reach: float | None = None) -> tuple[float, float] | None:
    """The table point right below the camera in `dice_view`'s pixels (the dice reader turns each
    crop so that it lies below), or None when the calibration cannot tell."""
    cam = camera_position(cal)
    if cam is None:
        return None
    x0, y0, _ = _view_square(layout, reach)
    return (cam[0] - x0) * DICE_PX_PER_CM, (cam[1] - y0) * DICE_PX_PER_CM


def dice_cut_off(image: np.ndarray, cal: Calibration, layout: TableLayout, found: list[DieReading],
                 die_px: float, size: tuple[int, int]) -> list[DieReading]:
    """The dice `dice_view` cuts off at its edge, read on a wider view (DICE_EDGE_REACH), in the
    first view's pixels; `found`: the dice read there, `size`: its (h, w)."""
    wide, _ = dice_view(image, cal, layout, DICE_EDGE_REACH)
    shift = (DICE_EDGE_REACH - DICE_VIEW_REACH) * DICE_PX_PER_CM  # the first view's origin in the wide one
    h, w = size
    faces = dice_view_faces_in()  # the faces, in from the first view's edges (negative: beyond them)

    def wanted(_score: float, box) -> bool:
        x, y = (box[0] + box[2]) / 2 - shift, (box[1] + box[3]) / 2 - shift
        edge = min(x, y, w - x, h - y)  # in from the first view's edges
        return (edge < EDGE_BAND * die_px and edge - faces >= EDGE_INSIDE * die_px
                and all(np.hypot(x - d.centre[0], y - d.centre[1]) >= SAME_DIE * die_px for d in found))

    got = find_dice(wide, die_px=die_px, foot=dice_view_foot(cal, layout, DICE_EDGE_REACH),
                    skip=lambda s, b: not wanted(s, b))
    return [replace(d, box=tuple(v - shift for v in d.box), centre=(d.centre[0] - shift, d.centre[1] - shift))
            for d in got]


def _no_side_faces(found: list[DieReading], size: tuple[int, int]) -> list[DieReading]:
    """`found` less the side faces of dice cocked towards a wall: the view, stopping inside the
    walls, cuts such a face off, and it was read as a second die touching the first, with its
    middle beyond the view's edge (medium 110093, easy 70) or its box stopped by the edge and its
    middle nearer the edge than the die's (hard 150155). The wider look (`dice_cut_off`) sees the die whole, and reads again any die of a
    throw dropped so. A die cut so with no other die touching is kept: this view reads a
    leaning die's tilt better than the wider one (hard 70111)."""
    h, w = size

    def touch(a, b) -> bool:
        return a.box[0] <= b.box[2] and b.box[0] <= a.box[2] and a.box[1] <= b.box[3] and b.box[1] <= a.box[3]

    def inside(d) -> float:  # how far its middle lies in from the view's edges
        return min(d.centre[0], d.centre[1], w - d.centre[0], h - d.centre[1])

    def cut(d) -> bool:
        x1, y1, x2, y2 = d.box
        return inside(d) < 0 or min(x1, y1) <= 0 or x2 >= w or y2 >= h

    return [d for d in found
            if not (cut(d) and any(o is not d and inside(o) > inside(d) and touch(d, o) for o in found))]


def _dice_in_cm(found: list[DieReading], layout: TableLayout) -> list[tuple[float, float, float]]:
    """Dice read on `dice_view` as table cm: centre x, y and the radius of the box seen."""
    x0, y0, _ = _view_square(layout)
    k = DICE_PX_PER_CM
    return [(x0 + d.centre[0] / k, y0 + d.centre[1] / k, max(d.box[2] - d.box[0], d.box[3] - d.box[1]) / (2 * k))
            for d in found]


def table_dice(image: np.ndarray, cal: Calibration, layout: TableLayout,
               die_cm: float) -> tuple[list[DieReading], np.ndarray]:
    """The dice on a calibrated table, in `dice_view`'s pixels, and that view's homography from the
    table: read on the view, those it cuts off at its edge added (`dice_cut_off`), then the rules
    of dice on a table (`on_table`: inside the walls, cocked only leaning on something, R18)."""
    view, M = dice_view(image, cal, layout)
    die_px = die_cm * 1.03 * DICE_PX_PER_CM
    found = _no_side_faces(find_dice(view, die_px=die_px, foot=dice_view_foot(cal, layout)), view.shape[:2])
    found += dice_cut_off(image, cal, layout, found, die_px, view.shape[:2])
    return on_table(found, die_px, view.shape[:2], dice_view_faces_in()), M


def find_break(shape: WallShape, ring: list[int], splits: dict[int, float] | set[int], loose: set[int]) -> int | None:
    """Ring index of the break (`Break.at`) from the stacks standing, or None before the break.

    `ring`: heights clockwise from East's stack 1; `splits`: ring index i for a split between i
    and i + 1 (with its width, when known); `loose`: where tiles seem to lie on top.

    Lift style (R19): the gap of the lifted stack, next to the dead wall (on the variant's side,
    R20) where the loose tiles lie; after the deal the gap runs on along the live wall (R24),
    so the break is the gap's end at the dead wall. Split style: the stack on the dead-wall side
    of the split (riichi: the dead wall's first stack); after the deal, the stack before the gap.

    A hand resting on a wall that the wall reader did not see leaves a gap too, so a gap counts
    only where the rules could have left it: with loose tiles beside it (where R20 lays them,
    best), or wider than a hand (lift style); a whole number of the deal's takes, or the deal
    done (split style, R24).
    """
    size = len(ring)
    back = shape.back
    gaps = []  # (first, last) clockwise, of every run of missing stacks
    for i in range(size):
        if ring[i] == 0 and ring[(i - 1) % size] != 0:
            j = i
            while ring[(j + 1) % size] == 0 and (j + 1) % size != i:
                j = (j + 1) % size
            gaps.append((i, j))

    def span(g: tuple[int, int]) -> int:
        return (g[1] - g[0]) % size + 1

    if shape.lift:
        if not gaps:
            return None
        ends = [g[0] if back == -1 else g[1] for g in gaps]
        laid = shape.loose_laid

        def dist(e: int) -> int:
            return min(((lt - e) * back) % size for lt in loose)

        def laid_as_told(e: int) -> int:
            # how many lie on the very stacks R20 names from this end (the 5th and 3rd in
            # classical rules): a hand over a wall makes a gap too, and the stacks beside it
            # can look raised, but seldom just there
            return sum((e + back * k) % size in loose for k in laid)

        if shape.loose_on_top:
            # R19–R21: from the break to the end of the hand, loose tiles lie on the dead wall
            # (when both are drawn, the next stack is lifted and laid there): a gap without one
            # beside it may be stacks hidden by a hand, not the break
            near = [e for e in ends if loose and dist(e) <= shape.dead_stacks]
            if near:
                return min(near, key=lambda e: (-laid_as_told(e), dist(e)))
            # none seen (missed, or under a hand): only a gap wider than a hand is stacks taken
            wide = [e for e, g in zip(ends, gaps) if span(g) > HAND_STACKS]
            if len(wide) == 1:
                return wide[0]
            # ... or, with no loose tile seen anywhere, the lifted stack's gap before the deal (R19)
            # as the one stack missing from the whole ring: a hand lying on a wall leaves a wider
            # gap (in none of 3 060 readings with a hand resting on a wall, skin or felt-coloured,
            # did a hand leave one stack alone missing)
            if not loose and len(gaps) == 1 and span(gaps[0]) == 1:
                return ends[0]
            return None
        singles = [e for e, g in zip(ends, gaps) if g[0] == g[1]]
        return singles[0] if len(singles) == 1 else (ends[0] if len(ends) == 1 else None)
    # split: the end of the drawn-away gap next to the dead wall, or the widest split. R24: the
    # deal takes whole stacks a few at a time (two: four tiles), so until those takes are done
    # a gap is a whole number of takes, or it is a hand's; and until a whole pass is dealt, a
    # split apart from every gap is still the break
    widths = (splits if isinstance(splits, dict) else dict.fromkeys(splits, 1.0)) if splits else {}
    take = shape.take  # stacks a seat takes at once
    one_pass, takes_done = 4 * take, shape.deal_stacks  # stacks gone after one pass, after all
    dealt = [g for g in gaps if span(g) >= takes_done or span(g) % take == 0]

    def beside(i: int, g: tuple[int, int]) -> bool:  # split i (between i and i + 1) at the gap's edge or in it
        return ((i - g[0] + 2) % size) <= span(g) + 2

    apart = {i: w for i, w in widths.items() if not any(beside(i, g) for g in gaps)}
    if dealt and not (apart and max(map(span, dealt)) < one_pass):
        g = max(dealt, key=span)
        return (g[0] - 1) % size if back == -1 else (g[1] + 1) % size
    widths = apart if gaps else widths
    if widths:
        i = max(sorted(widths), key=lambda k: widths[k])
        return i if back == -1 else (i + 1) % size
    return None


def wall_length(walls: dict[str, WallReading], n: int) -> tuple[int, str] | None:
    """How many stacks long the walls look, whatever the variant says, when that is not its `n`:
    (stacks, "longer" or "shorter"), else None. A wall's length is its standing tops' length over
    the stack pitch measured on it.

    Longer: one wall is enough (stacks taken only shorten walls). Shorter: a wall with stacks
    taken looks shorter too, so only four whole walls count (no gap between their tops wider than
    a split) and all as long as each other: stacks taken for the break and the deal form one run
    round the square (R19, R24), which never shortens all four walls alike.
    """
    seen = [sum(a1 - a0 for a0, a1 in r.runs) / r.pitch for r in walls.values() if r.runs and r.pitch > 0]
    if not seen:
        return None
    if max(seen) > n + LONGER_WALL:
        return round(max(seen)), "longer"
    whole = len(seen) == 4 and all(s - e < 0.5 * r.pitch for r in walls.values()  # a split takes no stack
                                   for (_, e), (s, _) in zip(r.runs, r.runs[1:]))
    if whole and max(seen) - min(seen) < SAME_LENGTH and round(float(np.mean(seen))) < n:
        return round(float(np.mean(seen))), "shorter"
    return None


def warm_up() -> None:
    """Do once what the first analysis would otherwise do on top of its work: build the marker
    detectors and the wind-letter templates, start OpenCV's threads. Keeps the first frame as
    quick as the others (the live watcher calls this when it starts)."""
    from companion.rules.variant import load_variant
    from companion.vision.calibrate import find_markers, manual

    marker_reader.warm_up()
    loose.reader()  # a blank table has no walls to read it on
    blank = np.full((720, 1280, 3), 90, np.uint8)
    find_markers(blank)
    cal = manual([[280, 0], [1000, 0], [1000, 720], [280, 720]])
    analyse(blank, SceneSettings(load_variant("classical")), calibration=cal, with_tiles=False)


def analyse(image: np.ndarray, settings: SceneSettings, calibration: Calibration | None = None,
            *, with_tiles: bool = True, name: str = "") -> Observation:
    """Everything `companion observe` reports about one image (`Observation.to_json()`: its JSON)."""
    t0 = time.perf_counter()
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"{name or 'image'}: expected a BGR picture (height x width x 3)")
    from companion.vision.tiles.recognizer import (
        too_small,  # read_image's rule and words for a file
    )

    if small := too_small(name or "image", image.shape[1], image.shape[0]):
        raise ValueError(small)
    why = ""
    if calibration is None:
        calibration, why = read_markers(image, settings.table_size) if settings.table_size else read_markers(image)
    cal = calibration
    found: dict[str, Any]
    if cal is None or not cal.calibrated:
        cal = uncalibrated(image)
        found = {"walls": None, "east_marker": None, "wind_shown": None}
        if why:
            found["calibration_note"] = why
        tiles, note = recognise_tiles(image) if with_tiles else ([], "not asked")
        # what the tiles rule out is not read at all (a cluttered photo of tiles has hundreds of
        # die-like marks, and reading each costs four runs of the face model)
        side = _sure_tile_side(tiles)
        readings = find_dice(image, skip=lambda s, box: _mark_on_tile(box, round(s, 4), tiles, side))
        readings = dice_among_tiles(readings, tiles)
        dice = [DieSeen(**d.to_json()) for d in readings]
        found["dice"] = dice
        tiles = [t for t in tiles if not any(_inside(t["box"], d.box) for d in dice)]  # a die's face is no tile
        calibrated = False
    else:
        if cal.image_size is None:  # a calibration given by hand: where the camera hangs needs the size too
            cal = replace(cal, image_size=(int(image.shape[1]), int(image.shape[0])))
        if settings.camera_height_cm and cal.camera_height_cm != settings.camera_height_cm:
            cal = replace(cal, camera_height_cm=settings.camera_height_cm)
        found = _table(image, cal, settings)
        tiles, note = (recognise_table_tiles(image, cal, settings.tile,
                                             _not_tiles(Observation(image=name, ms=0.0, calibrated=True, **found),
                                                        cal, settings))
                       if with_tiles else ([], "not asked"))
        if _is_grey(image):  # tile backs, the marker and the disc are told from the felt by colour
            found.update(walls=None, east_marker=None, wind_shown=None,
                         note="a grey picture: the walls, the East marker and the wind disc need colour")
        calibrated = True
    h, w = image.shape[:2]
    if note:
        found["tiles_note"] = note
    return Observation(image=name, calibrated=calibrated, **found,
                       tiles=[TileSeen(tile=t["tile"], box=_clip(t["box"], w, h), score=t["score"]) for t in tiles],
                       ms=round((time.perf_counter() - t0) * 1000, 1))


def dice_among_tiles(readings: list, tiles: list[dict]) -> list:
    """The dice readings of a photo without markers that can be dice, given its face-up tiles.

    Without a calibration nothing tells a die's size from a tile's: a circles tile's dots and its
    red index numeral read as pips, a die (or a cluster of them) as a tile. So (1) where a die's
    centre lies in a tile's box, the surer reading stands; (2) where the tile recogniser is sure
    of several tiles (DIE_AMONG_TILES), a "die" far smaller than those tiles is a mark on one;
    (3) there, too, a "die" whose face the reader is unsure of (`dice.UNSURE_FACE_P`) or that it
    reads as cocked is a tile's marks or a tile seen at a slant (of the 1 066 dice read on the
    121 real dice photos, all flat, 8 read that unsure and none cocked; on them no tile is sure).
    Measured (models/dice/README.md, `tiles_vs_dice.py`): no die of the 121 real dice photos
    lost; the dice "found" on 80 photos of face-up tiles cut from 1 031 to 110 by (1) and (2),
    to 13 by (3).
    """
    from companion.vision.dice import UNSURE_FACE_P

    side = _sure_tile_side(tiles)
    return [d for d in readings if not _mark_on_tile(d.box, d.score, tiles, side)
            and not (side is not None and (d.face_p < UNSURE_FACE_P or d.cocked))]


def _sure_tile_side(tiles: list[dict]) -> float | None:
    """The median short side of the tiles the recogniser is sure of; None when too few are."""
    sure = [t["box"] for t in tiles if t["score"] >= SURE_TILE]
    if len(sure) < DIE_AMONG_TILES:
        return None
    return float(np.median([min(b[2] - b[0], b[3] - b[1]) for b in sure]))


def _mark_on_tile(box, score: float, tiles: list[dict], tile_side: float | None) -> bool:
    """`dice_among_tiles`'s two rules for one die reading of this box and score. Both hold for
    any lower score too, so a detection's centre score (the best it can reach) decides before
    the face model reads it."""
    if any(_inside(box, t["box"]) and t["score"] > score for t in tiles):
        return True
    return tile_side is not None and max(box[2] - box[0], box[3] - box[1]) < DIE_TILE_SHARE * tile_side


def _is_grey(image: np.ndarray) -> bool:
    """A picture without colour (a grey photo saved as colour): its channels agree everywhere."""
    small = cv2.resize(image, (160, 90), interpolation=cv2.INTER_AREA)
    return int((small.max(axis=2).astype(np.int16) - small.min(axis=2)).max()) <= 2


def _inside(box, outer) -> bool:
    """Whether `box`'s centre lies in `outer`."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= x <= outer[2] and outer[1] <= y <= outer[3]


def _clip(box, w: int, h: int) -> list[float]:
    """A box kept inside the picture (a tile cut by the edge is found with the part it lacks)."""
    x1, y1, x2, y2 = box
    return [round(min(max(x1, 0.0), w), 1), round(min(max(y1, 0.0), h), 1),
            round(min(max(x2, 0.0), w), 1), round(min(max(y2, 0.0), h), 1)]


def _not_tiles(seen: Observation, cal: Calibration, s: SceneSettings) -> list[tuple[float, float, float]]:
    """(x, y, radius) in table cm of what the analysis found that is not a face-up tile: the
    standing wall stacks (a tile's back seen from above), the dice, the wind disc and the East
    marker. Circles of half a tile's depth on every standing stack cover the wall's band: one
    where it stands and one where its top is seen, which parallax moves away from the camera's
    foot (by a centimetre or two at a wall the camera does not hang above)."""
    layout = TableLayout(cal.table_size, s.variant.stacks_per_wall, s.tile)
    cam = camera_position(cal)
    fx, fy, height = cam if cam is not None else (*layout.centre, TYPICAL_HEIGHT_CM)
    top = 2 * s.tile.height
    lift = top / max(height - top, 10.0)  # a point at the top's height lands this much farther out
    out = []
    for seat in (seen.walls.seats if seen.walls else {}).values():
        for k in seat.standing:
            x, y = layout.stack_centre(seat.side, k)
            out.append((float(x), float(y), s.tile.depth / 2))
            out.append((float(x + (x - fx) * lift), float(y + (y - fy) * lift), s.tile.depth / 2))
    for d in seen.dice:
        x1, y1, x2, y2 = d.box
        (x, y), = cal.to_table([[(x1 + x2) / 2, (y1 + y2) / 2]])
        out.append((float(x), float(y), s.die_cm))
    if seen.wind_at:
        (x, y), = cal.to_table([seen.wind_at.px])
        out.append((float(x), float(y), marker_reader.WIND_DISC_RADIUS_CM + 0.5))
    if seen.east_marker_at:
        (x, y), = cal.to_table([seen.east_marker_at.px])
        out.append((float(x), float(y), marker_reader.WIND_DISC_RADIUS_CM + 0.5))
    return out


def _carries(reading: WallReading, k: int) -> float | None:
    """How sure it is that stack k of a wall carries a loose tile (None: it does not look to): the
    loose-tile model's probability, at least LOOSE_P where parallax shows the top edge raised.
    NaN (away from the gaps, or without the model) counts as neither."""
    p = reading.carries[k - 1] if reading.carries else float("nan")
    p = 0.0 if not np.isfinite(p) else float(p)
    if reading.lifted and reading.lifted[k - 1] > LOOSE_RISE:
        p = max(p, LOOSE_P)
    return p if p >= LOOSE_P else None


def _table(image: np.ndarray, cal: Calibration, s: SceneSettings) -> dict[str, Any]:
    variant = s.variant
    layout = TableLayout(cal.table_size, variant.stacks_per_wall, s.tile)
    seats = side_seats(s.dealer, s.first_east_side, variant.seating.direction)  # side -> seat wind
    shape = WallShape.of(variant)  # R19–R24
    lift, on_top = shape.lift, shape.loose_on_top
    # dice: inside the walls (R18), read on a finer top-down view of the square; first, since a die
    # leaning on a wall is not a hand lying over it
    found, M = table_dice(image, cal, layout, s.die_cm)
    # the East marker and the wind disc: on a coarser top-down view of the whole table; before the
    # walls, since a wind box lying beyond a wall is no arm reaching in (`wall_cover._arms`)
    kk = marker_reader.PX_PER_CM
    tw, th = cal.table_size
    table_img = cal.view(image, np.diag([kk, kk, 1.0]), (int(tw * kk), int(th * kk)))
    marker = marker_reader.find_east_marker(table_img, layout, image, cal)
    wind = marker_reader.find_wind(table_img, layout, marker, image, cal)
    walls = read_walls(image, cal, layout, (shape.back, shape.dead_stacks) if lift and on_top else None,
                       dice=_dice_in_cm(found, layout),
                       markers=[(*m.centre, m.reach_cm) for m in (marker, wind) if m is not None])
    sq = Square.for_variant(variant)
    ring, splits, high = [0] * sq.size, {}, {}
    per_seat: dict[str, SeatWall] = {}
    for side, reading in walls.items():
        seat = seats[side]
        heights = reading.heights or [0] * sq.n
        for k, hgt in enumerate(heights, 1):
            i = sq.index(seat, k)
            ring[i] = hgt
            sure = _carries(reading, k)
            if sure is not None:  # a tile lying on top (R19)
                high[i] = sure
        for k, width in zip(reading.splits, reading.split_widths):
            if 1 <= k < sq.n:
                splits[sq.index(seat, k)] = width
        standing = [k for k, hgt in enumerate(heights, 1) if hgt > 0]
        per_seat[seat] = SeatWall(side=side, standing=standing, count=len(standing), gaps=_gaps(heights),
                                  splits=reading.splits, half=[k for k, hgt in enumerate(heights, 1) if hgt == 1],
                                  hidden=reading.hidden)
    hidden = sorted(sq.index(seats[side], k) for side, r in walls.items() for k in r.hidden)
    loose_seen = set(high) if lift and on_top else set()
    at = find_break(shape, ring, splits, loose_seen)
    if hidden and at is not None:
        # a hand resting on a wall looks like stacks taken away or a split, and the wall's other
        # stacks are numbered from runs it cut short: the break stands only on another wall, and
        # only when it is the same with every stack of the walls under a hand standing, unsplit
        under = {i // sq.n for i in hidden}
        whole = [2 if i // sq.n in under else hgt for i, hgt in enumerate(ring)]
        unsplit = {i: w for i, w in splits.items() if i // sq.n not in under}
        if at // sq.n in under or find_break(shape, whole, unsplit, loose_seen) != at:
            at = None
    live, loose = None, []
    if at is not None:
        dead = shape.dead_wall(at)
        if not hidden:  # what lies under a hand cannot be counted
            live = sum(min(h, 2) for i, h in enumerate(ring) if i not in dead and not (lift and i == at))
        # R19/R20: the loose tiles lie on top of the dead wall, two at most (R21: two more are
        # laid there only when both are used); where more seem to, the two surest
        on_dead = sorted((i for i in dead if i in high), key=lambda i: -high[i])[:2]
        loose = [i for i in dead if i in on_dead] if lift and on_top else []
    seen = Walls(seats=per_seat, break_=tuple(sq.stack_at(at).to_json()) if at is not None else None,
                 loose=[tuple(sq.stack_at(i).to_json()) for i in loose], live_tiles=live)
    if hidden:
        seen.hidden = [tuple(sq.stack_at(i).to_json()) for i in hidden]
        seen.note = (f"something lies over {len(hidden)} stack{'s' if len(hidden) > 1 else ''} of the walls "
                     "(a hand?): " + ("the break cannot be read and " if at is None else "")
                     + "the live tiles cannot be counted")
    length = wall_length(walls, sq.n)
    if length is not None:
        seen.stacks_seen, how = length
        other = (f"{'a wall looks' if how == 'longer' else 'the walls look'} {length[0]} stacks long, but the "
                 f"variant {variant.name} builds {sq.n}: is the variant right? (stacks are numbered as for {sq.n})")
        seen.note = "; ".join(filter(None, (seen.note or None, other)))

    dice = [DieSeen(**{**d.to_json(), "box": cal.box_to_image(d.box, M)}) for d in found]
    extra: dict[str, Any] = {}
    if marker is not None:
        px = cal.to_image([marker.centre])[0]
        extra["east_marker_at"] = EastMarkerAt(side=marker.side, kind=marker.kind,
                                               px=[round(float(v), 1) for v in px])
    if wind is not None:
        px = cal.to_image([wind.centre])[0]
        extra["wind_at"] = WindDiscAt(px=[round(float(v), 1) for v in px], score=round(wind.score, 3))
    return {
        "walls": seen,
        "dice": dice,
        "east_marker": seats[marker.side] if marker else None,
        "wind_shown": wind.wind if wind else None,
        **extra,
    }


def _gaps(heights: list[int]) -> list[list[int]]:
    """Runs of missing stacks as [first, last] stack numbers."""
    out, start = [], None
    for k, hgt in enumerate(heights + [1], 1):
        if hgt == 0 and start is None:
            start = k
        elif hgt != 0 and start is not None:
            out.append([start, k - 1])
            start = None
    return out
