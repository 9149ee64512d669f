"""The four walls seen from above: which stacks stand, the gaps and splits, half stacks and loose tiles.

Each wall is resampled from the camera image into a straight strip in the table frame
(`calibrate.Calibration`): columns run along the wall from its stack 1 towards stack N, rows
across it from inside the square outwards. In that strip the tops of the stacks are the pixels
of the tiles' back colour (one colour for the whole set, learnt from the picture); the sides
are ivory and the felt is neither.

The tops stand 3.2 cm above the table the markers lie on, so they look a few percent larger
than the table frame says (parallax, and the lens), by an amount that depends on where the
camera hangs. Nothing here assumes that amount. A wall's ends are predicted from the inner edges
of the two walls it meets at the corners — tops at the same height, so displaced the same way
— and the stack pitch is measured. Which end of a broken wall still stands is decided for the
whole square at once: the stacks taken away always form one run round the square (R19, R23,
R24: the live wall is taken from its open end, replacements from next to the break), so a
reading that cuts the square into two runs is the less likely one.

A narrow gap inside a run of stacks is a split (riichi: the dead wall pushed a little away from
the live wall, as R20 does with the kong box). A stack whose top lies lower than its neighbours' is half a stack (a tile drawn from
it); one with a tile lying on it stands higher: the loose tiles (R19). Both are told by where
the top edge of the stack appears (parallax grows with height) and by how much light it catches;
a loose tile also by a small network that looks at the stack's top beside its neighbours'
(`loose.py`), since one laid a little inwards does not reach past the stack's edge.

A hand resting on a wall hides the tops under it, and its edge cuts them like a gap or a split.
Where something that is neither felt nor tile lies beside a break in the tops (`_foreign`), or a
shadow falls there on the felt or the tops (`_shade`: a hand the felt's own colour), the stacks
there are reported hidden (`WallReading.hidden`), so that no break is read from them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import cv2
import numpy as np

from companion.vision import loose
from companion.vision.calibrate import TYPICAL_HEIGHT_CM, Calibration, camera_position
from companion.vision.geometry import CORNER_GAP_CM, SIDES, WALL_FRAMES, TableLayout

#: strip resolution, pixels per cm along and across the wall
PX_PER_CM = 8.0
#: Lab weights: lightness counts less than colour (shadows and uneven light change lightness)
LAB_WEIGHTS = np.array([0.25, 1.0, 1.0], np.float32)
#: how much larger than the table frame the wall tops may look (parallax and lens)
MAX_SCALE = 1.12
#: the sides clockwise round the square: walking a wall from stack 1 to N leads to the next one's stack 1
RING_SIDES: tuple[str, ...] = ("bottom", "left", "top", "right")
#: a stack whose leading top edge rises this much (half a stack's height) carries a tile: no reference
LOADED_RISE = 0.5
#: how far a wall may stand from where the layout puts it, across (cm): built a little off, or pushed
BAND_SLACK_CM = 1.5
#: a gap at least this wide (cm, as seen) inside a run of stacks is a split
SPLIT_MIN_CM = 0.3
#: a gap or a split may be a hand resting on the wall when, beside it, more than this share of the
#: band of tops is neither felt nor tile (`_foreign`). A hand resting on a wall covers 0.33 or more
#: in 95 % of rendered scenes (`render.scenes.resting_hand`), at least 0.16; walls without a hand
#: show blobs of up to 0.13 where two walls meet and, rarely, up to 0.29 where a die or a discard
#: lies against one, never beside a gap or split in 600 scenes. A hand missed records a wrong break,
#: a blob taken for one only leaves the break unread until the scene changes: the cut sits low.
#: A colour this far in chromaticity from the tiles' ivory sides is not ivory.
FOREIGN_SHARE, FOREIGN_CHROMA = 0.15, 0.15
#: a hand's shadow leaves the felt at least 1 / SHADOW_DEPTH of its light (the renderer's: 0.55)
SHADOW_DEPTH = 3.0
#: a hand or a sleeve the felt's own colour is not told by hue, but it casts a shadow on the wall
#: and the felt beside it (`_shade`): felt this much darker than the felt along the wall in the same
#: row, or tops this much darker than the tops (the seams between them are dark lines), within this
#: chromaticity of the colour, count as shadow; and a shadow this close (cm) to a break in the
#: tops may be a hand's, if the stacks taken away there span no more than a hand lying on them (cm)
SHADE_FELT, SHADE_TOPS, SHADE_CHROMA, SHADE_REACH_CM, SHADE_HAND_CM = 0.85, 0.7, 0.08, 1.5, 15.0
#: a colour's lightness along the wall is a norm only where the colour shows in this share of it
ALONG_SEEN = 0.5
#: beyond the wall a shadow may be a hand's at the table's edge: how far out its arm is looked for
#: (cm past the strip; it reaches in from there), and how far along the wall its shadow may fall
#: from it (cm)
CASTER_CM, CASTER_REACH_CM = 12.0, 8.0
#: a half stack's top catches this much of a full one's light (a lamp about 1.2 m up); the spread
#: of that ratio between tops, in half-tile units; and how well a top's edge is placed (cm)
HALF_SHINE_RATIO = 0.973
SHINE_SIGMA = 0.3
EDGE_SIGMA_CM = 0.07


def _beyond_of(side: str) -> tuple[str, str]:
    u = np.array(WALL_FRAMES[side].u)
    at_1 = next(s for s in SIDES if np.allclose(WALL_FRAMES[s].inward, u))
    at_n = next(s for s in SIDES if np.allclose(WALL_FRAMES[s].inward, -u))
    return at_1, at_n


#: per side, the walls met at its stack-1 end and at its stack-N end
BEYOND: dict[str, tuple[str, str]] = {side: _beyond_of(side) for side in SIDES}


@dataclass
class Strip:
    """One side's wall resampled: `lab[row, col]`, row = across (from `t0`, outwards), col = along (from `a0`)."""

    side: str
    lab: np.ndarray
    a0: float
    t0: float
    #: colour that shading does not change: chromaticity, and a little of the log brightness
    hue: np.ndarray | None = None

    def a(self, col: float) -> float:
        return self.a0 + col / PX_PER_CM

    def col(self, a: float) -> float:
        return (a - self.a0) * PX_PER_CM

    def pixel(self, layout: TableLayout, x: float, y: float) -> tuple[float, float]:
        """The strip pixel (col, row) of the table point (x, y) cm, as `sample` maps them."""
        f = WALL_FRAMES[self.side]
        d = np.array([x, y]) - np.array(layout.centre)
        return self.col(float(np.dot(d, f.u))), (float(np.dot(d, -np.array(f.inward))) - self.t0) * PX_PER_CM


