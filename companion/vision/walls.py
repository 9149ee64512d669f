"""Count the stacks standing in each wall, and find the gaps, splits and loose tiles.

Each wall is sampled from the camera image into a straight strip in the table frame (along the
wall from its stack 1 to stack N, across from the inside of the square outwards). Tile pixels
differ in colour from the felt; their runs along the wall are stacks standing shoulder to
shoulder. The stack pitch is measured, not assumed: wall tops stand 3 cm above the table the
markers lie on, so they look a few percent bigger than the tiles are. Stacks are numbered from
a wall's end that is still there (the position contract); a gap is as many stacks as fit in it,
a narrower gap is a split (riichi) or the separated dead wall (R20). A loose tile lying on a
stack (R19) is nearer the lamp and shows as a brighter stack top; half a stack as a darker one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.calibrate import Calibration
from companion.vision.geometry import CORNER_GAP_CM, SIDES, WALL_FRAMES, TableLayout

ALONG_PX_PER_CM = 8.0
ACROSS_PX_PER_CM = 6.0
MARGIN_CM = 3.0
#: wall tops appear this much larger than the table plane under a camera about a metre up
PARALLAX = 1.035


@dataclass
class WallReading:
    """What one side's wall looks like: heights per stack slot (stack 1 first) and splits."""

    side: str
    heights: list[int] | None  # None: the wall could not be read
    splits: list[int] = field(default_factory=list)  # k: a split between stack k and k+1
    band: tuple[float, float] | None = None  # across-distance of the wall from the centre (cm)
    runs: list[tuple[float, float]] = field(default_factory=list)  # occupied stretches along (cm)
    anchor: str = ""  # which end the count started from: "right", "left" or "geometry"


@dataclass
class _Strip:
    lab: np.ndarray
    a0: float
    t0: float


def _sample(image: np.ndarray, cal: Calibration, layout: TableLayout, side: str) -> _Strip:
    f = WALL_FRAMES[side]
    half = layout.half_length * PARALLAX + MARGIN_CM
    t0, t1 = layout.inner - 2.5, layout.inner + layout.tile.depth * PARALLAX + 3.5
    a = np.arange(-half, half, 1 / ALONG_PX_PER_CM)
    t = np.arange(t0, t1, 1 / ACROSS_PX_PER_CM)
    A, T = np.meshgrid(a, t)
    c = np.array(layout.centre)
    pts = c + A[..., None] * np.array(f.u) - T[..., None] * np.array(f.inward)
    px = cal.to_image(pts.reshape(-1, 2)).reshape(A.shape + (2,)).astype(np.float32)
    strip = cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)
    return _Strip(lab, -half, t0)


def _runs(mask: np.ndarray, min_len: int, max_gap: int) -> list[tuple[int, int]]:
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return []
    runs, start, prev = [], idx[0], idx[0]
    for i in idx[1:]:
        if i - prev > max_gap + 1:
            runs.append((start, prev + 1))
            start = i
        prev = i
    runs.append((start, prev + 1))
    return [(s, e) for s, e in runs if e - s >= min_len]


