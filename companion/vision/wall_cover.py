"""What lies over a wall: a hand resting on it, a sleeve, and the shadows they cast.

A hand resting on a wall hides the tops under it, and its edge cuts them like a gap or a split.
Where something that is neither felt nor tile lies beside a break in the tops (`_foreign`), or a
shadow falls there on the felt or the tops (`_shade`: a hand the felt's own colour), the stacks
there are reported hidden (`hidden_stacks`), so that no break is read from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache, partial

import cv2
import numpy as np

from companion.vision.calibrate import Calibration
from companion.vision.geometry import TableLayout
from companion.vision.wall_strips import LOG_BRIGHTNESS, PX_PER_CM, Strip, felt_hue, hue_dist, sample

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
#: where more stacks were taken than a hand could hide, a shadow within a hand's width of a stack
#: still standing at the run's end may be a hand the felt's colour lying on the last stacks, if it
#: darkens more than this share of the rows: an arm's shadow from the table's edge falling there
#: darkened 0.26 (hard 140070, the one such case met), the 12 hands looked at 0.16-1.0. In 4 590
#: readings (seeds 0 and 140000, 170000-190000 hard), felt-coloured hands' breaks read wrong
#: 21 -> 7 (and 23 read right left unread); no plain or skin-hand reading changed
END_SHADE = 0.3
#: a colour's lightness along the wall is a norm only where the colour shows in this share of it
ALONG_SEEN = 0.5
#: a pixel more than this much brighter than the felt (`felt_hue`: the median of the felt just
#: inside and outside the wall) is not felt
FELT_BRIGHTEST = 1.4
#: beyond the wall a shadow may be a hand's at the table's edge: how far out its arm is looked for
#: (cm past the strip; it reaches in from there), and how far along the wall its shadow may fall
#: from it (cm)
CASTER_CM, CASTER_REACH_CM = 12.0, 8.0
#: an arm's shadow is its shape moved by the light (`_arm_shadows`): moved up to this far (cm)
#: either way, at least this share of what it then covers in shadow and at least this much of it
#: (cm²), the shadow within this (cm) of it is the arm's; gaps this wide between an arm's pieces
#: are closed
CAST_SHIFT_CM, CAST_FIT, CAST_MIN_CM2, CAST_SLACK_CM = 10.0, 0.6, 6.0, 1.5
#: a shadow in the strip is the arms' only if this share of it lies within their shadows
CAST_WHOLE = 0.9
#: what lies within a marker's reach and this much more (cm: a wind box's lid 4 cm up, moved by
#: parallax) is the East marker or the wind disc, no arm
MARKER_SLACK_CM = 1.5

#: stacks read standing on a wall: (stack number, along from, along to), cm along the wall
Stacks = list[tuple[int, float, float]]


def hidden_stacks(image: np.ndarray, cal: Calibration, layout: TableLayout, strip: Strip, back: np.ndarray,
                  band: tuple[int, int], runs: list[tuple[float, float]], present: Stacks, origin: float | None,
                  pitch: float, n: int, dice: Sequence[tuple[float, float, float]] = (),
                  markers: Sequence[tuple[float, float, float]] = ()) -> list[int]:
    """The stacks of `strip`'s wall that something lying over it may hide (`_hidden`). `band`: the
    strip's rows where tops can lie; `runs`: the tops seen standing, along the wall (cm); `present`:
    the stacks read standing, `origin`: where stack 1's outer end lies (None: no stack seen);
    `dice`: the dice found (table cm: centre and radius), which hide nothing; `markers`: the East
    marker and the wind disc found (table cm: centre and reach), which are no arms."""
    felt = felt_hue(strip)
    foreign = _foreign(strip, felt, back, band, layout, dice)
    # what lies beyond the wall is sampled only when a shadow there needs it
    shade = _shade(strip, felt, back, band[1],
                   partial(_casters, _apron(image, cal, layout, strip), felt, back, layout, markers),
                   partial(_arm_shadows, _apron(image, cal, layout, strip, CAST_SHIFT_CM), felt, back, layout,
                           markers))
    return _hidden(strip, foreign, shade, runs, present, origin, pitch, n)


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
    thr_felt = max(0.08, 0.45 * min(float(hue_dist(felt, back)), float(hue_dist(felt, ivory))))
    thr_back = max(0.08, 0.45 * min(float(hue_dist(back, felt)), float(hue_dist(back[:3], ivory[:3]))))

    def dist2(ref: np.ndarray, channels: int = 4) -> np.ndarray:
        d = hue[..., :channels] - ref[:channels]
        return np.einsum("...c,...c->...", d, d)

    def far(ref: np.ndarray, thr: float, channels: int = 4) -> np.ndarray:
        return dist2(ref, channels) > thr * thr

    # the felt in a shadow is felt: darker, with its chromaticity, whose noise grows as the light
    # falls (hard 140070: on a grey felt the log brightness alone made a hand's shadow a hand)
    darker = np.exp((felt[3] - hue[..., 3]) / LOG_BRIGHTNESS)  # the felt's brightness over the pixel's
    felt_shaded = (darker > 1.0) & (darker < SHADOW_DEPTH) & (dist2(felt, 3) < (thr_felt * darker) ** 2)
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
           casters: Callable[[], np.ndarray], arm_shadows: Callable[[np.ndarray], np.ndarray] | None = None
           ) -> np.ndarray:
    """Per column, the share of the strip's rows that lie in a shadow (`_dark`), spread
    `SHADE_REACH_CM` either way. A hand the felt's own colour is seen by the shadow it casts on
    the wall and beside it.

    A hand at the table's edge casts its shadow too without lying on the wall. Rows from
    `outside` on lie beyond the wall: there a shadow counts only in the columns where no such
    hand is seen (`casters()`, looked for only when there is a shadow there). In every row, a
    shadow where an arm seen reaching in from beyond casts one (`arm_shadows(dark)`: the
    pixels of `dark` it explains) does not count; that is looked for only where the shadow
    would otherwise count."""
    dark, _ = _dark(strip, felt, back)
    cm = int(PX_PER_CM) // 2  # half-resolution columns per cm
    beyond = dark[outside // 2:]
    if beyond.any():
        beyond[:, casters()[::2][:dark.shape[1]]] = False

    def share() -> np.ndarray:
        return np.convolve(dark.mean(axis=0), np.ones(cm) / cm, mode="same")

    if arm_shadows is not None and share().max() > FOREIGN_SHARE:
        dark &= ~arm_shadows(dark)
    return _full_width(share(), strip, SHADE_REACH_CM)


def _dark(strip: Strip, felt: np.ndarray, back: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At half the strip's resolution: the pixels in a shadow, and those where one would show.

    Felt or tops (by their chromaticity) `SHADE_FELT` or `SHADE_TOPS` as light as the same colour
    along the wall in its row (`_along`), or darker, are in a shadow; felt or tops in any light
    would show one. Taking each colour's lightness along the wall, over 30 cm, leaves out uneven
    light and vignetting; nothing else on the table casts a shadow that size. Smoothed over
    3 × 3, as the sensor's noise scatters a dark hue."""
    half = (strip.hue.shape[1] // 2, strip.hue.shape[0] // 2)
    hue = cv2.blur(cv2.resize(strip.hue, half, interpolation=cv2.INTER_AREA), (3, 3))
    light = cv2.blur(cv2.resize(strip.lab[..., 0], half, interpolation=cv2.INTER_AREA), (3, 3))
    cm = int(PX_PER_CM) // 2
    chroma = min(SHADE_CHROMA, 0.45 * float(np.linalg.norm(felt[:3] - back[:3])))
    dark = np.zeros(light.shape, bool)
    seen = np.zeros(light.shape, bool)
    # the felt is no brighter than FELT_BRIGHTEST times its median: on a grey felt the tiles'
    # sides are the felt's chromaticity too, and along the rows where they show they set a norm
    # the felt in a gap's mouth falls short of (hard 170148)
    felt_like = hue[..., 3] < felt[3] + LOG_BRIGHTNESS * np.log(FELT_BRIGHTEST)
    for colour, ratio, plausible in ((felt, SHADE_FELT, felt_like), (back, SHADE_TOPS, True)):
        d = hue[..., :3] - colour[:3]
        alike = (np.einsum("...c,...c->...", d, d) < chroma ** 2) & plausible
        seen |= alike
        dark |= alike & (light < ratio * _along(light, alike, cm))
    return dark, seen


def _apron(image: np.ndarray, cal: Calibration, layout: TableLayout, strip: Strip,
           beyond_ends_cm: float = 0.0) -> Callable[[], Strip]:
    """The `CASTER_CM` of table just past `strip`'s outer edge, where an arm reaching in is seen,
    and with `beyond_ends_cm`, the strip's own rows too and that much past either end: sampled
    when first asked for."""
    t1 = strip.t0 + strip.hue.shape[0] / PX_PER_CM
    rows = (strip.t0 if beyond_ends_cm else t1, t1 + CASTER_CM)
    return cache(partial(sample, image, cal, layout, strip.side, rows, beyond_ends_cm))


def _arms(area: Strip, mask: np.ndarray, layout: TableLayout, markers: Sequence[tuple[float, float, float]],
          seen: np.ndarray | None = None) -> np.ndarray:
    """The blobs of `mask` (neither felt nor tile, at half the resolution of `area`, whose rows
    it covers) that reach in from its last rows, labelled: arms. The `markers` (table cm: centre
    and reach) are left out first: a wind box reaches that far out (easy 5060), and an arm lying
    over one still does. `seen`: the mask before its gaps were closed, which must itself reach
    the last rows (closing the gaps joins a marker to the few pieces of a felt-coloured arm seen
    there: hard 5028, medium 5084)."""
    seen = mask if seen is None else seen
    if markers:
        mask, seen = mask.copy(), seen.copy()
        for x, y, reach in markers:
            col, row = (round(v / 2) for v in area.pixel(layout, x, y))
            r = round((reach + MARKER_SLACK_CM) * PX_PER_CM / 2)
            for m in (mask, seen):
                cv2.circle(m, (col, row), r, 0, -1)
    _, labels = cv2.connectedComponents(mask, connectivity=8)
    edge = np.where(seen[-2:] > 0, labels[-2:], 0)
    return np.where(np.isin(labels, np.unique(edge[edge > 0])), labels, 0)


def _casters(apron: Callable[[], Strip], felt: np.ndarray, back: np.ndarray, layout: TableLayout,
             markers: Sequence[tuple[float, float, float]]) -> np.ndarray:
    """Per column of the strip, whether an arm reaches in from beyond the wall (`_arms`), or lies
    within `CASTER_REACH_CM` along the wall. A hand at the table's edge, whose shadow on the felt
    outside the wall is no sign of a hand on it; one the felt's colour is not seen here, and its
    shadow counts."""
    a = apron()
    arms = _arms(a, _foreign_mask(a, felt, back, (0, a.hue.shape[0])), layout, markers)
    return _full_width((arms > 0).any(axis=0), a, CASTER_REACH_CM) > 0


def _arm_shadows(around: Callable[[], Strip], felt: np.ndarray, back: np.ndarray, layout: TableLayout,
                 markers: Sequence[tuple[float, float, float]], dark: np.ndarray) -> np.ndarray:
    """The pixels of `dark` (the strip's shadows, half resolution) that lie in the shadow of an
    arm reaching in from beyond the wall; `around`: the strip's rows and `_apron`'s,
    `CAST_SHIFT_CM` longer at either end; `markers` as `_arms`.

    An arm's shadow is the arm's own shape moved by the light (and by the parallax of the arm
    above the table): for each arm seen (`_arms`), the shift within `CAST_SHIFT_CM` that lays it
    on the most shadow and the least lit felt or tops, over the strip and the apron together. It
    counts if at least `CAST_FIT` of what it covers is shadow; a shadow of `dark` (8-connected)
    is explained if `CAST_WHOLE` of it lies within `CAST_SLACK_CM` of such moved arms. A hand
    the felt's colour lying on the wall is no arm seen, and the shadow it casts is not the shape
    of any, so it still counts even beside a hand at the table's edge."""
    area = around()  # the strip's rows and the apron's, and CAST_SHIFT_CM past the wall's ends
    shade, seen_there = _dark(area, felt, back)
    # the arms, their gaps closed: a skin the felt's hue nearly has is seen in pieces
    close = 2 * int(CAST_SLACK_CM * PX_PER_CM / 2) + 1
    blobs = _foreign_mask(area, felt, back, (0, area.hue.shape[0]))
    arms = _arms(area, cv2.morphologyEx(blobs, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8)), layout,
                 markers, blobs)
    if not arms.any():
        return np.zeros(dark.shape, bool)
    # +1 on a shadow, -1 on lit felt or tops, 0 where none would show (the arms, the walls' sides)
    weight = np.where(shade, 1.0, np.where(seen_there, -1.0, 0.0))
    weight[arms > 0] = 0.0
    reach = int(CAST_SHIFT_CM * PX_PER_CM / 2)
    size = (shade.shape[0] + reach, shade.shape[1] + reach)  # no wrapping within ± reach
    on_shade = np.fft.rfft2(weight, size)
    on_any = np.fft.rfft2(np.abs(weight), size)
    window = (np.r_[0:reach + 1, size[0] - reach:size[0]], np.r_[0:reach + 1, size[1] - reach:size[1]])
    moved = np.zeros(shade.shape, np.uint8)
    per_cm2 = (PX_PER_CM / 2) ** 2
    for label in np.unique(arms[arms > 0]):
        arm = (arms == label).astype(np.float64)
        f = np.conj(np.fft.rfft2(arm, size))
        # for each shift (dy, dx): shadow minus lit under the moved arm, and all that shows under it
        net = np.fft.irfft2(on_shade * f, size)[np.ix_(*window)]
        shows = np.fft.irfft2(on_any * f, size)[np.ix_(*window)]
        hits = (net + shows) / 2
        fits = (hits >= CAST_FIT * shows) & (hits >= CAST_MIN_CM2 * per_cm2)
        if not fits.any():
            continue
        iy, ix = np.unravel_index(np.argmax(np.where(fits, net, -np.inf)), net.shape)
        dy = int(window[0][iy] - (size[0] if iy > reach else 0))
        dx = int(window[1][ix] - (size[1] if ix > reach else 0))
        moved |= cv2.warpAffine((arms == label).astype(np.uint8), np.float32([[1, 0, dx], [0, 1, dy]]),
                                (shade.shape[1], shade.shape[0]), flags=cv2.INTER_NEAREST)
    slack = 2 * int(CAST_SLACK_CM * PX_PER_CM / 2) + 1
    cast = cv2.dilate(moved, np.ones((slack, slack), np.uint8)).astype(bool)
    first = round(CAST_SHIFT_CM * PX_PER_CM / 2)  # the strip's first column there
    cast = cast[:dark.shape[0], first:first + dark.shape[1]]
    # a shadow is the arms' only when they cast nearly all of it: one they cast a part of is
    # partly something else's, such as a felt-coloured sleeve lying on the wall between two
    # arms (hard 140087)
    n, shadows = cv2.connectedComponents(dark.astype(np.uint8), connectivity=8)
    theirs = np.bincount(shadows[cast], minlength=n) >= CAST_WHOLE * np.bincount(shadows.ravel(), minlength=n)
    theirs[0] = False
    return theirs[shadows]


