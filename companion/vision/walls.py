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

A hand resting on a wall hides the tops under it, and its edge cuts them like a gap or a split:
the stacks there are reported hidden (`WallReading.hidden`, `wall_cover.py`), so that no break
is read from them. The strips and the colours read from them: `wall_strips.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from companion.vision import loose
from companion.vision.calibrate import TYPICAL_HEIGHT_CM, Calibration, camera_position
from companion.vision.geometry import CORNER_GAP_CM, SIDES, WALL_FRAMES, TableLayout
from companion.vision.wall_cover import hidden_stacks
from companion.vision.wall_strips import MAX_SCALE, PX_PER_CM, Strip, back_colour, felt_colour, felt_hue, hue_dist, sample

#: the sides clockwise round the square: walking a wall from stack 1 to N leads to the next one's stack 1
RING_SIDES: tuple[str, ...] = ("bottom", "left", "top", "right")
#: a stack whose leading top edge rises this much (half a stack's height) carries a tile: no reference
LOADED_RISE = 0.5
#: how far a wall may stand from where the layout puts it, across (cm): built a little off, or pushed
BAND_SLACK_CM = 1.5
#: a gap at least this wide (cm, as seen) inside a run of stacks is a split
SPLIT_MIN_CM = 0.3
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
    #: there may be none (`wall_cover.hidden_stacks`)
    hidden: list[int] = field(default_factory=list)


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
    thr = max(0.08, 0.45 * min(float(hue_dist(back, felt)), float(hue_dist(back, ivory))))
    return hue_dist(strip.hue, back), thr


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
    thr = 0.5 * float(hue_dist(felt, ivory))
    widths = []
    for c in range(c0, c1):
        edge = prof.outer[c] if outward else prof.inner[c]
        if not np.isfinite(edge):
            continue
        r, step, n = int(round(edge)), (1 if outward else -1), 0
        r += step
        while 0 <= r < strip.hue.shape[0] and n < 2 * PX_PER_CM:
            if hue_dist(strip.hue[r, c], felt) < thr:
                break
            r += step
            n += 1
        widths.append(n)
    return float(np.median(widths)) / PX_PER_CM if widths else float("nan")


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
               dice: Sequence[tuple[float, float, float]] = (),
               markers: Sequence[tuple[float, float, float]] = ()) -> dict[str, WallReading]:
    """Read all four walls; stack numbers follow the position contract on each side.

    `loose_on`: where the loose-tile model looks, (which way from a gap: -1 towards lower stack
    numbers, +1 higher, 0 both; how many stacks), the dead wall's side and size (R20); None:
    the variant lays no loose tiles. `loose_inputs`, when given, is filled with what the model
    read for each stack (`loose.inputs`, keyed by side and stack): its training data. `dice`: the
    dice found (table cm: centre x, y and radius as seen), which hide no stacks (`wall_cover._foreign`);
    `markers`: the East marker and the wind disc found (table cm: centre x, y and reach), which
    are no arms (`wall_cover._arms`).
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
        hidden[side] = hidden_stacks(image, cal, layout, strip, back, bands[side], runs[side], h.present,
                                     h.origin if h.present else None, pitches[side], n, dice, markers)
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
