"""Radial lens distortion: what bends a wide lens's straight lines, found from the corner markers.

A homography maps the table plane to a pinhole camera's picture. A real lens, most of all the
wide one that sees a whole table from a low lamp, also pulls every point towards (barrel) or
pushes it away from (pincushion) the picture's centre, more the farther out it lies. A homography
fitted to the four markers at the table's corners is then right there and wrong in between: the
walls, 20 cm in from the markers, can lie two or three centimetres from where it puts them.

The model is the first radial term of OpenCV's (Brown–Conrady), about the picture's centre c: a
point the pinhole would show at p appears at

    c + (p - c) (1 + k r²),    r = |p - c| / s,    s = half the picture's diagonal,

so k means the same at any resolution (k < 0: barrel, the usual wide lens). The sixteen marker
corners fix it: a homography cannot squash each marker along the radius more than across it, as
the lens does (`fit`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

#: the values of k searched: from a strong barrel (a fisheye-like wide lens) to a mild pincushion
K_RANGE = (-0.9, 0.6)

#: a lens term is kept only when the markers' corners fit without it no better than this (mean
#: px) — the corners' own noise on an undistorted picture is 0.1–0.3 px …
LENS_MIN_ERROR_PX = 0.4
#: … and only when it brings that error down to this share or less: a term fitted to noise
#: alone gains less (measured on rendered tables with no distortion: 0.6–1.0)
LENS_MAX_RATIO = 0.6


@dataclass(frozen=True)
class Lens:
    """One radial distortion term `k` for pictures of `size` (width, height) pixels."""

    k: float
    size: tuple[int, int]

    @property
    def centre(self) -> np.ndarray:
        return np.array([self.size[0] / 2, self.size[1] / 2])

    @property
    def scale(self) -> float:
        return float(np.hypot(*self.size) / 2)

    @property
    def fold(self) -> float:
        """The radius (in `scale`s) past which a barrel lens folds points back inwards: none beyond it is seen."""
        return float(np.sqrt(-1 / (3 * self.k))) if self.k < 0 else np.inf

    @property
    def reach(self) -> float:
        """The farthest from the centre (px) that the lens shows anything: `fold`'s image. A strong
        barrel term leaves the picture's corners past it; the markers, and so the table, lie within."""
        return self.scale * self.fold * (1 + self.k * self.fold ** 2) if self.k < 0 else np.inf

    def distort(self, pts) -> np.ndarray:
        """Pinhole pixels -> the pixels the lens shows them at. Points past `fold` go far outside."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        d = (p - self.centre) / self.scale
        r2 = (d ** 2).sum(1, keepdims=True)
        f = 1 + self.k * r2
        f[r2 > self.fold ** 2] = 1e6  # not seen: off the picture rather than folded back onto it
        return self.centre + (p - self.centre) * f

    def undistort(self, pts) -> np.ndarray:
        """The lens's pixels -> pinhole pixels (Newton's method on the radius, six steps)."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        d = (p - self.centre) / self.scale
        rd = np.sqrt((d ** 2).sum(1))
        rd_c = np.minimum(rd, 0.999 * self.reach / self.scale)
        ru = rd_c.copy()
        for _ in range(6):
            ru -= (ru + self.k * ru ** 3 - rd_c) / (1 + 3 * self.k * ru ** 2)
        ratio = np.divide(ru, rd, out=np.ones_like(rd), where=rd > 1e-12)
        return self.centre + (p - self.centre) * ratio[:, None]

    def to_json(self) -> dict:
        return {"k": round(self.k, 4), "size": list(self.size)}


def _mean_error(k: float, src: np.ndarray, dst: np.ndarray, size: tuple[int, int]) -> tuple[float, np.ndarray | None]:
    """How far (mean px, in the picture) the table points `dst` land from `src` through the best
    homography for lens term k; and that homography (pinhole pixels -> table)."""
    lens = Lens(k, size)
    und = lens.undistort(src) if k else src
    H, _ = cv2.findHomography(und, dst, 0)
    if H is None:
        return np.inf, None
    back = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    if k:
        back = lens.distort(back)
    return float(np.linalg.norm(back - src, axis=1).mean()), H


