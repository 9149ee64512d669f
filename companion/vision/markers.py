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
from companion.vision.calibrate import Calibration
from companion.vision.geometry import TableLayout

#: pixels per cm of the rectified table image the markers are looked for in
PX_PER_CM = 6.0
WIND_DISC_RADIUS_CM = 1.8
#: a marker's blob is at most this much longer than wide: under a heavy vignette only part of the
#: button's red disc passes the colour test (1.5 until the hard scene 90056 showed it; on 3 060
#: rendered scenes of six seeds 1.8 finds that one more and nothing else changes)
MARKER_ASPECT = 1.8
#: the least red a dealer button shows, cm² (4 until the hard scene 20154 showed 3.9; other red blobs
#: in the players' areas of 4 590 rendered scenes are 1.3 cm² at most)
BUTTON_CM2 = 2.5
#: the wood a wind box must show, cm² (its lid is about 49; a whole box shows 56 or more, a
#: button's yellow ring, the only other wood, 16.5 at most, on 1 000 rendered scenes of seeds 0–499;
#: 30 until hard 40104, a box under a hand showing 28.7)
BOX_CM2 = 24
#: a smaller patch of wood (a hand over part of the box) is the wind box when the wind disc in its
#: hole reads at least this well: the box a hand covered a quarter of (hard scene 20006, 16.7 cm² of
#: wood seen) read 0.87 (hard 40104, 42 % covered, shows 28.7 cm², enough for a box now); the
#: only other wood blobs of COVERED_BOX_CM2 or more in 4 590 rendered scenes of nine seeds,
#: buttons' yellow rings, showed no white disc and read 0.46 at most
COVERED_BOX_CM2, COVERED_BOX_SCORE = 10, 0.7


#: how far each marker reaches from its centre on the table (cm): a wind box 7 cm square (to its
#: corners), a dealer button 4.4 cm across
MARKER_REACH_CM = {"box": 5.0, "button": 2.2}


@dataclass
class MarkerReading:
    kind: str  # "button" or "box"
    centre: tuple[float, float]  # table cm
    side: str

    @property
    def reach_cm(self) -> float:
        return MARKER_REACH_CM[self.kind]


@dataclass
class WindReading:
    wind: str
    centre: tuple[float, float]  # table cm
    score: float

    @property
    def reach_cm(self) -> float:
        return WIND_DISC_RADIUS_CM


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


def find_east_marker(table_img: np.ndarray, layout: TableLayout, image: np.ndarray | None = None,
                     cal: Calibration | None = None) -> MarkerReading | None:
    """The dealer button or wind box in the players' areas; None when neither is seen.

    With the camera `image` and its calibration `cal` (as `find_wind`), a wind box a hand half
    covers is found too, by the wind disc in its hole."""
    hsv = cv2.cvtColor(table_img, cv2.COLOR_BGR2HSV)
    zone = _outer_zone(layout, table_img.shape[:2])
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    red = (((hue <= 8) | (hue >= 170)) & (sat > 110) & (val > 50)).astype(np.uint8) * 255
    wood = ((hue >= 7) & (hue <= 18) & (sat > 120) & (val > 50)).astype(np.uint8) * 255
    best: tuple[float, MarkerReading] | None = None
    cm2 = PX_PER_CM ** 2
    # a button is a red disc 4.4 cm across (15 cm²) inside a yellow ring: blur and dim light eat its edge
    covered: list[tuple[float, float]] = []  # wood blobs too small for a whole box
    for kind, mask, lo, hi in (("button", red & zone, BUTTON_CM2, 30), ("box", wood & zone, BOX_CM2, 110)):
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            a = cv2.contourArea(c) / cm2
            if not (lo <= a <= hi or kind == "box" and COVERED_BOX_CM2 <= a < lo):
                continue
            (x, y), (w, h), _ = cv2.minAreaRect(c)
            if max(w, h) > MARKER_ASPECT * min(w, h):
                continue
            x, y = x / PX_PER_CM, y / PX_PER_CM
            if a < lo:
                covered.append((x, y))
                continue
            reading = MarkerReading(kind, (x, y), layout.side_of_point(x, y))
            if best is None or a > best[0]:
                best = (a, reading)
    if best is None and image is not None and cal is not None:
        for x, y in covered:
            _, score, _ = read_wind(image, cal, (x, y))
            if score >= COVERED_BOX_SCORE and (best is None or score > best[0]):
                best = (score, MarkerReading("box", (x, y), layout.side_of_point(x, y)))
    return best[1] if best else None