@dataclass
class WallReading:
    """What one side's wall looks like: heights per stack (stack 1 first) and splits."""

    side: str
    heights: list[int]  # 0 gone, 1 half a stack, 2 a stack, 3 a stack with a loose tile on it
    splits: list[int] = field(default_factory=list)  # k: a split between stack k and k+1
    split_widths: list[float] = field(default_factory=list)  # how wide each split looks (cm)
    band: tuple[float, float] | None = None  # the tops' inner and outer edge, cm from the centre
    runs: list[tuple[float, float]] = field(default_factory=list)  # tops standing, along the wall (cm)
    pitch: float = 0.0  # apparent stack pitch (cm)
    origin: float | None = None  # apparent position of stack 1's outer end (cm along the wall)
    anchor: str = ""  # what placed stack 1: "corners" (ends and neighbours), "table" (no neighbour), "empty"
    #: per stack near a gap (NaN elsewhere): how much higher its top looks than its neighbours'
    #: (`_Tops.rise`), its light against the tops near it, and the rise of only the top's edge that
    #: parallax moves out (+1: a tile lying on it, 0: none; `_Tops.rise(lead=True)`)
    rise: list[float] = field(default_factory=list)
    shine: list[float] = field(default_factory=list)
    lifted: list[float] = field(default_factory=list)
    #: per stack near a gap (NaN elsewhere): P(a tile lies on it) from the loose-tile model (`loose.py`)
    carries: list[float] = field(default_factory=list)
    #: stacks that something lying over the wall (a hand resting on it) may hide: the gaps and splits
    #: there may be none (`_hidden`)
    hidden: list[int] = field(default_factory=list)


def sample(image: np.ndarray, cal: Calibration, layout: TableLayout, side: str,
           across: tuple[float, float] | None = None) -> Strip:
    """The strip of `side`'s wall, long and wide enough for tops that look up to 12 % larger;
    `across`: other rows instead, (from, to) in cm from the square's centre."""
    f = WALL_FRAMES[side]
    half = layout.half_length * MAX_SCALE + 2.0
    t0, t1 = across or (layout.inner - 2.5, layout.inner + layout.tile.depth * MAX_SCALE + 3.5)
    cols, rows = int((2 * half) * PX_PER_CM), int((t1 - t0) * PX_PER_CM)
    (ux, uy), (nx, ny), (cx, cy) = f.u, f.inward, layout.centre
    k = 1 / PX_PER_CM
    # strip pixel (col, row) -> table cm: along from -half, across from t0 (outwards)
    A = np.array([[ux * k, -nx * k, cx - half * ux - t0 * nx],
                  [uy * k, -ny * k, cy - half * uy - t0 * ny], [0, 0, 1.0]])
    bgr = cv2.warpPerspective(image, cal.H_inv @ A, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    return Strip(side, cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32), -half, float(t0), hue_of(bgr))


def hue_of(bgr: np.ndarray) -> np.ndarray:
    """Per pixel: 3 × chromaticity (b, g, r over their sum) and 0.2 × log brightness.

    A shadow or a dim corner scales all three channels alike: the chromaticity stays, so a
    tile's back in the shadow of a hand is still the back colour.
    """
    f = bgr.astype(np.float32)
    total = f.sum(axis=-1, keepdims=True) + 12.0
    return np.concatenate([3.0 * f / total, 0.2 * np.log(total)], axis=-1)


