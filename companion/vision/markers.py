"""The East marker and the prevalent-wind indicator, found in the players' areas outside the walls.

East marker (R11): a red dealer button (a disc about 4.4 cm across) or the wooden wind box
(chuangtzu, about 7 cm square) that stands in front of East. Prevalent wind (R13): a white disc
showing E, S, W or N, lying on the table or seen through the hole in the wind box's lid (R13
note 1). The letter is read at any rotation by comparing with turned templates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.rules.seats import WINDS
from companion.vision.geometry import TableLayout

#: pixels per cm of the rectified table image the markers are looked for in
PX_PER_CM = 6.0
WIND_DISC_RADIUS_CM = 1.8


@dataclass
class MarkerReading:
    kind: str  # "button" or "box"
    centre: tuple[float, float]  # table cm
    side: str


@dataclass
class WindReading:
    wind: str
    centre: tuple[float, float]  # table cm
    score: float


def _outer_zone(layout: TableLayout, shape: tuple[int, int]) -> np.ndarray:
    """Mask of the players' areas: outside the walls, inside the table, away from the corner markers."""
    h, w = shape
    m = np.zeros((h, w), np.uint8)
    m[int(2 * PX_PER_CM):h - int(2 * PX_PER_CM), int(2 * PX_PER_CM):w - int(2 * PX_PER_CM)] = 255
    cx, cy = layout.centre
    r = layout.inner + layout.tile.depth * 1.05 + 1.0
    cv2.rectangle(m, (int((cx - r) * PX_PER_CM), int((cy - r) * PX_PER_CM)),
                  (int((cx + r) * PX_PER_CM), int((cy + r) * PX_PER_CM)), 0, -1)
    k = int(9.5 * PX_PER_CM)
    for x, y in ((0, 0), (w - k, 0), (0, h - k), (w - k, h - k)):
        m[y:y + k, x:x + k] = 0
    return m


def find_east_marker(table_img: np.ndarray, layout: TableLayout) -> MarkerReading | None:
    """The dealer button or wind box in the players' areas; None when neither is seen."""
    hsv = cv2.cvtColor(table_img, cv2.COLOR_BGR2HSV)
    zone = _outer_zone(layout, table_img.shape[:2])
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    red = (((hue <= 8) | (hue >= 170)) & (sat > 110) & (val > 50)).astype(np.uint8) * 255
    wood = ((hue >= 7) & (hue <= 18) & (sat > 120) & (val > 50)).astype(np.uint8) * 255
    best: tuple[float, MarkerReading] | None = None
    cm2 = PX_PER_CM ** 2
    for kind, mask, lo, hi in (("button", red & zone, 7, 30), ("box", wood & zone, 30, 110)):
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            a = cv2.contourArea(c) / cm2
            if not lo <= a <= hi:
                continue
            (x, y), (w, h), _ = cv2.minAreaRect(c)
            if max(w, h) > 1.5 * min(w, h):
                continue
            x, y = x / PX_PER_CM, y / PX_PER_CM
            reading = MarkerReading(kind, (x, y), layout.side_of_point(x, y))
            if best is None or a > best[0]:
                best = (a, reading)
    return best[1] if best else None


@lru_cache(maxsize=1)
def _templates(size: int = 32) -> tuple[np.ndarray, list[str]]:
    """Dark-letter masks of E, S, W, N turned in 5° steps, as unit vectors."""
    from companion.vision.render.draw import wind_disc_texture

    vecs, names = [], []
    for wind in WINDS:
        tex, _ = wind_disc_texture(wind, 96)
        letter = _letter_mask(cv2.resize(tex, (size, size), interpolation=cv2.INTER_AREA))
        for deg in range(0, 360, 5):
            M = cv2.getRotationMatrix2D((size / 2, size / 2), deg, 1.0)
            rot = cv2.warpAffine(letter, M, (size, size))
            v = rot.astype(np.float32).ravel()
            v -= v.mean()
            vecs.append(v / (np.linalg.norm(v) + 1e-6))
            names.append(wind)
    return np.array(vecs), names