#: the wind disc is read on a patch this many pixels per cm, sampled from the camera image
LETTER_PX_PER_CM = 14.0
#: letter templates are compared at this many degrees apart
TEMPLATE_STEP_DEG = 3
_LETTER = 36  # side of the normalised letter patch (px)
#: a pixel of the disc's face this far in chroma (Lab a, b) from its white is something lying over
#: it, and left out of the letter's match; with more than MAX_COVERED of the face covered, the
#: letter is not read
COVER_CHROMA, MAX_COVERED = 12.0, 0.5
#: where no whole disc reads, a white blob of at least PARTLY_AREA of a disc's area filling
#: PARTLY_FILL of its enclosing circle (a disc a finger lies over) is read too, and taken from
#: a match of PARTLY_SCORE
PARTLY_AREA, PARTLY_FILL, PARTLY_SCORE = 0.25, 0.35, 0.6


@lru_cache(maxsize=1)
def _templates() -> tuple[np.ndarray, list[str], np.ndarray]:
    """The faces of the E, S, W and N discs turned in small steps, as a camera about 8 px/cm sees
    them: their grey levels inside the ring made `_unit`, winds, and the grey levels themselves
    (for `_masked_scores`)."""
    from companion.vision.render.draw import wind_disc_texture

    greys, names = [], []
    seen = int(2 * WIND_DISC_RADIUS_CM * 8)  # the disc's size in a 1280×720 picture of the table
    for wind in WINDS:
        tex, _ = wind_disc_texture(wind, 192)
        for deg in range(0, 360, TEMPLATE_STEP_DEG):
            M = cv2.getRotationMatrix2D((95.5, 95.5), deg, 1.0)
            turned = cv2.warpAffine(tex, M, (192, 192), borderMode=cv2.BORDER_REPLICATE)
            small = cv2.GaussianBlur(cv2.resize(turned, (seen, seen), interpolation=cv2.INTER_AREA), (0, 0), 0.6)
            greys.append(_face_grey(cv2.resize(small, (_LETTER, _LETTER), interpolation=cv2.INTER_LINEAR)))
            names.append(wind)
    greys = np.array(greys)
    return _unit(greys), names, greys


def warm_up() -> None:
    """Build the letter templates now rather than on the first disc read."""
    _templates()


@lru_cache(maxsize=1)
def _face_mask() -> np.ndarray:
    """The part of the disc that carries the letter (inside the printed ring)."""
    yy, xx = np.mgrid[0:_LETTER, 0:_LETTER]
    c = _LETTER / 2 - 0.5
    return ((xx - c) ** 2 + (yy - c) ** 2) < (0.41 * _LETTER) ** 2


def _face_grey(face: np.ndarray) -> np.ndarray:
    """Grey levels inside the ring."""
    return cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)[_face_mask()]


def _unit(g: np.ndarray) -> np.ndarray:
    """Zero mean and unit length along the last axis: matching is blind to light and contrast."""
    g = g - g.mean(axis=-1, keepdims=True)
    return g / (np.linalg.norm(g, axis=-1, keepdims=True) + 1e-6)


def _covered(face: np.ndarray) -> np.ndarray:
    """Inside the ring (as `_face_grey`), the pixels something lying over the disc covers: coloured
    where the disc is grey (white face, dark letter), by their chroma against the face's lightest
    pixels' (so a colour cast of the light changes nothing); a fingertip, a sleeve. One pixel
    wider, for the blur at its edge."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    inside = _face_mask()
    light = lab[..., 0][inside]
    ref = np.median(lab[..., 1:][inside][light >= np.percentile(light, 70)], axis=0)
    far = np.linalg.norm(lab[..., 1:] - ref, axis=-1) > COVER_CHROMA
    return cv2.dilate(far.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)[inside]


def _masked_scores(grey: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each template's match with the face `grey`, counting only the pixels `keep` picks."""
    _, _, greys = _templates()
    return _unit(greys[:, keep]) @ _unit(grey[keep])