def _profile(strip: _Strip) -> tuple[np.ndarray, np.ndarray, tuple[int, int] | None]:
    """Column occupancy (0..1) within the wall band, the band's lightness, and the band rows."""
    lab = strip.lab
    rows = lab.shape[0]
    felt_rows = np.concatenate([lab[:8], lab[-6:]]).reshape(-1, 3)
    felt = np.median(felt_rows, axis=0)
    dist = np.linalg.norm(lab - felt, axis=2)
    d8 = np.clip(dist * 2, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(otsu / 2, 14.0)
    mask = dist > thr
    row_frac = mask.mean(axis=1)
    if row_frac.max() < 0.05:
        return np.zeros(lab.shape[1]), lab[..., 0].mean(0), None
    r = int(np.argmax(row_frac))
    r0 = r1 = r
    while r0 > 0 and row_frac[r0 - 1] > 0.45 * row_frac[r]:
        r0 -= 1
    while r1 < rows - 1 and row_frac[r1 + 1] > 0.45 * row_frac[r]:
        r1 += 1
    if (r1 + 1 - r0) / ACROSS_PX_PER_CM < 1.4:  # thinner than half a tile: not a wall
        return np.zeros(lab.shape[1]), lab[..., 0].mean(0), None
    # the tiles' back colour: side faces (ivory) seen past a gap must not count as a stack top
    back = np.median(lab[r0:r1 + 1][mask[r0:r1 + 1]], axis=0)
    rows_lab = lab[r0:r1 + 1]
    near_back = (np.linalg.norm(rows_lab - back, axis=2) < max(22.0, 0.45 * float(np.linalg.norm(back - felt)))) | (
        rows_lab[..., 0] < back[0])  # seams between stacks are dark: they belong to the wall
    band = mask[r0:r1 + 1] & near_back
    occ = band.mean(axis=0)
    mid0, mid1 = r0 + (r1 - r0) // 4, r1 - (r1 - r0) // 4
    light = lab[mid0:mid1 + 1, :, 0].mean(axis=0)
    return occ, light, (r0, r1)


def read_walls(image: np.ndarray, cal: Calibration, layout: TableLayout) -> dict[str, WallReading]:
    """Read all four walls; stack numbers follow the position contract on each side."""
    n = layout.stacks
    profiles = {}
    for side in SIDES:
        strip = _sample(image, cal, layout, side)
        occ, light, band = _profile(strip)
        occ = np.convolve(occ, np.ones(3) / 3, mode="same")
        runs_px = _runs(occ > 0.5, min_len=int(0.35 * layout.tile.width * ALONG_PX_PER_CM), max_gap=1)
        runs = [(strip.a0 + s / ALONG_PX_PER_CM, strip.a0 + e / ALONG_PX_PER_CM) for s, e in runs_px]
        across = None
        if band is not None:
            across = (strip.t0 + band[0] / ACROSS_PX_PER_CM, strip.t0 + (band[1] + 1) / ACROSS_PX_PER_CM)
        profiles[side] = (runs, light, strip, across)

    # the pitch: the longest walls are (nearly) complete, so their length / N is the stack pitch
    extents = sorted((r[-1][1] - r[0][0]) / n for r, *_ in profiles.values() if r)
    nominal = layout.tile.width * PARALLAX
    # a complete wall's tops look 1.5–7.5 % longer than the tiles; a wall one stack short is shorter still
    good = [e for e in extents if 1.015 * layout.tile.width < e < 1.075 * layout.tile.width]
    pitch = float(np.median(good[-2:])) if good else nominal

    # where each wall's ends are expected: at the inner faces of the two walls it meets (the
    # corners of the square), measured in the same image, so that parallax and a square built a
    # little off-centre are taken into account; the table centre only when a neighbour is missing
    bands = {side: profiles[side][3] for side in SIDES}
    # only a wall with a good part of its stacks standing tells where its band lies
    solid = {side for side in SIDES if bands[side] and sum(e - s for s, e in profiles[side][0]) > n * pitch / 3}
    ends = {}
    for side in SIDES:
        u = np.array(WALL_FRAMES[side].u)
        at_1 = next(s for s in SIDES if np.allclose(WALL_FRAMES[s].inward, u))  # the wall beyond stack 1
        at_n = next(s for s in SIDES if np.allclose(WALL_FRAMES[s].inward, -u))  # the wall beyond stack N
        # a band starts at the foot of the wall's inner face; the wall tops (and so the ends of
        # the stacks seen) lie PARALLAX further out
        e1 = -(bands[at_1][0] - CORNER_GAP_CM) * PARALLAX if at_1 in solid else -n * pitch / 2
        en = (bands[at_n][0] - CORNER_GAP_CM) * PARALLAX if at_n in solid else n * pitch / 2
        ends[side] = (e1, en)

    out = {}
    for side in SIDES:
        runs, light, strip, across = profiles[side]
        out[side] = _count(side, runs, light, strip, across, n, pitch, ends[side])
    return out


def _count(side, runs, light, strip, across, n, pitch, ends) -> WallReading:
    if not runs:
        return WallReading(side, [0] * n, band=across, anchor="empty")
    e1, en = ends
    if abs(runs[0][0] - e1) < 0.6 * pitch:
        anchor, start, backwards = "right", runs[0][0], False
    elif abs(runs[-1][1] - en) < 0.6 * pitch:
        anchor, start, backwards = "left", runs[-1][1], True
    else:
        anchor, start, backwards = "geometry", e1, False
    if anchor == "right" and abs(runs[-1][1] - en) < 0.4 * pitch:
        pitch = (runs[-1][1] - runs[0][0]) / n  # both ends there: this wall's own pitch
    seq = runs if not backwards else [(-e, -s) for s, e in reversed(runs)]
    pos = start if not backwards else -start
    k = 1
    present: list[tuple[int, float, float]] = []  # stack, from, to (along, cm)
    splits = []
    for s, e in seq:
        gap = s - pos
        missing = max(0, int(round(gap / pitch - 0.1)))  # a stack-wide gap, not a push (R20 split)
        if missing == 0 and gap > 0.18 * pitch and present:
            splits.append(k - 1)
        k += missing
        count = max(1, int(round((e - s) / pitch)))
        for j in range(count):
            a, b = s + j * (e - s) / count, s + (j + 1) * (e - s) / count
            present.append((k, a, b) if not backwards else (n + 1 - k, -b, -a))
            k += 1
        pos = e
    if backwards:
        splits = [n - k2 for k2 in splits]
    heights = [0] * n
    lights = {}
    for k2, a, b in present:
        if 1 <= k2 <= n:
            i0 = int((a - strip.a0 + 0.25 * (b - a)) * ALONG_PX_PER_CM)
            i1 = max(i0 + 1, int((b - strip.a0 - 0.25 * (b - a)) * ALONG_PX_PER_CM))
            heights[k2 - 1] = 2
            lights[k2] = float(np.mean(light[i0:i1]))
    for k2, v in lights.items():  # loose tile on top: brighter; half a stack: darker (than neighbours)
        near = [lights[j] for j in range(k2 - 4, k2 + 5) if j != k2 and j in lights]
        if len(near) >= 2:
            ref = float(np.median(near))
            if v > ref * 1.035:
                heights[k2 - 1] = 3
            elif v < ref * 0.965:
                heights[k2 - 1] = 1
    return WallReading(side, heights, sorted(set(splits)), across, runs, anchor)