def _dist(lab: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return np.sqrt((((lab - ref) ** 2) * LAB_WEIGHTS).sum(-1))


def _hue_dist(hue: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return np.sqrt(((hue - ref) ** 2).sum(-1))


def felt_colour(strip: Strip) -> np.ndarray:
    """The felt: the rows just inside the square and just outside the wall."""
    lab = strip.lab[:, ::3]
    return np.median(np.concatenate([lab[:10], lab[-8:]]).reshape(-1, 3), axis=0)


def felt_hue(strip: Strip) -> np.ndarray:
    hue = strip.hue[:, ::3]
    return np.median(np.concatenate([hue[:10], hue[-8:]]).reshape(-1, 4), axis=0)


def back_colour(strips: list[Strip], felts: list[np.ndarray]) -> np.ndarray | None:
    """The hue of the tiles' backs: the commonest colour of the rows most unlike the felt."""
    pixels = []
    for strip, felt in zip(strips, felts):
        lab, hue = strip.lab[:, ::2], strip.hue[:, ::2]  # every other column is plenty
        tile = _dist(lab, felt) > 15
        frac = tile.mean(axis=1)
        if frac.max() < 0.03:
            continue
        rows = frac > 0.6 * frac.max()
        pixels.append(hue[rows][tile[rows]])
    if not pixels or sum(len(p) for p in pixels) < 25:
        return None
    px = np.concatenate(pixels)
    return np.median(px[:: max(1, len(px) // 4000)], axis=0)


@dataclass
class Profile:
    """Per column of a strip: how much of the band of tops is back-coloured, where each top lies, its light."""

    cover: np.ndarray
    inner: np.ndarray  # row (fractional) of the top's inner edge; NaN: no top
    outer: np.ndarray  # row (fractional) of the top's outer edge
    light: np.ndarray  # lightness of the middle of the top
    band: tuple[int, int] | None  # rows of the tops
    region: np.ndarray  # the columns read: none where another wall reaches into the strip


def _edge_rows(d: np.ndarray, thr: float, first: np.ndarray, step: int) -> np.ndarray:
    """Fractional row where the distance `d` crosses `thr` next to row `first` (towards -step)."""
    cols = np.arange(d.shape[1])
    rows = d.shape[0]
    f = np.clip(first, 0, rows - 1)
    before = np.clip(f - step, 0, rows - 1)
    a, b = d[before, cols], d[f, cols]
    frac = np.clip(np.where(a != b, (a - thr) / (a - b + 1e-9), 0.5), 0, 1)
    return f - step + step * frac


def back_map(strip: Strip, back: np.ndarray, felt: np.ndarray) -> tuple[np.ndarray, float]:
    """Per pixel, how far its hue is from the tiles' back, and the distance below which it is a back."""
    # halfway to whatever else is there: the felt, and the ivory sides of the tiles (no hue)
    ivory = np.array([1.0, 1.0, 1.0, back[3]], np.float32)
    thr = max(0.08, 0.45 * min(float(_hue_dist(back, felt)), float(_hue_dist(back, ivory))))
    return _hue_dist(strip.hue, back), thr


def profile(strip: Strip, d: np.ndarray, thr: float, region: np.ndarray, rows_allowed: tuple[int, int] = (0, 10 ** 6),
            depth: float = 2.9) -> Profile:
    """The band of tops, found in the columns of `region` and the rows `rows_allowed`, and per column
    how much of it is covered.

    The last stack of each neighbouring wall reaches into the corners of this strip, on the
    inner side of this wall's band: `region` leaves the corners out while the band is looked
    for, and a column counts as covered by how much of the band's outer part is back-coloured.
    """
    lab = strip.lab
    rows, cols = lab.shape[:2]
    none = np.full(cols, np.nan)
    empty = Profile(np.zeros(cols), none, none, np.zeros(cols), None, region)
    is_back = d < thr
    if not region.any():
        return empty
    frac = is_back[:, region].mean(axis=1)
    frac[:rows_allowed[0]] = 0  # no wall's tops can lie there (a die of the tiles' colour can)
    frac[rows_allowed[1]:] = 0
    if frac.max() < 0.02:
        return empty
    r = int(np.argmax(frac))
    r0 = r1 = r
    while r0 > 0 and frac[r0 - 1] > 0.4 * frac[r]:
        r0 -= 1
    while r1 < rows - 1 and frac[r1 + 1] > 0.4 * frac[r]:
        r1 += 1
    height = r1 + 1 - r0
    if height < 0.6 * depth * PX_PER_CM:  # much thinner than a tile is deep: not the tops of a wall
        return empty
    c0, c1 = r0 + int(0.35 * height), min(rows, r1 + 5)
    cover = np.clip(is_back[c0:c1].sum(axis=0) / (r1 + 1 - c0), 0, 1)
    # where each top lies: its first and last back-coloured rows (a lower top looks nearer the
    # camera's foot point, a higher one farther from it)
    w0 = max(1, r0 - 4)
    win = is_back[w0:c1]
    has = win.any(axis=0)
    first = np.argmax(win, axis=0) + w0
    last = c1 - 1 - np.argmax(win[::-1], axis=0)
    inner = np.where(has, _edge_rows(d, thr, first, 1), np.nan)
    outer = np.where(has, _edge_rows(d, thr, np.minimum(last, rows - 2), -1), np.nan)
    # the light of each column's top, away from its edges (a neighbour's ivory side must not count)
    span = np.nan_to_num(outer - inner, nan=0.0)
    top0 = np.clip(np.nan_to_num(inner, nan=r0) + 0.25 * span, 0, rows - 1).astype(int)
    top1 = np.clip(np.nan_to_num(outer, nan=r1) - 0.25 * span, 0, rows - 1).astype(int)
    top1 = np.maximum(top1, top0 + 1)
    acc = np.vstack([np.zeros((1, cols)), np.cumsum(lab[..., 0], axis=0)])
    c = np.arange(cols)
    light = (acc[top1, c] - acc[top0, c]) / (top1 - top0)
    return Profile(cover, inner, outer, light, (r0, r1), region)


def find_seams(strip: Strip, prof: Profile, tile_width: float) -> np.ndarray:
    """Positions (cm along) of the dark seams between neighbouring stack tops, to a fraction of a pixel."""
    if prof.band is None:
        return np.zeros(0)
    r0, r1 = prof.band
    h = r1 - r0
    light = strip.lab[r0 + h // 4: r1 - h // 4 + 1, :, 0].mean(axis=0)
    solid = np.convolve(prof.cover > 0.5, np.ones(5), mode="same") >= 5
    if solid.sum() < 10:
        return np.zeros(0)
    k = int(tile_width * PX_PER_CM * 0.5) | 1
    x = light - np.convolve(light, np.ones(k) / k, mode="same")
    noise = float(np.median(np.abs(np.diff(x[solid])))) + 1e-6
    m = (x[1:-1] < x[:-2]) & (x[1:-1] <= x[2:]) & solid[1:-1] & (x[1:-1] < -2.5 * noise)
    out = []
    for i in np.flatnonzero(m) + 1:
        a, b, c = x[i - 1], x[i], x[i + 1]
        d = a - 2 * b + c
        out.append(strip.a(i + (0.5 * (a - c) / d if d > 0 else 0.0)))
    return np.array(out)


def seam_pitch(seams: np.ndarray, tile_width: float) -> list[float]:
    """Spacings of neighbouring seams that are one stack apart (a missed seam gives two, and is left out)."""
    sp = np.diff(seams)
    return [float(v) for v in sp if 0.97 * tile_width < v < MAX_SCALE * tile_width]


def find_runs(strip: Strip, prof: Profile) -> list[tuple[float, float]]:
    """Stretches of standing tops along the wall (cm, to a fraction of a pixel).

    Seams between stacks are thin dark lines: dips one or two pixels wide are bridged.
    """
    c = np.convolve(prof.cover, np.ones(3) / 3, mode="same")
    idx = np.flatnonzero(c > 0.5)
    if idx.size == 0:
        return []
    runs = []
    start = prev = int(idx[0])
    for i in idx[1:]:
        i = int(i)
        if i - prev > 2:
            runs.append((start, prev + 1))
            start = i
        prev = i
    runs.append((start, prev + 1))

    def edge(i0: int) -> float:
        """Where the cover crosses 0.5 between columns i0 and i0 + 1."""
        a, b = c[i0], c[i0 + 1]
        return i0 + (0.5 - a) / (b - a) if b != a else i0 + 0.5

    out = []
    for s, e in runs:
        if e - s < 0.5 * PX_PER_CM:  # narrower than a quarter of a tile: a speck, not a stack
            continue
        fs = edge(s - 1) if s > 0 else float(s)
        fe = edge(e - 1) if e < len(c) else float(e - 1)
        out.append((strip.a(fs), strip.a(fe)))
    return out


def _edge_line(strip: Strip, prof: Profile) -> tuple[float, float] | None:
    """The inner edge of the tops as a straight line t = p0 + p1 * a (cm), or None without tops."""
    ok = ~np.isnan(prof.inner) & (prof.cover > 0.6) & prof.region
    if ok.sum() < 0.8 * PX_PER_CM:
        return None
    cols = np.flatnonzero(ok)
    t = strip.t0 + prof.inner[ok] / PX_PER_CM
    a = strip.a0 + cols / PX_PER_CM
    med = float(np.median(t))
    if a.max() - a.min() < 6.0:  # too short to tell a slope
        return med, 0.0
    keep = np.abs(t - med) < 0.4  # half stacks and loose tiles lie off the line
    p1, p0 = np.polyfit(a[keep], t[keep], 1) if keep.sum() > 10 else (0.0, med)
    return float(p0), float(p1)


@dataclass
class _Tops:
    """The standing stacks of one wall: where each top's edges lie (rows) and its light."""

    inner: dict[int, float]  # stack -> its top's inner edge (row), NaN where not seen
    outer: dict[int, float]  # stack -> its top's outer edge (row)
    light: dict[int, float]  # stack -> lightness of its top
    at: dict[int, float]  # stack -> position along the wall (cm)

    @classmethod
    def read(cls, strip: Strip, prof: Profile, present: list[tuple[int, float, float]]) -> _Tops:
        """Each stack's edges and light: means over the middle three fifths of its columns."""
        inner, outer, light, at = {}, {}, {}, {}
        if prof.band is None or not present:
            return cls(inner, outer, light, at)
        cols = len(prof.cover)
        ok = np.isfinite(prof.inner) & np.isfinite(prof.outer)
        sums = [np.concatenate([[0.0], np.cumsum(v)])
                for v in (np.where(ok, prof.inner, 0.0), np.where(ok, prof.outer, 0.0), ok, prof.light)]
        for k, a0, a1 in present:
            c0 = int(max(0, strip.col(a0 + 0.2 * (a1 - a0))))
            c1 = max(c0 + 1, int(min(cols, strip.col(a1 - 0.2 * (a1 - a0)) + 1)))
            seen = sums[2][c1] - sums[2][c0]
            inner[k] = float((sums[0][c1] - sums[0][c0]) / seen) if seen else float("nan")
            outer[k] = float((sums[1][c1] - sums[1][c0]) / seen) if seen else float("nan")
            light[k] = float((sums[3][c1] - sums[3][c0]) / (c1 - c0))
            at[k] = (a0 + a1) / 2
        return cls(inner, outer, light, at)

    def rise(self, k: int, shift: float, lead: bool = False, skip: frozenset[int] = frozenset()) -> float:
        """How much higher than the stacks around it stack k's top looks, in half a full stack's height.

        Parallax moves a top away from the camera's foot point in proportion to its height: a
        full stack's top by `shift` cm (outwards), a half stack's by half of that, a loose tile
        lying on a stack by one and a half times. The move is measured against a straight line
        through the stacks within three of it (0: level, -1: half a stack, +1: a tile on top); NaN
        where there is nothing to compare with. A tile lying on a stack leaves the stack's own
        top showing behind it: `lead` measures only the top's edge that parallax moves out.
        Stacks in `skip` (with a tile lying on them) are not compared with.
        """
        if lead:
            edges = {j: self.outer[j] if shift > 0 else self.inner[j] for j in self.inner}
        else:
            edges = {j: (self.inner[j] + self.outer[j]) / 2 for j in self.inner}
        mine = edges.get(k, float("nan"))
        usable = [j for j in edges if j != k and j not in skip and np.isfinite(edges[j])]
        others = [j for j in usable if abs(j - k) <= 3]
        if len(others) < 2:  # loose tiles or the gap next to it: reach a little further
            others = [j for j in usable if abs(j - k) <= 5]
        if not others or not np.isfinite(mine) or abs(shift) < 0.02:
            return float("nan")
        ref = _robust_line(np.array([self.at[j] for j in others]), np.array([edges[j] for j in others]),
                           self.at[k], tol=max(1.0, 0.3 * abs(shift) * PX_PER_CM))
        return (mine - ref) / PX_PER_CM / (shift / 2)


def _loose_p(strips: dict[str, Strip], chosen: dict[str, _Hypothesis], stacks: set[tuple[str, int]],
             bands: dict[str, tuple[int, int]], pitches: dict[str, float], shifts: dict[str, float],
             keep: dict[tuple[str, int], np.ndarray] | None) -> dict[tuple[str, int], float]:
    """P(a tile lies on it) for each of `stacks` (side, k), by the loose-tile model; {} without the
    model. `keep`, when given, gets the model's inputs."""
    model = loose.reader()
    if model is None and keep is None:
        return {}
    keys, batch = [], []
    for side in SIDES:
        wanted = sorted(k for s, k in stacks if s == side)
        if not wanted:
            continue
        strip = strips[side]
        spans = {k: (strip.col(a0), strip.col(a1)) for k, a0, a1 in chosen[side].present}
        for k, x in loose.inputs(strip.lab, spans, wanted, bands[side], pitches[side] * PX_PER_CM,
                                 shifts[side]).items():
            keys.append((side, k))
            batch.append(x)
    if keep is not None:
        keep.update(zip(keys, batch))
    if model is None or not batch:
        return {}
    return dict(zip(keys, map(float, model(np.stack(batch)))))


def _face_cm(strip: Strip, prof: Profile, felt: np.ndarray, back: np.ndarray, a0: float, a1: float,
             outward: bool) -> float:
    """How wide the ivory side of a stack looks beside its top (cm): the face towards the camera's foot.

    That face is as tall as the stack, so it shows half as wide beside half a stack: what tells a
    stack standing alone (with no neighbour to compare its top with) whole or half.
    """
    if prof.band is None:
        return float("nan")
    c0, c1 = int(max(0, strip.col(a0 + 0.25 * (a1 - a0)))), int(min(len(prof.cover), strip.col(a1 - 0.25 * (a1 - a0))))
    if c1 <= c0:
        return float("nan")
    ivory = np.array([1.0, 1.0, 1.0, back[3]], np.float32)
    thr = 0.5 * float(_hue_dist(felt, ivory))
    widths = []
    for c in range(c0, c1):
        edge = prof.outer[c] if outward else prof.inner[c]
        if not np.isfinite(edge):
            continue
        r, step, n = int(round(edge)), (1 if outward else -1), 0
        r += step
        while 0 <= r < strip.hue.shape[0] and n < 2 * PX_PER_CM:
            if _hue_dist(strip.hue[r, c], felt) < thr:
                break
            r += step
            n += 1
        widths.append(n)
    return float(np.median(widths)) / PX_PER_CM if widths else float("nan")


def _full_width(half: np.ndarray, strip: Strip, spread_cm: float = 0.0) -> np.ndarray:
    """A per-column measure read at half the strip's resolution, as wide as the strip again, each
    value first spread `spread_cm` either way along the wall (its largest nearby)."""
    if spread_cm:
        reach = int(spread_cm * PX_PER_CM / 2)
        half = cv2.dilate(half[None].astype(np.float32), np.ones((1, 2 * reach + 1), np.uint8))[0]
    full = np.repeat(half, 2)
    return np.pad(full, (0, strip.hue.shape[1] - len(full)), mode="edge")


def _foreign(strip: Strip, felt: np.ndarray, back: np.ndarray, rows: tuple[int, int], layout: TableLayout,
             dice: Sequence[tuple[float, float, float]] = ()) -> np.ndarray:
    """Per column, the share of the rows where tops can lie (smoothed over a centimetre) covered by
    blobs that are neither felt nor tile (`_foreign_mask`) and reach the band's inner or outer
    edge: a hand, a sleeve, a cup. What lies over a wall came from beyond it; a blob inside the
    band is where colours blend, the felt shaded in a split or a gap against the stacks' ends.
    `dice` (table cm: centre x, y and radius) are left out: a die leaning on a wall hides nothing
    (easy 100027, a yellow die cocked against the wall at the split, left the break unread)."""
    mask = _foreign_mask(strip, felt, back, rows)
    for x, y, r in dice:
        col, row = strip.pixel(layout, x, y)  # the mask: half the strip's resolution, from row rows[0]
        cv2.circle(mask, (round(col / 2), round((row - rows[0]) / 2)), int(np.ceil(r * PX_PER_CM / 2)) + 1, 0, -1)
    other = _reaching_across(mask)
    k = int(PX_PER_CM) // 2
    return _full_width(np.convolve(other.mean(axis=0), np.ones(k) / k, mode="same"), strip)


def _reaching_across(mask: np.ndarray) -> np.ndarray:
    """The blobs of `mask` (8-connected) that touch its first or last row."""
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    edge = np.zeros(n, bool)
    edge[labels[0]] = edge[labels[-1]] = True
    edge[0] = False
    return edge[labels].astype(mask.dtype)


def _foreign_mask(strip: Strip, felt: np.ndarray, back: np.ndarray, rows: tuple[int, int]) -> np.ndarray:
    """The pixels of the strip's `rows` that are neither felt nor tile, at half the strip's
    resolution (a hand is large, and a frame has little time; averaging also halves the noise of
    a dark felt's hue).

    By hue, so a shadow changes nothing; the ivory of the tiles' sides by its chromaticity alone
    (sides in shade and in light alike); thin lines where two colours meet are opened away."""
    ivory = np.array([1.0, 1.0, 1.0, back[3]], np.float32)
    band = strip.hue[rows[0]:rows[1]]
    hue = cv2.resize(band, (band.shape[1] // 2, band.shape[0] // 2), interpolation=cv2.INTER_AREA)
    thr_felt = max(0.08, 0.45 * min(float(_hue_dist(felt, back)), float(_hue_dist(felt, ivory))))
    thr_back = max(0.08, 0.45 * min(float(_hue_dist(back, felt)), float(_hue_dist(back[:3], ivory[:3]))))

    def far(ref: np.ndarray, thr: float, channels: int = 4) -> np.ndarray:
        d = hue[..., :channels] - ref[:channels]
        return np.einsum("...c,...c->...", d, d) > thr * thr

    # the felt in a shadow is felt: darker, with its chromaticity, whose noise grows as the light
    # falls (hard 140070: on a grey felt the log brightness alone made a hand's shadow a hand)
    darker = np.exp(5.0 * (felt[3] - hue[..., 3]))  # the felt's brightness over the pixel's
    d = hue[..., :3] - felt[:3]
    felt_shaded = ((darker > 1.0) & (darker < SHADOW_DEPTH)
                   & (np.einsum("...c,...c->...", d, d) < (thr_felt * darker) ** 2))
    other = far(felt, thr_felt) & ~felt_shaded & far(back, thr_back) & far(ivory, FOREIGN_CHROMA, 3)
    return cv2.morphologyEx(other.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _along(light: np.ndarray, alike: np.ndarray, cm: int) -> np.ndarray:
    """Per pixel, how light the pixels `alike` picks out are in its row along the wall: their
    median in each centimetre (`cm` columns) of the row, the median of that over the 31 cm
    around; -1 where they show in under `ALONG_SEEN` of those 31 cm. Row by row, so that a band
    of shade that runs along the whole wall (a lamp off to one side: the wall's own shadow on
    the felt) is the norm there."""
    rows, cols = light.shape[0], light.shape[1] // cm * cm
    blocks = np.sort(np.where(alike, light, np.nan)[:, :cols].reshape(rows, -1, cm), axis=2)  # NaN sorts last
    count = alike[:, :cols].reshape(rows, -1, cm).sum(axis=2)
    seen = count > 0
    # a centimetre without any takes the nearest one's before it in the row, else the one after
    span = np.arange(count.shape[1])
    before = np.maximum.accumulate(np.where(seen, span, -1), axis=1)
    after = np.minimum.accumulate(np.where(seen, span, count.shape[1])[:, ::-1], axis=1)[:, ::-1]
    j = np.where(before >= 0, before, np.minimum(after, count.shape[1] - 1))
    r = np.arange(rows)[:, None]
    level = blocks[r, j, np.maximum(count[r, j] - 1, 0) // 2]

    def around(a: np.ndarray) -> np.ndarray:  # each centimetre's 31 cm round it in the row
        return np.lib.stride_tricks.sliding_window_view(np.pad(a, ((0, 0), (15, 15)), mode="edge"), 31, axis=1)

    ref = np.median(around(level), axis=2)
    # where the colour shows in under ALONG_SEEN of the 31 cm (the felt in a row across the wall,
    # seen only in a gap), its level is borrowed from farther on, under other light, while in
    # the gap the stacks beside it shade it: no norm there
    ref[around(seen.astype(float)).mean(axis=2) < ALONG_SEEN] = -1.0
    return np.pad(np.repeat(ref, cm, axis=1), ((0, 0), (0, light.shape[1] - cols)), mode="edge")


def _shade(strip: Strip, felt: np.ndarray, back: np.ndarray, outside: int,
           casters: Callable[[], np.ndarray]) -> np.ndarray:
    """Per column, the share of the strip's rows that lie in a shadow: felt or tops (by their
    chromaticity) `SHADE_FELT` or `SHADE_TOPS` as light as the same colour along the wall in
    its row (`_along`), or darker; spread `SHADE_REACH_CM` either way. A hand the felt's own
    colour is seen by the shadow it casts on the wall and beside it.

    Rows from `outside` on lie beyond the wall, where a hand at the table's edge casts its shadow
    too without lying on the wall: there a shadow counts only in the columns where no such hand
    is seen (`casters()`, looked for only when there is a shadow there). Taking each colour's
    lightness along the wall, over 30 cm, leaves out uneven light and vignetting; nothing else
    on the table casts a shadow that size. Read at half the strip's resolution, smoothed over
    3 × 3 there, as the sensor's noise scatters a dark hue."""
    half = (strip.hue.shape[1] // 2, strip.hue.shape[0] // 2)
    hue = cv2.blur(cv2.resize(strip.hue, half, interpolation=cv2.INTER_AREA), (3, 3))
    light = cv2.blur(cv2.resize(strip.lab[..., 0], half, interpolation=cv2.INTER_AREA), (3, 3))
    cm = int(PX_PER_CM) // 2  # half-resolution columns per cm
    chroma = min(SHADE_CHROMA, 0.45 * float(np.linalg.norm(felt[:3] - back[:3])))
    dark = np.zeros(light.shape, bool)
    for colour, ratio in ((felt, SHADE_FELT), (back, SHADE_TOPS)):
        d = hue[..., :3] - colour[:3]
        alike = np.einsum("...c,...c->...", d, d) < chroma ** 2
        dark |= alike & (light < ratio * _along(light, alike, cm))
    beyond = dark[outside // 2:]
    if beyond.any():
        beyond[:, casters()[::2][:dark.shape[1]]] = False
    return _full_width(np.convolve(dark.mean(axis=0), np.ones(cm) / cm, mode="same"), strip, SHADE_REACH_CM)


def _casters(image: np.ndarray, cal: Calibration, layout: TableLayout, strip: Strip, felt: np.ndarray,
             back: np.ndarray) -> np.ndarray:
    """Per column of `strip`, whether an arm reaches in from beyond the wall, or lies within
    `CASTER_REACH_CM` along the wall: something neither felt nor tile in the `CASTER_CM` past the
    strip's outer edge that reaches that far out (a marker or the wind disc lying there does
    not). A hand at the table's edge, whose shadow on the felt outside the wall is no sign of a
    hand on it; one the felt's colour is not seen here, and its shadow counts."""
    t1 = strip.t0 + strip.hue.shape[0] / PX_PER_CM
    apron = sample(image, cal, layout, strip.side, (t1, t1 + CASTER_CM))
    blobs = _foreign_mask(apron, felt, back, (0, apron.hue.shape[0]))
    _, labels = cv2.connectedComponents(blobs, connectivity=8)
    arms = np.unique(labels[-2:][labels[-2:] > 0])  # reaching in from beyond: an arm, not a marker
    return _full_width(np.isin(labels, arms).any(axis=0), strip, CASTER_REACH_CM) > 0


def _hidden(strip: Strip, foreign: np.ndarray, shade: np.ndarray, runs: list[tuple[float, float]], h: _Hypothesis,
            pitch: float, n: int) -> list[int]:
    """The stacks that something lying over the wall may hide: every run of stacks not seen
    standing with a hand (`_foreign`) over it or beside it, or a shadow (`_shade`) beside a run
    no longer than a hand is wide, and the stacks either side of any break in the tops with
    either beside it (a hand's edge cuts them like a split, or by a sliver that shifts how the
    stacks are numbered). A longer run with only a shadow beside it is stacks taken away, and
    the shadow a hand's at the table's edge reaching where they stood."""
    cols = len(foreign)
    origin = h.origin if h.present else -n * pitch / 2  # a wall with no stack seen: where the layout puts it

    def covered(a0: float, a1: float, shaded: bool = True) -> bool:
        c0 = int(np.clip(np.floor(strip.col(a0)), 0, cols - 1))
        c1 = int(np.clip(np.ceil(strip.col(a1)), c0 + 1, cols))
        return float(foreign[c0:c1].max()) > FOREIGN_SHARE or shaded and float(shade[c0:c1].max()) > FOREIGN_SHARE

    have = {k: (a0, a1) for k, a0, a1 in h.present}
    out: set[int] = set()
    run: list[int] = []
    for k in range(1, n + 2):
        if k <= n and k not in have:
            run.append(k)
            continue
        if run and covered(origin + (run[0] - 1.5) * pitch, origin + (run[-1] + 0.5) * pitch,
                           len(run) * pitch <= SHADE_HAND_CM):
            out.update(run)
        run = []
    for (_, end), (start, _) in zip(runs, runs[1:]):
        if covered(end - 0.5 * pitch, start + 0.5 * pitch):
            out.update(k for k, (a0, a1) in have.items() if a1 > end - pitch and a0 < start + pitch)
    return sorted(out)


def _robust_line(x: np.ndarray, y: np.ndarray, at: float, tol: float) -> float:
    """y at `at` on a straight line through the points, leaving out the worst ones beyond `tol`.

    (A loose tile or a half stack among the reference stacks would tilt the line.)
    """
    keep = np.ones(len(x), bool)
    while True:
        xs, ys = x[keep], y[keep]
        if np.ptp(xs) > 1.0 and len(xs) >= 3:
            p = np.polyfit(xs, ys, 1)
        else:
            p = np.array([0.0, float(np.median(ys))])
        res = np.abs(y - np.polyval(p, x))
        res[~keep] = -1
        worst = int(np.argmax(res))
        if res[worst] <= tol or keep.sum() <= 3:
            return float(np.polyval(p, at))
        keep[worst] = False


@dataclass
class _Hypothesis:
    origin: float
    cost: float
    present: list[tuple[int, float, float]]  # stack number, along from, along to (cm)
    splits: dict[int, float]  # k: a split between stack k and k + 1, and how wide it looks (cm)


def _gap_readings(gap: float, pitch: float) -> list[tuple[int, float]]:
    """What a gap between two runs of tops may be: (stacks missing, cost) for each likely reading.

    A lifted stack leaves a gap a little under a pitch (the dead wall is pushed towards it, a
    loose tile may overhang it); a split or a push leaves well under half a pitch; where the
    deal began at a split, the gap is that much wider. Widths in between are read both ways
    and the ends of the wall decide.
    """
    r = gap / pitch
    out = []
    for k in sorted({0, int(np.floor(r)), int(np.ceil(r))}):
        # missing stacks: a push narrows the gap, a split opened there (R20) widens it
        lo, hi = (0.0, 0.45) if k == 0 else (k - 0.4, k + 0.45)
        miss = max(0.0, lo - r, r - hi)
        if miss < 0.3:
            out.append((k, (miss / 0.1) ** 2))
    return out or [(max(0, int(round(r))), 0.0)]


def _run_stacks(start: float, end: float, seams: np.ndarray, pitch: float) -> int:
    """How many stacks stand in a run of tops from `start` to `end` (cm along).

    Counted piece by piece between the seams seen inside it, so that a push or a loose tile
    overhanging the run's end adds a sliver to one piece instead of a stack to the whole run.
    """
    inside = seams[(seams > start + 0.4 * pitch) & (seams < end - 0.4 * pitch)]
    edges = np.concatenate([[start], inside, [end]])
    pieces = np.diff(edges) / pitch
    count = int(sum(round(p) for p in pieces if p >= 0.5))
    return max(1, count if len(inside) else int(round((end - start) / pitch)))


def _hypotheses(runs, n: int, pitch: float, ends: tuple[float | None, float | None],
                seams: np.ndarray | None = None) -> list[_Hypothesis]:
    """Where each stack of the wall is, with a cost (squared error in standard deviations) for each reading."""
    seams = np.zeros(0) if seams is None else seams
    counts = [_run_stacks(s, e, seams, pitch) for s, e in runs]
    gaps = [s - e for (_, e), (s, _) in zip(runs, runs[1:])]
    e1, en = ends
    first, last = runs[0][0], runs[-1][1]
    out = []
    for reading in itertools.islice(itertools.product(*(_gap_readings(g, pitch) for g in gaps)), 64):
        missing = [k for k, _ in reading]
        gap_cost = sum(c for _, c in reading)
        runs_n = list(counts)
        spanned = sum(runs_n) + sum(missing)
        while spanned > n and max(runs_n) > 1:  # more than fit: some reading is wrong, and costs
            runs_n[int(np.argmax(runs_n))] -= 1
            spanned -= 1
            gap_cost += 25.0
        for j in range(0, max(0, n - spanned) + 1):
            after = n - spanned - j  # stacks missing beyond the last run
            cost = gap_cost
            for pred, at, k in ((e1, first - j * pitch, j), (en, last + after * pitch, after)):
                if pred is not None:
                    sigma = np.hypot(0.55, 0.015 * k * pitch)
                    cost += ((at - pred) / sigma) ** 2
            present, splits = [], {}
            k = j + 1
            for i, ((s, e), c) in enumerate(zip(runs, runs_n)):
                step = (e - s) / c
                for q in range(c):
                    present.append((k, s + q * step, s + (q + 1) * step))
                    k += 1
                if i < len(missing):
                    if missing[i] == 0 and gaps[i] >= SPLIT_MIN_CM:
                        splits[k - 1] = gaps[i]
                    k += missing[i]
            out.append(_Hypothesis(first - j * pitch, float(cost), [p for p in present if 1 <= p[0] <= n],
                                   {k: w for k, w in splits.items() if 1 <= k < n}))
    return out


def _arcs(ring: list[bool]) -> int:
    """How many separate runs of missing stacks there are round the square."""
    size = len(ring)
    return sum(1 for i in range(size) if not ring[i] and ring[(i - 1) % size])


def read_walls(image: np.ndarray, cal: Calibration, layout: TableLayout, loose_on: tuple[int, int] | None = (0, 8),
               loose_inputs: dict[tuple[str, int], np.ndarray] | None = None,
               dice: Sequence[tuple[float, float, float]] = ()) -> dict[str, WallReading]:
    """Read all four walls; stack numbers follow the position contract on each side.

    `loose_on`: where the loose-tile model looks, (which way from a gap: -1 towards lower stack
    numbers, +1 higher, 0 both; how many stacks), the dead wall's side and size (R20); None:
    the variant lays no loose tiles. `loose_inputs`, when given, is filled with what the model
    read for each stack (`loose.inputs`, keyed by side and stack): its training data. `dice`: the
    dice found (table cm: centre x, y and radius as seen), which hide no stacks (`_foreign`).
    """
    n = layout.stacks
    w = layout.tile.width
    strips = {side: sample(image, cal, layout, side) for side in SIDES}
    felts = {side: felt_colour(strips[side]) for side in SIDES}
    back = back_colour([strips[s] for s in SIDES], [felts[s] for s in SIDES])
    if back is None:
        return {side: WallReading(side, [0] * n, anchor="empty") for side in SIDES}
    # where the camera hangs: how far parallax moves a full stack's top outwards on each side (cm),
    # and so where each wall's tops can lie across the strip
    cam = camera_position(cal)
    cx, cy, height = cam if cam is not None else (*layout.centre, TYPICAL_HEIGHT_CM)
    top = 2 * layout.tile.height
    shifts, bands = {}, {}
    for side in SIDES:
        outward = -np.array(WALL_FRAMES[side].inward)
        foot = float(np.dot(np.array([cx, cy]) - np.array(layout.centre), outward))
        shifts[side] = (layout.inner + layout.tile.depth / 2 - foot) * top / max(height - top, 10.0)
        scale = height / max(height - top, 10.0)
        inner = foot + (layout.inner - foot) * scale  # the tops' inner edge as seen, the wall where built
        rows = ((inner - BAND_SLACK_CM - strips[side].t0) * PX_PER_CM,
                (inner + layout.tile.depth * scale + BAND_SLACK_CM - strips[side].t0) * PX_PER_CM)
        bands[side] = (max(0, int(rows[0])), int(np.ceil(rows[1])))

    maps = {side: back_map(strips[side], back, felt_hue(strips[side])) for side in SIDES}
    along = {side: strips[side].a0 + np.arange(strips[side].lab.shape[1]) / PX_PER_CM for side in SIDES}
    # first the middle of each wall, where no neighbour reaches; then each wall up to the inner
    # edges of the walls it meets, once those are known
    regions = {side: np.abs(along[side]) < (layout.half_length - 1.0) * 1.04 for side in SIDES}
    profs = {side: profile(strips[side], *maps[side], regions[side], bands[side], layout.tile.depth)
             for side in SIDES}
    lines = {side: _edge_line(strips[side], profs[side]) for side in SIDES}
    for _ in range(2):
        changed = False
        for side in SIDES:
            region = np.ones_like(regions[side])
            f = WALL_FRAMES[side]
            mid = -np.array(f.inward) * (layout.inner + layout.tile.depth / 2)
            for nb, sign in zip(BEYOND[side], (-1, 1)):
                if lines[nb] is not None:
                    a_nb = float(np.dot(mid + sign * np.array(f.u) * layout.half_length, WALL_FRAMES[nb].u))
                    edge = lines[nb][0] + lines[nb][1] * a_nb
                    region &= (sign * along[side]) < edge - 0.1
            if not np.array_equal(region, regions[side]):
                regions[side], changed = region, True
                profs[side] = profile(strips[side], *maps[side], region, bands[side], layout.tile.depth)
        if not changed:
            break
        lines = {side: _edge_line(strips[side], profs[side]) for side in SIDES}
    runs = {side: find_runs(strips[side], profs[side]) for side in SIDES}

    # the walls' ends, predicted from the inner edges of the walls they meet at the corners
    def inner_at(side: str, point: np.ndarray) -> float | None:
        line = lines[side]
        if line is None:
            return None
        a = float(np.dot(point, WALL_FRAMES[side].u))
        return line[0] + line[1] * a

    def predicted_ends(side: str, scale: float) -> tuple[float | None, float | None]:
        f = WALL_FRAMES[side]
        u, inward = np.array(f.u), np.array(f.inward)
        mid = -inward * (layout.inner + layout.tile.depth / 2) * scale
        at_1, at_n = BEYOND[side]
        t1 = inner_at(at_1, mid - u * layout.half_length * scale)
        tn = inner_at(at_n, mid + u * layout.half_length * scale)
        gap = CORNER_GAP_CM * scale
        return (None if t1 is None else -t1 + gap), (None if tn is None else tn - gap)

    # the pitch: spacings of the seams between stack tops; each wall its own where it shows enough
    seams = {side: find_seams(strips[side], profs[side], w) for side in SIDES}
    spacings = {side: seam_pitch(seams[side], w) for side in SIDES}
    every = [v for side in SIDES for v in spacings[side]]
    pitch_all = float(np.median(every)) if len(every) >= 3 else w * 1.04
    measured = {side: float(np.median(v)) for side, v in spacings.items() if len(v) >= 4}
    scale = pitch_all / w
    ends = {side: predicted_ends(side, scale) for side in SIDES}

    options: dict[str, list[_Hypothesis]] = {}
    pitches: dict[str, float] = {}
    anchors: dict[str, str] = {}
    for side in SIDES:
        pitch = measured.get(side, pitch_all)
        pitches[side] = pitch
        if not runs[side]:
            options[side] = [_Hypothesis(0.0, 0.0, [], {})]
            anchors[side] = "empty"
            continue
        e1, en = ends[side]
        anchors[side] = "corners"
        if e1 is None and en is None:  # no neighbour to go by: the square centred on the table
            e1, en = -n * pitch / 2, n * pitch / 2
            anchors[side] = "table"
        hyps = sorted(_hypotheses(runs[side], n, pitch, (e1, en), seams[side]), key=lambda h: h.cost)
        options[side] = [h for h in hyps[:3] if h.cost <= hyps[0].cost + 16]

    # the stacks taken away form one run round the square: prefer readings that keep it so
    best, best_cost = None, float("inf")
    for combo in itertools.product(*(options[s] for s in RING_SIDES)):
        ring = []
        for h in combo:
            have = {k for k, _, _ in h.present}
            ring += [k in have for k in range(1, n + 1)]
        cost = sum(h.cost for h in combo) + 25.0 * max(0, _arcs(ring) - 1)
        if cost < best_cost:
            best, best_cost = combo, cost
    chosen = dict(zip(RING_SIDES, best))

    # the tops of the standing stacks, and a light field through all of them to compare their light with
    tops_of = {side: _Tops.read(strips[side], profs[side], chosen[side].present) for side in SIDES}
    centre = np.array(layout.centre)

    def table_xy(side: str, along: float) -> np.ndarray:
        f = WALL_FRAMES[side]
        return centre + np.array(f.u) * along - np.array(f.inward) * (layout.inner + layout.tile.depth / 2)

    tops = [(side, k, *table_xy(side, t.at[k]), v) for side, t in tops_of.items() for k, v in t.light.items()]

    def shine_of(side: str, k: int) -> float:
        """The top's light against the light of the tops near it (a plane, nearer tops weighing more).

        Light falls off smoothly over the table (a lamp, a vignetting lens); a plane through the
        nearest tops follows it also for a lone stack at a corner.
        """
        t = tops_of[side]
        if k not in t.light:
            return 1.0
        v, (x, y) = t.light[k], table_xy(side, t.at[k])
        others = np.array([p[2:] for p in tops if (p[0], p[1]) != (side, k)])
        if len(others) < 4:
            return 1.0
        d = np.hypot(others[:, 0] - x, others[:, 1] - y)
        wgt = np.exp(-0.5 * (d / 8.0) ** 2)
        A = np.column_stack([np.ones(len(d)), others[:, 0] - x, others[:, 1] - y]) * wgt[:, None]
        coef, *_ = np.linalg.lstsq(A, others[:, 2] * wgt, rcond=None)
        return v / max(float(coef[0]), 1.0)

    # half a stack is found only where tiles are drawn from: next to the stacks taken away (R24);
    # loose tiles lie near the break: how high the tops are is looked at only near the gaps
    ring = [(side, k) for side in RING_SIDES for k in range(1, n + 1)]
    standing = {side: {k for k, _, _ in chosen[side].present} for side in SIDES}
    size = len(ring)
    gone = [i for i, (side, k) in enumerate(ring) if k not in standing[side]]
    near = {ring[(i + d) % size] for i in gone for d in range(-8, 9)} if len(gone) < size else set()
    near = {(side, k) for side, k in near if k in standing[side]}
    leads = {(side, k): tops_of[side].rise(k, shifts[side], lead=True) for side, k in near}
    # the loose-tile model reads the stacks where the dead wall may stand: on its side of a gap
    looked: set[tuple[str, int]] = set()
    if loose_on is not None and len(gone) < size:
        way, reach = loose_on
        if way == 0:
            looked = {ring[(i + d) % size] for i in gone for d in range(-reach, reach + 1)} & near
        else:
            ends = [i for i in gone if ring[(i + way) % size][1] in standing[ring[(i + way) % size][0]]]
            looked = {ring[(i + way * d) % size] for i in ends for d in range(1, reach + 1)} & near
    carried = _loose_p(strips, chosen, looked, bands, pitches, shifts, loose_inputs)
    loaded = {side: frozenset(k for (s2, k), v in leads.items() if s2 == side and v > LOADED_RISE) for side in SIDES}
    rises = {(side, k): tops_of[side].rise(k, shifts[side], skip=loaded[side]) for side, k in near}
    shines = {(side, k): shine_of(side, k) for side, k in near}

    def level(side: str, k: int, parallax: float, sigma_cm: float) -> float:
        """A top's height from its parallax and its light together, in half a stack's height (0: a full
        stack, -1: half a stack), each cue weighed by how sure it is: parallax says little where the
        camera hangs nearly above the wall, light little under uneven light."""
        cues = [((shines[(side, k)] - 1) / (1 - HALF_SHINE_RATIO), SHINE_SIGMA)]
        if np.isfinite(parallax):
            cues.append((parallax, sigma_cm / max(abs(shifts[side]) / 2, 1e-3)))
        weights = [1 / sigma ** 2 for _, sigma in cues]
        return sum(w * z for (z, _), w in zip(cues, weights)) / sum(weights)

    # a tile lying on a stack: by the top edge that parallax moves out (its light is no help: its
    # own edges cross the stack's top)
    raised = leads
    halves = set()
    for i, (side, k) in enumerate(ring):
        if (side, k) not in near:
            continue
        prev_side, prev_k = ring[(i - 1) % size]
        next_side, next_k = ring[(i + 1) % size]
        if prev_k in standing[prev_side] and next_k in standing[next_side]:
            continue
        cue = rises[(side, k)]
        if not np.isfinite(cue):  # alone on its wall: how wide its side looks, against a full stack's
            span = next(((a0, a1) for j, a0, a1 in chosen[side].present if j == k), None)
            face = _face_cm(strips[side], profs[side], felt_hue(strips[side]), back, *span, shifts[side] < 0)
            cue = 2 * (face / abs(shifts[side]) - 1) if np.isfinite(face) and abs(shifts[side]) > 0.2 else cue
        if level(side, k, cue, EDGE_SIGMA_CM) < -0.5:
            halves.add((side, k))

    hidden: dict[str, list[int]] = {}
    for side in SIDES:
        strip, h = strips[side], chosen[side]
        if len(h.present) == n and len(runs[side]) < 2:  # every stack standing in one run: nothing hidden
            hidden[side] = []
            continue
        felt = felt_hue(strip)
        foreign = _foreign(strip, felt, back, bands[side], layout, dice)
        shade = _shade(strip, felt, back, bands[side][1], partial(_casters, image, cal, layout, strip, felt, back))
        hidden[side] = _hidden(strip, foreign, shade, runs[side], h, pitches[side], n)
    out = {}
    for side in SIDES:
        h = chosen[side]
        heights = [0] * n
        for k, _, _ in h.present:
            heights[k - 1] = 1 if (side, k) in halves else 2
        strip, prof = strips[side], profs[side]
        band = None
        if prof.band is not None:
            band = (strip.t0 + prof.band[0] / PX_PER_CM, strip.t0 + (prof.band[1] + 1) / PX_PER_CM)
        rise = [rises.get((side, k), float("nan")) for k in range(1, n + 1)]
        shine = [shines.get((side, k), float("nan")) for k in range(1, n + 1)]
        lifted = [raised.get((side, k), float("nan")) for k in range(1, n + 1)]
        carries = [carried.get((side, k), float("nan")) for k in range(1, n + 1)]
        splits = sorted(h.splits)
        out[side] = WallReading(side, heights, splits, [round(h.splits[k], 2) for k in splits], band, runs[side],
                                pitches[side], h.origin if h.present else None, anchors[side], rise, shine, lifted,
                                carries, hidden[side])
    return out
