"""Geometric augmentation of the training scripts: the shipped detector's zoomed views of whole
photos (`zoom_matrix`), and views with anisotropic stretch (`view_matrix`, the general
detector and the classifier).

Why stretch: the data set's photos were *stretched* to 640x640 by Roboflow, so a photo of
one long row of tiles ends up with tiles squeezed 4-10x along one axis. About one in nine
validation photos looks like that, but no training photo does (the training photos come
from other, roughly square, sources). A model that never saw such tiles finds none of
them, so every training view is also stretched along x or y, sometimes strongly.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: chance that a view is strongly stretched, and the largest stretch (log2 of x/y scale ratio)
STRONG_STRETCH_P = 0.3
STRONG_STRETCH_LOG2 = 3.3   # up to ~10x, as in the most stretched photos
MILD_STRETCH_LOG2 = 0.5


def random_stretch(rng: np.random.Generator, strong_p: float = STRONG_STRETCH_P) -> float:
    """The x/y scale ratio of a view: mostly mild, sometimes as strong as the data set's worst."""
    lim = STRONG_STRETCH_LOG2 if rng.random() < strong_p else MILD_STRETCH_LOG2
    return float(2.0 ** rng.uniform(-lim, lim))


def view_matrix(rng: np.random.Generator, centre, tile_wh, out: int, size_range=(16.0, 110.0),
                max_side: float = 0.85, strong_p: float = STRONG_STRETCH_P) -> np.ndarray:
    """2x3 affine for a training view of `out` x `out` pixels around `centre` (source pixels).

    Order: quarter turn (+ sometimes a small tilt) and a mirror, then the anisotropic
    stretch in the *output* frame (as Roboflow stretched whole photos last), scaled so that
    a typical tile (`tile_wh`, source pixels) has a geometric-mean size drawn log-uniformly
    from `size_range` output pixels and no side longer than `max_side` * out.
    """
    k = int(rng.integers(4))
    ang = math.radians(k * 90 + (rng.uniform(-12, 12) if rng.random() < 0.3 else 0.0))
    rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    if rng.random() < 0.5:
        rot = rot @ np.diag([-1.0, 1.0])
    tw, th = max(float(tile_wh[0]), 2.0), max(float(tile_wh[1]), 2.0)
    # the tile's extent after the rotation (axis-aligned), before the stretch
    rw, rh = abs(rot[0, 0]) * tw + abs(rot[0, 1]) * th, abs(rot[1, 0]) * tw + abs(rot[1, 1]) * th
    a = random_stretch(rng, strong_p)
    g = math.exp(rng.uniform(math.log(size_range[0]), math.log(size_range[1])))
    s = g / math.sqrt(rw * rh)
    sx, sy = s * math.sqrt(a), s / math.sqrt(a)
    big = max(rw * sx, rh * sy) / (max_side * out)
    if big > 1:
        sx, sy = sx / big, sy / big
    lin = np.diag([sx, sy]) @ rot
    # put the chosen tile somewhere it fits whole (a tile as wide as the view goes in the middle)
    half = np.array([rw * sx, rh * sy]) / 2
    lo, hi = np.minimum(half, out / 2), np.maximum(out - half, out / 2)
    target = np.clip(rng.uniform(0.2, 0.8, 2) * out, lo, hi)
    t = target - lin @ np.asarray(centre, np.float64)
    return np.hstack([lin, t[:, None]]).astype(np.float64)


def zoom_matrix(rng: np.random.Generator, src: int, dst: int) -> np.ndarray:
    """2x3 affine of the shipped detector's views: a whole src x src photo into dst x dst,
    zoomed 0.6-2x, shifted, mirrored, quarter-turned and sometimes tilted a little."""
    scale = dst / src * math.exp(rng.uniform(math.log(0.6), math.log(2.0)))
    ang = int(rng.integers(4)) * 90 + (rng.uniform(-10, 10) if rng.random() < 0.3 else 0.0)
    m = cv2.getRotationMatrix2D((src / 2, src / 2), ang, scale)
    if rng.random() < 0.5:
        m[0] *= -1  # mirror; the recentring below puts the picture back in view
    c = m @ np.array([src / 2, src / 2, 1.0])
    target = np.array([dst / 2, dst / 2]) + rng.uniform(-0.3, 0.3, 2) * dst * max(scale * src / dst, 1.0)
    m[:, 2] += target - c
    return m


def transform_boxes(boxes: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Axis-aligned boxes (N, 4) through an affine: the box around the moved corners."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    pts = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [0, 3]], boxes[:, [2, 3]]], 1)
    pts = pts @ m[:, :2].T + m[:, 2]
    return np.concatenate([pts.min(1), pts.max(1)], 1).astype(np.float32)


def squeeze(crop: np.ndarray, rng: np.random.Generator, p: float = 0.3) -> np.ndarray:
    """Resolution lost along one axis, as a tile squeezed by the photo's stretch and then
    stretched back by the square crop: down to 1/2-1/8 along x or y, then up again."""
    if rng.random() >= p:
        return crop
    h, w = crop.shape[:2]
    f = 2.0 ** rng.uniform(1, 3)
    small = (w, max(3, int(h / f))) if rng.random() < 0.5 else (max(3, int(w / f)), h)
    down = cv2.resize(crop, small, interpolation=cv2.INTER_AREA)
    return cv2.resize(down, (w, h), interpolation=cv2.INTER_LINEAR)
