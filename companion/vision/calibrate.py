"""Camera → table: a homography from image pixels to the table plane in centimetres.

Found from the four printed ArUco corner markers (`markers_spec`); any two markers seen are
enough (eight point pairs). With three or more, the lens's radial distortion is found too
(`lens`), and the homography then maps pinhole pixels: `to_table`, `to_image` and `view` go
through both, so nothing else needs to know about the lens (where the camera hangs,
`camera_position`, was 20–70 cm too high under a strong barrel lens without it). Without
markers, `manual()` takes the four table corners clicked in the dashboard, and `uncalibrated()` treats the image itself as the table (a phone photo of dice
on a tray), saying so with `calibrated = False`. `CalibrationTracker` keeps the last good
calibration and re-detects when the markers move (a bumped camera).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision import lens as lens_model
from companion.vision import markers_spec
from companion.vision.lens import Lens


class CalibrationError(CompanionError, ValueError):
    """The four corners given for a manual calibration do not make a table."""


@dataclass
class Calibration:
    """Image ↔ table mapping. `H` maps image pixels to table cm; with a `lens`, the pixels a
    pinhole camera would show (`Lens.undistort` of the image's)."""

    H: np.ndarray
    table_size: tuple[float, float]
    calibrated: bool
    source: str  # "markers", "manual" or "image"
    markers: dict[int, list[list[float]]] = field(default_factory=dict)  # marker id -> pixel corners
    #: how far the markers' corners sit from where the homography puts them (px); a fit check
    error_px: float = 0.0
    #: (width, height) of the images it maps, when known: needed to tell where the camera hangs
    image_size: tuple[int, int] | None = None
    #: the lens's radial distortion, when the markers show one (None: a pinhole camera)
    lens: Lens | None = None
    #: the camera's height over the table, cm, when the installer measured it (`[vision]
    #: camera_height_cm`): `camera_position` then takes it rather than estimating it
    camera_height_cm: float | None = None

    @property
    def H_inv(self) -> np.ndarray:
        return np.linalg.inv(self.H)

    def to_table(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if self.lens is not None:
            pts = self.lens.undistort(pts)
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.H).reshape(-1, 2)

    def to_image(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(pts, self.H_inv).reshape(-1, 2)
        return out if self.lens is None else self.lens.distort(out)

    def view(self, image: np.ndarray, to_view: np.ndarray, size: tuple[int, int],
             border: int = cv2.BORDER_CONSTANT) -> np.ndarray:
        """A top-down view of the table: `to_view` maps table cm to its pixels, `size` is (w, h)."""
        if self.lens is None:
            return cv2.warpPerspective(image, to_view @ self.H, size, flags=cv2.INTER_LINEAR, borderMode=border)
        map1, map2 = lens_model.view_maps(self.lens, self.H_inv @ np.linalg.inv(to_view), size)
        return cv2.remap(image, map1, map2, cv2.INTER_LINEAR, borderMode=border)

    def box_to_image(self, box, to_view: np.ndarray) -> list[float]:
        """The image's pixel box around a `view`'s box [x1, y1, x2, y2] (its four corners carried back)."""
        if self.lens is None:
            return _box_through(box, np.linalg.inv(to_view @ self.H))
        corners = cv2.perspectiveTransform(_corners(box), np.linalg.inv(to_view))
        return _box_of(self.to_image(corners))

    def box_to_view(self, box, to_view: np.ndarray) -> list[float]:
        """A `view`'s pixel box around the image's box [x1, y1, x2, y2]."""
        if self.lens is None:
            return _box_through(box, to_view @ self.H)
        return _box_of(cv2.perspectiveTransform(self.to_table(_corners(box)).reshape(-1, 1, 2), to_view))

    def px_per_cm(self) -> float:
        """Mean image scale at the table centre (pixels per cm)."""
        c = np.array(self.table_size) / 2
        p = self.to_image([c, c + [1, 0], c + [0, 1]])
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)

    def to_json(self) -> dict:
        return {"calibrated": self.calibrated, "source": self.source, "table_size": list(self.table_size),
                "markers": sorted(self.markers), "error_px": round(self.error_px, 2),
                "H": np.round(self.H, 8).tolist(), "lens": self.lens.to_json() if self.lens else None}


def _corners(box) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.float64([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]).reshape(-1, 1, 2)


def _box_of(pts) -> list[float]:
    pts = np.asarray(pts).reshape(-1, 2)
    return [round(float(v), 1) for v in (*pts.min(0), *pts.max(0))]


def _box_through(box, H: np.ndarray) -> list[float]:
    """The pixel box [x1, y1, x2, y2] around a box's four corners carried through homography H."""
    return _box_of(cv2.perspectiveTransform(_corners(box), H))


_detectors: dict[str, cv2.aruco.ArucoDetector] = {}


def _aruco(kind: str = "thorough") -> cv2.aruco.ArucoDetector:
    """OpenCV's marker detector: "fast" thresholds the picture once, "thorough" at three scales."""
    if kind not in _detectors:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, markers_spec.DICTIONARY))
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        if kind == "fast":
            # one threshold window about a marker cell wide, and no contours too small or too
            # large to be a marker on the table: a quarter of the work, as many markers found
            params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = 13
            params.minMarkerPerimeterRate, params.maxMarkerPerimeterRate = 0.06, 0.6
        _detectors[kind] = cv2.aruco.ArucoDetector(dictionary, params)
    return _detectors[kind]