def fit(src, dst, size: tuple[int, int]) -> tuple[Lens | None, np.ndarray | None, float, float]:
    """The lens term that best maps the marker corners `src` (px) onto `dst` (table cm) with one
    homography: (lens or None when not worth keeping, its homography, error without, error with).

    A coarse search over `K_RANGE`, then golden-section between its best neighbours (the error is
    smooth and has one valley there). Kept only as `LENS_MIN_ERROR_PX` and `LENS_MAX_RATIO` say.
    """
    src, dst = np.asarray(src, np.float64).reshape(-1, 2), np.asarray(dst, np.float64).reshape(-1, 2)
    e0, H0 = _mean_error(0.0, src, dst, size)
    if e0 < LENS_MIN_ERROR_PX:  # nothing for a lens to explain: a pinhole camera, or a mild lens
        return None, H0, e0, e0
    grid = np.arange(K_RANGE[0], K_RANGE[1] + 1e-9, 0.1)
    errors = [_mean_error(float(k), src, dst, size)[0] for k in grid]
    i = int(np.argmin(errors))
    a, b = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, len(grid) - 1)])
    g = (np.sqrt(5) - 1) / 2
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = _mean_error(x1, src, dst, size)[0], _mean_error(x2, src, dst, size)[0]
    while b - a > 0.002:
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = _mean_error(x1, src, dst, size)[0]
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = _mean_error(x2, src, dst, size)[0]
    k = round((a + b) / 2, 4)
    e1, H1 = _mean_error(k, src, dst, size)
    if e1 > LENS_MAX_RATIO * e0 or H1 is None:
        return None, H0, e0, e0
    return Lens(k, size), H1, e0, e1


# --- top-down views through the lens -------------------------------------------------------------

#: maps of views at least this large (px) are kept for the next frame of the same calibration
KEEP_MAP_PX = 100_000
#: how many such maps are kept (a frame makes about eight views)
KEPT_MAPS = 12
#: the view's map is computed exactly every this many pixels and interpolated in between
MAP_STEP = 8

_maps: OrderedDict[bytes, tuple[np.ndarray, np.ndarray]] = OrderedDict()
_maps_lock = threading.Lock()


def view_maps(lens: Lens, from_view: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """`cv2.remap` maps for a view of `size` (w, h) whose pixel q shows the pinhole pixel
    `from_view` @ q, i.e. the picture's pixel `lens.distort(from_view @ q)`."""
    key = np.float64([lens.k, *lens.size, *size]).tobytes() + np.ascontiguousarray(from_view, np.float64).tobytes()
    with _maps_lock:
        if key in _maps:
            _maps.move_to_end(key)
            return _maps[key]
    w, h = size
    # nodes one step beyond the view on every side, where cv2.resize's linear interpolation puts
    # them: node j of an image enlarged MAP_STEP times lies at pixel j·MAP_STEP + (MAP_STEP - 1) / 2
    nx, ny = -(-w // MAP_STEP) + 2, -(-h // MAP_STEP) + 2
    at = lambda n: (np.arange(n) - 1) * MAP_STEP + (MAP_STEP - 1) / 2  # noqa: E731
    gx, gy = np.meshgrid(at(nx), at(ny))
    nodes = np.stack([gx, gy], -1).reshape(-1, 1, 2).astype(np.float64)
    seen = lens.distort(cv2.perspectiveTransform(nodes, from_view).reshape(-1, 2)).reshape(ny, nx, 2)
    full = cv2.resize(seen.astype(np.float32), (nx * MAP_STEP, ny * MAP_STEP), interpolation=cv2.INTER_LINEAR)
    full = full[MAP_STEP:MAP_STEP + h, MAP_STEP:MAP_STEP + w]
    maps = cv2.convertMaps(np.ascontiguousarray(full), None, cv2.CV_16SC2)
    if w * h >= KEEP_MAP_PX:
        with _maps_lock:
            _maps[key] = maps
            while len(_maps) > KEPT_MAPS:
                _maps.popitem(last=False)
    return maps
