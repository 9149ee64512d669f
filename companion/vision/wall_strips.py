"""A wall seen from above, resampled into a straight strip in the table frame, and the colours
read from it: the felt, and the tiles' backs.

Columns run along the wall from its stack 1 towards stack N, rows across it from inside the
square outwards (`sample`). Colours are compared by hue (`hue_of`: chromaticity and a little of
the log brightness), which a shadow or a dim corner hardly changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.calibrate import Calibration
from companion.vision.geometry import WALL_FRAMES, TableLayout

#: strip resolution, pixels per cm along and across the wall
PX_PER_CM = 8.0
#: Lab weights: lightness counts less than colour (shadows and uneven light change lightness)
LAB_WEIGHTS = np.array([0.25, 1.0, 1.0], np.float32)
#: how much larger than the table frame the wall tops may look (parallax and lens)
MAX_SCALE = 1.12
#: the weight of the log brightness in `hue_of` (a shadow changes it, not the chromaticity)
LOG_BRIGHTNESS = 0.2


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


def sample(image: np.ndarray, cal: Calibration, layout: TableLayout, side: str,
           across: tuple[float, float] | None = None, beyond_ends_cm: float = 0.0) -> Strip:
    """The strip of `side`'s wall, long and wide enough for tops that look up to 12 % larger;
    `across`: other rows instead, (from, to) in cm from the square's centre; `beyond_ends_cm`:
    this much more past either end of the wall."""
    f = WALL_FRAMES[side]
    half = layout.half_length * MAX_SCALE + 2.0 + beyond_ends_cm
    t0, t1 = across or (layout.inner - 2.5, layout.inner + layout.tile.depth * MAX_SCALE + 3.5)
    cols, rows = int((2 * half) * PX_PER_CM), int((t1 - t0) * PX_PER_CM)
    (ux, uy), (nx, ny), (cx, cy) = f.u, f.inward, layout.centre
    k = 1 / PX_PER_CM
    # strip pixel (col, row) -> table cm: along from -half, across from t0 (outwards)
    A = np.array([[ux * k, -nx * k, cx - half * ux - t0 * nx],
                  [uy * k, -ny * k, cy - half * uy - t0 * ny], [0, 0, 1.0]])
    bgr = cal.view(image, np.linalg.inv(A), (cols, rows), cv2.BORDER_REPLICATE)
    return Strip(side, cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32), -half, float(t0), hue_of(bgr))


def hue_of(bgr: np.ndarray) -> np.ndarray:
    """Per pixel: 3 × chromaticity (b, g, r over their sum) and `LOG_BRIGHTNESS` × log brightness.

    A shadow or a dim corner scales all three channels alike: the chromaticity stays, so a
    tile's back in the shadow of a hand is still the back colour.
    """
    f = bgr.astype(np.float32)
    total = f.sum(axis=-1, keepdims=True) + 12.0
    return np.concatenate([3.0 * f / total, LOG_BRIGHTNESS * np.log(total)], axis=-1)


def lab_dist(lab: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return np.sqrt((((lab - ref) ** 2) * LAB_WEIGHTS).sum(-1))


def hue_dist(hue: np.ndarray, ref: np.ndarray) -> np.ndarray:
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
        tile = lab_dist(lab, felt) > 15
        frac = tile.mean(axis=1)
        if frac.max() < 0.03:
            continue
        rows = frac > 0.6 * frac.max()
        pixels.append(hue[rows][tile[rows]])
    if not pixels or sum(len(p) for p in pixels) < 25:
        return None
    px = np.concatenate(pixels)
    return np.median(px[:: max(1, len(px) // 4000)], axis=0)