def _detect(grey: np.ndarray, kind: str) -> dict[int, np.ndarray]:
    corners, ids, _ = _aruco(kind).detectMarkers(grey)
    wanted = set(markers_spec.CORNER_IDS.values())
    out: dict[int, np.ndarray] = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel()):
            if int(i) in wanted and int(i) not in out:
                out[int(i)] = c.reshape(4, 2)
    return out


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The corner markers in the image: id -> 4×2 pixel corners (only ids of `markers_spec`).

    A quick search first; only when it finds fewer than three markers is the picture searched
    again at several threshold scales (a very large or very small view of the table).
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = _detect(grey, "fast")
    if len(found) < 3:
        found = {**_detect(grey, "thorough"), **found}
    return found


#: markers whose corners sit farther than this share of a marker's side from where one plane
#: through all of them puts them are not at a table's corners (the A4 sheet of all four, markers
#: moved off their corners); rendered tables with lens distortion stay under 0.08
MAX_FIT_ERROR = 0.25

#: markers needed to tell the lens's distortion from the homography (two give eight points, which
#: the homography alone can nearly fit)
MARKERS_FOR_LENS = 3


def read_markers(image: np.ndarray,
                 table_size: tuple[float, float] = markers_spec.TABLE_SIZE_CM) -> tuple[Calibration | None, str]:
    """Calibration from the printed markers, or None and why not (in words, for the user)."""
    return _from_found(find_markers(image), table_size, (int(image.shape[1]), int(image.shape[0])))


def _from_found(found: dict[int, np.ndarray], table_size: tuple[float, float],
                size: tuple[int, int]) -> tuple[Calibration | None, str]:
    """`read_markers` once the markers are found in a picture of `size` (w, h)."""
    if not found:
        return None, "no markers"
    if len(found) < 2:
        return None, "1 marker seen, at least 2 needed"
    where = markers_spec.marker_corners(table_size)
    src = np.concatenate([found[i] for i in sorted(found)]).astype(np.float64)
    dst = np.concatenate([np.array(where[i]) for i in sorted(found)]).astype(np.float64)
    lens = None
    if len(found) >= MARKERS_FOR_LENS:
        lens, H, _, _ = lens_model.fit(src, dst, size)
    else:
        H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        return None, "the markers give no table plane"
    cal = Calibration(H, table_size, True, "markers", {i: found[i].round(1).tolist() for i in sorted(found)},
                      image_size=size, lens=lens)
    back = cal.to_image(dst)
    cal.error_px = float(np.linalg.norm(back - src, axis=1).mean())
    side = float(np.mean([np.linalg.norm(c[0] - c[1]) for c in found.values()]))
    if cal.error_px > MAX_FIT_ERROR * side:
        return None, f"the markers do not lie at a table's corners: off by {cal.error_px:.0f} px"
    return cal, ""