def _hidden(strip: Strip, foreign: np.ndarray, shade: np.ndarray, runs: list[tuple[float, float]], present: Stacks,
            origin: float | None, pitch: float, n: int) -> list[int]:
    """The stacks that something lying over the wall may hide: every run of stacks not seen
    standing with a hand (`_foreign`) over it or beside it, or a shadow (`_shade`) beside a run
    no longer than a hand is wide, and the stacks either side of any break in the tops with
    either beside it (a hand's edge cuts them like a split, or by a sliver that shifts how the
    stacks are numbered). A longer run with only a shadow beside it is stacks taken away, and
    the shadow a hand's at the table's edge reaching where they stood; unless the shadow is deep
    (`END_SHADE`) at an end of the run beside a stack still standing: then a hand's width of the
    run there may be stacks under a hand the felt's colour, which looks like more stacks taken."""
    cols = len(foreign)
    if origin is None:  # a wall with no stack seen: where the layout puts it
        origin = -n * pitch / 2

    def covered(a0: float, a1: float, shaded: bool = True, shadow: float = FOREIGN_SHARE) -> bool:
        c0 = int(np.clip(np.floor(strip.col(a0)), 0, cols - 1))
        c1 = int(np.clip(np.ceil(strip.col(a1)), c0 + 1, cols))
        return float(foreign[c0:c1].max()) > FOREIGN_SHARE or shaded and float(shade[c0:c1].max()) > shadow

    have = {k: (a0, a1) for k, a0, a1 in present}
    out: set[int] = set()
    run: list[int] = []
    for k in range(1, n + 2):
        if k <= n and k not in have:
            run.append(k)
            continue
        if not run:
            continue
        short = len(run) * pitch <= SHADE_HAND_CM
        if covered(origin + (run[0] - 1.5) * pitch, origin + (run[-1] + 0.5) * pitch, short):
            out.update(run)
        elif not short:
            # stacks taken away (dealt, or the break's) and, at an end beside a stack still
            # standing, a shadow: a hand the felt's colour lying on that stack's neighbours hides
            # as many as it is wide, and the run looks that much longer
            reach = int(SHADE_HAND_CM // pitch)
            if run[0] > 1 and covered(origin + (run[0] - 1.5) * pitch, origin + (run[0] - 1 + reach) * pitch,
                                      shadow=END_SHADE):
                out.update(run[:reach])
            if k <= n and covered(origin + (run[-1] - reach) * pitch, origin + (run[-1] + 0.5) * pitch,
                                  shadow=END_SHADE):
                out.update(run[-reach:])
        run = []
    for (_, end), (start, _) in zip(runs, runs[1:]):
        if covered(end - 0.5 * pitch, start + 0.5 * pitch):
            out.update(k for k, (a0, a1) in have.items() if a1 > end - pitch and a0 < start + pitch)
    return sorted(out)