def _patch(image: np.ndarray, cal: Calibration, centre: tuple[float, float], half_cm: float,
           px_per_cm: float) -> np.ndarray:
    """A square top-down patch of the table around `centre` (cm), sampled from the camera image."""
    size = int(round(2 * half_cm * px_per_cm))
    P = np.array([[px_per_cm, 0, -px_per_cm * (centre[0] - half_cm)],
                  [0, px_per_cm, -px_per_cm * (centre[1] - half_cm)], [0, 0, 1.0]])
    return cal.view(image, P, (size, size), cv2.BORDER_REPLICATE)


def _disc_circles(patch: np.ndarray, px_per_cm: float) -> list[tuple[float, float, float]]:
    """Where the white disc nearest the middle of the patch may lie: centres and radii (px).

    First by its white face's area and centroid. Where something lies over part of the disc, the
    centroid of what shows moves away from the cover (and the letter, read off centre, matched
    another wind's), while the smallest circle enclosing it is still the disc's: that circle
    comes second, when it is a disc's size and differs from the first."""
    hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)
    v = hsv[..., 2].astype(np.float32)
    white = ((hsv[..., 1] < 70) & (v > 0.6 * np.percentile(v, 98))).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(white, connectivity=8)
    mid = (patch.shape[1] / 2, patch.shape[0] / 2)
    best = None
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA] / px_per_cm ** 2
        if area < 0.25 * math.pi * WIND_DISC_RADIUS_CM ** 2:
            continue
        comp = (labels == i).astype(np.uint8)
        contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        filled = np.zeros_like(comp)
        cv2.drawContours(filled, contours, -1, 1, -1)  # the letter's strokes are part of the disc
        m = cv2.moments(filled, binaryImage=True)
        if m["m00"] <= 0:
            continue
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        d = math.hypot(cx - mid[0], cy - mid[1])
        if best is None or d < best[0]:
            circles = [(cx, cy, math.sqrt(m["m00"] / math.pi))]
            outline = max(contours, key=cv2.contourArea)
            (ex, ey), er = cv2.minEnclosingCircle(outline)
            for c in ((ex, ey, er), _arc_circle(outline.reshape(-1, 2).astype(np.float64))):
                # a disc's size, and somewhere a circle before it is not
                if c is not None and 0.75 <= c[2] / (WIND_DISC_RADIUS_CM * px_per_cm) <= 1.1 and \
                        all(math.hypot(c[0] - x, c[1] - y) > 1.0 for x, y, _ in circles):
                    circles.append(c)
            best = (d, circles)
    return [] if best is None else best[1]


def _arc_circle(pts: np.ndarray) -> tuple[float, float, float] | None:
    """The circle through the round part of a white face's outline: fitted to all of it, then
    again without the points well inside the circle (the straight edge of what lies over the
    disc), twice. Neither the centroid of what shows nor the circle enclosing it is the disc's
    when a hand covers one side (hard 40104)."""
    keep = pts
    for _ in range(3):
        if len(keep) < 8:
            return None
        # least squares for x² + y² + D x + E y + F = 0
        A = np.column_stack([keep, np.ones(len(keep))])
        D, E, F = np.linalg.lstsq(A, -(keep ** 2).sum(1), rcond=None)[0]
        cx, cy = -D / 2, -E / 2
        r2 = cx * cx + cy * cy - F
        if r2 <= 0:
            return None
        r = math.sqrt(r2)
        keep = pts[np.hypot(pts[:, 0] - cx, pts[:, 1] - cy) >= r - 1.5]
    return float(cx), float(cy), float(r)


