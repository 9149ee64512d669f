"""Ordinary dice lying on the table: where they are, which face is up, and whether one is cocked.

Works on a top-down view of the table (the camera image rectified through the calibration, or a
plain photo taken from above). A die is a small roughly square blob that differs from the local
background; its face is the number of pips: round spots of a contrasting colour inside its top
face. A die leaning on something shows two faces and looks longer than wide: it is cocked and
must be thrown again (R18), as must a die that lies outside the walls.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class DieReading:
    face: int
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in the view's pixels
    cocked: bool
    centre: tuple[float, float]  # view pixels
    score: float

    def to_json(self) -> dict:
        return {"face": self.face, "box": [round(v, 1) for v in self.box], "cocked": self.cocked}


def _background(img: np.ndarray, die_px: float) -> np.ndarray:
    """The table or tray without the dice: a median over a window several dice wide."""
    scale = max(1.0, die_px / 6)
    small = cv2.resize(img, None, fx=1 / scale, fy=1 / scale, interpolation=cv2.INTER_AREA)
    k = int(die_px * 3.5 / scale) | 1
    bg = cv2.medianBlur(small, max(3, min(k, 255)))
    return cv2.resize(bg, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)


def foreground(img: np.ndarray, die_px: float) -> np.ndarray:
    """Pixels that differ from the local background in colour or lightness (uint8 mask)."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    bg = cv2.cvtColor(_background(img, die_px), cv2.COLOR_BGR2LAB).astype(np.float32)
    d = np.linalg.norm(lab - bg, axis=2)
    mask = (d > 28).astype(np.uint8) * 255
    k = max(1, int(die_px / 12))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1,) * 2))
    return mask


def count_pips(patch: np.ndarray) -> tuple[int, float]:
    """Pips on a die face patch (square, face filling it): the count and a confidence 0..1."""
    s = patch.shape[0]
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    # the body colour from a ring just inside the face's edge, where no pip lies
    ring = np.zeros((s, s), bool)
    a, b = int(s * 0.1), int(s * 0.17)
    ring[a:s - a, a:s - a] = True
    ring[b:s - b, b:s - b] = False
    body = np.median(lab[ring], axis=0)
    d = np.linalg.norm(lab - body, axis=2)
    d8 = np.clip(d * 2, 0, 255).astype(np.uint8)
    thr, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = (d8 > max(thr, 50)).astype(np.uint8)
    m = int(s * 0.13)
    mask[:m], mask[-m:], mask[:, :m], mask[:, -m:] = 0, 0, 0, 0
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area = s * s
    pips = []
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if 0.004 * area <= a <= 0.09 * area and max(w, h) <= 2.2 * min(w, h) + 1:
            pips.append(a)
    if not pips:
        return 0, 0.0
    if len(pips) > 1:  # pips on a die are all alike (the one may be bigger): drop specks
        ref = float(np.median(pips))
        pips = [a for a in pips if 0.35 * ref < a < 2.5 * ref]
    count = len(pips)
    conf = 1.0 if 1 <= count <= 6 else 0.0
    return count, conf


def _patch(img: np.ndarray, rect, size: int = 48) -> np.ndarray:
    (cx, cy), (w, h), ang = rect
    box = cv2.boxPoints(((cx, cy), (w, h), ang)).astype(np.float32)
    dst = np.float32([[0, size], [0, 0], [size, 0], [size, size]])
    M = cv2.getPerspectiveTransform(box, dst)
    return cv2.warpPerspective(img, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def find_dice(img: np.ndarray, die_px: float | None = None, roi_mask: np.ndarray | None = None) -> list[DieReading]:
    """Dice in a top-down view. `die_px`: the side of a die in pixels (None: estimated from the image)."""
    guess = die_px or max(12.0, min(img.shape[:2]) / 18)
    mask = foreground(img, guess)
    if roi_mask is not None:
        mask &= roi_mask
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blobs = []
    for c in contours:
        a = cv2.contourArea(c)
        if a < 30:
            continue
        rect = cv2.minAreaRect(c)
        w, h = rect[1]
        if min(w, h) < 4:
            continue
        fill = a / (w * h)
        blobs.append((c, rect, a, fill))
    hi = 1.19 if die_px is not None else 1.25  # a known die size tells dice from face-up tiles (2.2 cm)
    if die_px is None:  # the typical size of the square blobs is the size of a die
        sides = [min(r[1]) for _, r, _, f in blobs if f > 0.7 and max(r[1]) < 1.25 * min(r[1])]
        die_px = float(np.median(sides)) if sides else guess
    out = []
    for c, rect, a, fill in blobs:
        w, h = rect[1]
        short, long_ = min(w, h), max(w, h)
        if not (0.7 * die_px <= short <= hi * die_px) or long_ > 1.75 * die_px or fill < 0.6:
            continue
        cocked = long_ > 1.22 * short
        if cocked:  # read the larger of the two faces seen: the part nearer the top of the die
            (cx, cy), _, ang = rect
            face, conf = _cocked_face(img, rect)
        else:
            face, conf = count_pips(_patch(img, rect))
        if conf <= 0 or not 1 <= face <= 6:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        out.append(DieReading(face, (float(x), float(y), float(x + bw), float(y + bh)), cocked,
                              (float(rect[0][0]), float(rect[0][1])), conf))
    return out


def _cocked_face(img: np.ndarray, rect) -> tuple[int, float]:
    """A cocked die shows two faces side by side; read each and keep the one with a valid count."""
    (cx, cy), (w, h), ang = rect
    best = (0, 0.0)
    for part in (0, 1):
        if w >= h:
            off = (w / 4) * (1 if part else -1)
            a = np.deg2rad(ang)
            c = (cx + off * np.cos(a), cy + off * np.sin(a))
            r = (c, (w / 2, h), ang)
        else:
            off = (h / 4) * (1 if part else -1)
            a = np.deg2rad(ang)
            c = (cx - off * np.sin(a), cy + off * np.cos(a))
            r = (c, (w, h / 2), ang)
        face, conf = count_pips(_patch(img, r))
        if conf > best[1]:
            best = (face, conf)
    return best