def _letter_mask(patch: np.ndarray) -> np.ndarray:
    """Dark strokes inside the disc's inner circle, as 0..1 floats."""
    s = patch.shape[0]
    g = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    yy, xx = np.mgrid[0:s, 0:s]
    inside = (xx - s / 2 + 0.5) ** 2 + (yy - s / 2 + 0.5) ** 2 < (0.38 * s) ** 2
    ref = np.percentile(g[inside], 85)
    dark = np.clip((ref - g) / max(ref * 0.5, 1), 0, 1)
    dark[~inside] = 0
    return dark


def read_wind(table_img: np.ndarray, centre_cm: tuple[float, float]) -> tuple[str, float]:
    """The letter on the wind disc centred at `centre_cm`, and the match score (cosine, 0..1)."""
    r = WIND_DISC_RADIUS_CM * PX_PER_CM
    x, y = centre_cm[0] * PX_PER_CM, centre_cm[1] * PX_PER_CM
    size = 32
    src = np.float32([[x - r, y - r], [x + r, y - r], [x + r, y + r]])
    M = cv2.getAffineTransform(src, np.float32([[0, 0], [size, 0], [size, size]]))
    patch = cv2.warpAffine(table_img, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    v = _letter_mask(patch).ravel()
    v = v - v.mean()
    v /= np.linalg.norm(v) + 1e-6
    vecs, names = _templates(size)
    scores = vecs @ v
    i = int(np.argmax(scores))
    return names[i], float(scores[i])


def find_wind(table_img: np.ndarray, layout: TableLayout, marker: MarkerReading | None) -> WindReading | None:
    """The prevalent-wind disc: in the wind box if there is one, else a white disc in the players' areas."""
    candidates: list[tuple[float, float]] = []
    if marker is not None and marker.kind == "box":
        candidates.append(_refine_white(table_img, marker.centre) or marker.centre)
    hsv = cv2.cvtColor(table_img, cv2.COLOR_BGR2HSV)
    zone = _outer_zone(layout, table_img.shape[:2])
    white = ((hsv[..., 1] < 60) & (hsv[..., 2] > np.percentile(hsv[..., 2], 60) * 1.25)).astype(np.uint8) * 255
    white &= zone
    white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(white, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    want = math.pi * WIND_DISC_RADIUS_CM ** 2
    for c in contours:
        a = cv2.contourArea(c) / PX_PER_CM ** 2
        if 0.5 * want <= a <= 1.8 * want:
            (x, y), rad = cv2.minEnclosingCircle(c)
            if a > 0.55 * math.pi * (rad / PX_PER_CM) ** 2:
                candidates.append((x / PX_PER_CM, y / PX_PER_CM))
    best: WindReading | None = None
    for c in candidates:
        wind, score = read_wind(table_img, c)
        if score > 0.45 and (best is None or score > best.score):
            best = WindReading(wind, c, score)
    return best


def _refine_white(table_img: np.ndarray, centre: tuple[float, float]) -> tuple[float, float] | None:
    """The white disc's centre near `centre` (the hole of the wind box), by its bright pixels."""
    r = int(4 * PX_PER_CM)
    x, y = int(centre[0] * PX_PER_CM), int(centre[1] * PX_PER_CM)
    y0, x0 = max(0, y - r), max(0, x - r)
    roi = table_img[y0:y + r, x0:x + r]
    if roi.size == 0:
        return None
    hsv = cv2.cvtColor(roi, cv2.COLOR_BGR2HSV)
    m = (hsv[..., 1] < 70) & (hsv[..., 2] > 150)
    if m.sum() < 20:
        return None
    yy, xx = np.nonzero(m)
    return ((x0 + xx.mean()) / PX_PER_CM, (y0 + yy.mean()) / PX_PER_CM)