def from_markers(image: np.ndarray, table_size: tuple[float, float] = markers_spec.TABLE_SIZE_CM) -> Calibration | None:
    """Calibration from the printed markers, or None when fewer than two are visible or they do
    not fit a table's corners (`read_markers` says which)."""
    return read_markers(image, table_size)[0]


#: camera height assumed when the picture cannot tell (a camera straight above the table), cm
TYPICAL_HEIGHT_CM = 95.0


def camera_position(cal: Calibration) -> tuple[float, float, float] | None:
    """Where the camera hangs: the table point below it (cm) and its height (cm), or None if unknown.

    The homography of the table plane fixes the camera's pose once the focal length is known.
    A tilted camera gives the focal length too (the table's axes must stay at right angles;
    principal point at the image centre, square pixels); a camera looking straight down does
    not, but then its foot point is simply the table point at the image centre, and a focal
    length from a typical mounting height changes that little. That estimate is rough (the
    height 0.84-1.44 times the true one on rendered hard scenes, the foot up to 10 cm off with
    three markers): a height measured at installation (`Calibration.camera_height_cm`) gives
    the focal length that puts the camera there, and the foot follows within about 2 cm.
    """
    if cal.image_size is None or not cal.calibrated:
        return None
    w, h = cal.image_size
    T = np.array([[1.0, 0, -w / 2], [0, 1.0, -h / 2], [0, 0, 1.0]])
    Hp = T @ cal.H_inv
    if cal.camera_height_cm:
        return _pose(Hp, _focal_for_height(Hp, cal.camera_height_cm))
    h1, h2 = Hp[:, 0], Hp[:, 1]
    # orthogonal, equally long table axes: A / f² + B = 0 for both rows
    A = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    B = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    centre = cal.to_table([[w / 2, h / 2]])[0]
    p = cal.to_image([centre, centre + [1, 0], centre + [0, 1]])
    f_prior = (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2 * TYPICAL_HEIGHT_CM
    inv_f2 = -float(A @ B) / float(A @ A) if float(A @ A) > 0 else 0.0
    f = 1 / np.sqrt(inv_f2) if inv_f2 > 0 else f_prior
    if not 0.6 * f_prior < f < 1.7 * f_prior:  # too little tilt to tell: the typical height
        f = f_prior
    return _pose(Hp, f)


def _pose(Hp: np.ndarray, f: float) -> tuple[float, float, float]:
    """The camera's foot (x, y cm) and height (cm) from the centred image→table homography's
    inverse `Hp` and a focal length `f` in pixels."""
    M = np.diag([1 / f, 1 / f, 1.0]) @ Hp
    scale = 1 / np.linalg.norm(M[:, 0])
    r1, r2, t = M[:, 0] * scale, M[:, 1] * scale, M[:, 2] * scale
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    c = -R.T @ t
    return float(c[0]), float(c[1]), float(abs(c[2]))


def _focal_for_height(Hp: np.ndarray, height: float) -> float:
    """The focal length (px) that puts the camera `height` cm above the table.

    With the scale `_pose` takes from the first column, the height it gives is D f / (a + b f²)^1.5
    (D = |det Hp|, a and b the first column's squared image and perspective parts): it grows
    with f up to f² = a / 2b, the lens that sees the table from farthest, and a bisection on
    that rising part finds the one focal length that fits (the highest there is, if none does)."""
    D = abs(float(np.linalg.det(Hp)))
    a, b = float(Hp[0, 0] ** 2 + Hp[1, 0] ** 2), float(Hp[2, 0] ** 2)

    def rises_to(f: float) -> float:
        return D * f / (a + b * f * f) ** 1.5

    lo, hi = 1.0, float(np.sqrt(a / (2 * b))) if b > 0 else 1e7
    for _ in range(60):
        mid = float(np.sqrt(lo * hi))
        if rises_to(mid) < height:
            lo = mid
        else:
            hi = mid
    return float(np.sqrt(lo * hi))


def manual(corners_px, table_size: tuple[float, float] = markers_spec.TABLE_SIZE_CM) -> Calibration:
    """Calibration from the table's four corners clicked in the image: top-left, top-right, bottom-right, bottom-left."""
    pts = np.asarray(corners_px, np.float64)
    if pts.shape != (4, 2) or not np.isfinite(pts).all():
        raise CalibrationError("give the four table corners as [[x, y], …] in the order top-left, top-right, "
                               "bottom-right, bottom-left")
    if abs(cv2.contourArea(pts.astype(np.float32))) < 100 or not cv2.isContourConvex(pts.astype(np.float32)):
        raise CalibrationError("the four corners do not outline a table (too small, crossed or out of order)")
    if cv2.contourArea(pts.astype(np.float32), oriented=True) < 0:
        # round the other way (top left, bottom left, …): the table mirrored, East and West swapped;
        # a camera looking down never sees it so
        raise CalibrationError("the four corners go round the table the wrong way: give them top left, top right, "
                               "bottom right, bottom left")
    w, h = table_size
    H = cv2.getPerspectiveTransform(pts.astype(np.float32), np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    return Calibration(H.astype(np.float64), table_size, True, "manual")


def uncalibrated(image: np.ndarray, px_per_cm: float = 8.0) -> Calibration:
    """The image itself taken as the table plane, at an assumed scale (no markers: a plain photo)."""
    h, w = image.shape[:2]
    H = np.diag([1 / px_per_cm, 1 / px_per_cm, 1.0])
    return Calibration(H, (w / px_per_cm, h / px_per_cm), False, "image")


class CalibrationTracker:
    """Keeps the calibration of a fixed camera; looks for the markers again when they moved.

    Four table corners given by hand (`manual_corners`, or `set_manual` from the dashboard)
    calibrate until markers are seen; markers seen take over."""

    def __init__(self, table_size: tuple[float, float] = markers_spec.TABLE_SIZE_CM, moved_px: float = 3.0,
                 manual_corners=None) -> None:
        self.table_size = table_size
        self.moved_px = moved_px
        self.current: Calibration | None = manual(manual_corners, table_size) if manual_corners else None
        self.recalibrations = 0

    def set_manual(self, corners) -> None:
        """Calibrate from now on from these four table corners (image pixels: top-left, top-right,
        bottom-right, bottom-left), also in place of markers seen before (a camera bumped off
        them), until markers are seen again; None: forget corners given by hand. Raises
        CalibrationError for corners that do not outline a table, and then changes nothing."""
        if corners is not None:
            self.current = manual(corners, self.table_size)  # one assignment: the watcher sees old or new
        elif self.current is not None and self.current.source == "manual":
            self.current = None

    def update(self, image: np.ndarray) -> Calibration | None:
        """The calibration for this frame: markers if seen (re-calibrating when they moved), else the last one."""
        found = find_markers(image)
        cur = self.current
        if cur is not None and cur.source == "markers" and found and _moved(cur.markers, found) <= self.moved_px:
            return cur  # the camera did not move: nothing to fit again
        fresh, _ = _from_found(found, self.table_size, (int(image.shape[1]), int(image.shape[0])))
        if fresh is None:
            return cur
        if cur is not None:
            self.recalibrations += 1
        self.current = fresh
        return self.current


def _moved(a: dict, b: dict) -> float:
    """How far (px) the markers seen in both of two pictures moved, at the most."""
    common = set(a) & set(b)
    if not common:
        return float("inf")
    return max(float(np.abs(np.array(a[i]) - np.array(b[i])).max()) for i in common)