def read_wind(image: np.ndarray, cal: Calibration, centre_cm: tuple[float, float]) -> tuple[str, float, tuple[float, float]]:
    """The letter on the wind disc near `centre_cm`: wind, match score (cosine, 0..1), refined centre (cm).

    `cal` maps the image's pixels to table cm. The disc is sampled from
    the camera image at a fine scale, centred on its white face (each place `_disc_circles`
    gives, the best match kept), and its letter compared with the letters of the four winds
    turned every few degrees (R13: the disc shows the round's wind), leaving out what lies over
    it (`_covered`).
    """
    k = LETTER_PX_PER_CM
    half = WIND_DISC_RADIUS_CM * 1.6
    patch = _patch(image, cal, centre_cm, half, k)
    vecs, names, _ = _templates()
    best = (names[0], 0.0, centre_cm)
    r_disc = WIND_DISC_RADIUS_CM * k
    for cx, cy, r_seen in _disc_circles(patch, k) or [(half * k, half * k, r_disc)]:
        centre = (centre_cm[0] - half + cx / k, centre_cm[1] - half + cy / k)
        r_px = float(np.clip(r_seen, 0.8 * r_disc, 1.25 * r_disc))  # a disc in the wind box stands higher
        # the disc face, scaled to the template's patch
        src = np.float32([[-r_px, -r_px], [r_px, -r_px], [r_px, r_px]]) + np.float32([cx, cy])
        M = cv2.getAffineTransform(src, np.float32([[0, 0], [_LETTER, 0], [_LETTER, _LETTER]]))
        face = cv2.warpAffine(patch, M, (_LETTER, _LETTER), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        grey, covered = _face_grey(face), _covered(face)
        if covered.mean() > MAX_COVERED:
            continue  # too little of the letter shows to tell it
        scores = _masked_scores(grey, ~covered) if covered.any() else vecs @ _unit(grey)
        i = int(np.argmax(scores))
        if scores[i] > best[1]:
            best = (names[i], float(scores[i]), centre)
    return best


def find_wind(table_img: np.ndarray, layout: TableLayout, marker: MarkerReading | None,
              image: np.ndarray, cal: Calibration) -> WindReading | None:
    """The prevalent-wind disc: in the wind box if there is one, else a white disc in the players' areas.

    Candidates are found on the coarse top-down `table_img` (PX_PER_CM); each is read on the
    camera `image` itself (`cal`: image pixels -> table cm).
    """
    candidates: list[tuple[float, float]] = []
    if marker is not None and marker.kind == "box":
        # the disc's white near the box's middle, and the middle itself: a hand over part of the
        # box moves both, and the white can be the hand's edge (40104)
        candidates += [c for c in (_refine_white(table_img, marker.centre), marker.centre) if c is not None]
    hsv = cv2.cvtColor(table_img, cv2.COLOR_BGR2HSV)
    zone = _outer_zone(layout, table_img.shape[:2])
    # white against its surroundings (a disc in a hand's shadow is still the brightest thing near it)
    val = hsv[..., 2].astype(np.float32)
    around = cv2.blur(val, (int(10 * PX_PER_CM), int(10 * PX_PER_CM)))
    white = ((hsv[..., 1] < 60) & (val > 1.25 * around) & (val > 40)).astype(np.uint8) * 255
    white &= zone
    white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(white, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    want = math.pi * WIND_DISC_RADIUS_CM ** 2
    partly: list[tuple[float, float]] = []  # white blobs a disc with something over it could leave
    for c in contours:
        a = cv2.contourArea(c) / PX_PER_CM ** 2
        if not PARTLY_AREA * want <= a <= 1.8 * want:
            continue
        (x, y), rad = cv2.minEnclosingCircle(c)
        fill = a / (math.pi * (rad / PX_PER_CM) ** 2)
        if a >= 0.5 * want and fill > 0.55:
            candidates.append((x / PX_PER_CM, y / PX_PER_CM))
        elif fill > PARTLY_FILL:
            partly.append((x / PX_PER_CM, y / PX_PER_CM))
    best: WindReading | None = None
    for group, least in ((candidates, 0.45), (partly, PARTLY_SCORE)):
        for c in group:
            wind, score, centre = read_wind(image, cal, c)
            if score > least and (best is None or score > best.score):
                best = WindReading(wind, centre, score)
        if best is not None:
            break
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
