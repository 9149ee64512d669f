"""Synthetic table photos of face-up tiles, with the true boxes, from rendered tile faces.

Used to measure "teach your set" on a tile design the models never trained on and to
make a layout photo for it. Tiles stand in rows (face, then a coloured tile body below
it) or lie scattered; then the whole frame gets perspective, uneven light, blur, noise
and occluding blobs.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.render import render_tile_face

TABLE_COLOURS = [(60, 130, 40), (50, 100, 30), (120, 80, 30), (60, 100, 150), (150, 150, 150), (40, 60, 110)]
BACK_COLOURS = [(70, 140, 60), (170, 110, 40), (60, 160, 230), (220, 230, 235), (60, 60, 180)]


def _table(rng: np.random.Generator, size: int) -> np.ndarray:
    base = np.array(TABLE_COLOURS[rng.integers(len(TABLE_COLOURS))], np.float32) + rng.normal(0, 12, 3)
    img = np.empty((size, size, 3), np.float32)
    img[:] = base
    noise = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), rng.uniform(1, 4))
    img += noise[..., None] * rng.uniform(4, 12)
    return img


def _place(canvas, face, x, y, body_h, back):
    """Paste a face at (x, y) with the tile body below it; returns the face box."""
    h, w = face.shape[:2]
    H, W = canvas.shape[:2]
    if x < 0 or y < 0 or x + w > W or y + h + body_h > H:
        return None
    canvas[y + h:y + h + body_h, x:x + w] = np.array(back, np.float32) * 0.85
    canvas[y + h:y + h + max(1, body_h // 3), x:x + w] = (225, 235, 240)
    canvas[y:y + h, x:x + w] = face
    return [x, y, x + w, y + h]


def layout(rng: np.random.Generator, tile_w: int, art: str, canvas: np.ndarray, rows: list[list[str]],
           start=(0.1, 0.15), body: float = 0.3):
    """Tiles in rows on the canvas (drawn in place); returns boxes and codes of the placed tiles."""
    tile_h = int(tile_w * 4 / 3)
    body_h = int(tile_h * body)
    back = BACK_COLOURS[rng.integers(len(BACK_COLOURS))]
    size = canvas.shape[0]
    boxes, placed = [], []
    y = int(start[1] * size)
    for row in rows:
        x = int(start[0] * size)
        for code in row:
            face = render_tile_face(code, (tile_w, tile_h), rng, art=art)
            b = _place(canvas, face, x, y, body_h, back)
            if b:
                boxes.append(b)
                placed.append(code)
            x += tile_w + max(1, int(tile_w * rng.uniform(0.0, 0.08)))
        y += tile_h + body_h + int(tile_h * rng.uniform(0.2, 0.6))
    return boxes, placed


def finish(canvas: np.ndarray, boxes, rng: np.random.Generator, strength: float = 1.0, occlude: bool = True):
    """Perspective, light, blur, noise (and occluders) on a canvas; boxes follow the warp."""
    size = canvas.shape[0]
    j = size * 0.12 * strength
    src = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    dst = src + rng.uniform(-j, j, (4, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    border = tuple(float(v) for v in canvas[0, 0])
    img = cv2.warpPerspective(canvas, m, (size, size), flags=cv2.INTER_LINEAR, borderValue=border)
    out_boxes = []
    for b in boxes:
        pts = np.float32([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]).reshape(-1, 1, 2)
        q = cv2.perspectiveTransform(pts, m).reshape(-1, 2)
        out_boxes.append([*q.min(0), *q.max(0)])
    out_boxes = np.clip(np.float32(out_boxes).reshape(-1, 4), 0, size)
    # light: a gradient and a warm/cool cast
    gx = np.linspace(rng.uniform(0.65, 1.0), rng.uniform(0.9, 1.2), size, dtype=np.float32)
    light = gx[None, :] if rng.random() < 0.5 else gx[:, None]
    img = img * light[..., None] * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    if occlude and rng.random() < 0.5:  # a hand or object over part of the frame
        c = (int(rng.uniform(0, size)), int(rng.uniform(0, size)))
        ax = (int(rng.uniform(0.05, 0.15) * size), int(rng.uniform(0.1, 0.3) * size))
        ang = rng.uniform(0, 180)
        cv2.ellipse(img, c, ax, ang, 0, 360, (120, 150, 200) if rng.random() < 0.6 else (40, 40, 40), -1, cv2.LINE_AA)
        mask = np.zeros((size, size), np.uint8)
        cv2.ellipse(mask, c, ax, ang, 0, 360, 1, -1)
        # a tile more than a quarter hidden is no longer "face-up and visible": drop its truth
        keep = []
        for b in out_boxes.astype(int):
            area = max(1, (b[2] - b[0]) * (b[3] - b[1]))
            keep.append(mask[b[1]:b[3], b[0]:b[2]].sum() / area < 0.25)
        keep = np.array(keep, bool)
    else:
        keep = np.ones(len(out_boxes), bool)
    k = rng.uniform(0.3, 1.3) * strength
    img = cv2.GaussianBlur(img, (0, 0), max(k, 0.3))
    img = img + rng.normal(0, 4 * strength, img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(60, 92))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR), out_boxes, keep


def table_scene(rng: np.random.Generator, art: str = "riichi", size: int = 640, codes=None):
    """A random photo-like frame of one or two rows of face-up tiles.

    Returns (BGR image, boxes (N, 4), codes list). Faces are about 28-60 px wide, as in
    the real photos.
    """
    pool = list(codes or TILE_CODES)
    canvas = _table(rng, size)
    tile_w = int(rng.uniform(30, 58))
    per_row = min(int(size * 0.8 / (tile_w * 1.05)), 17)
    nrows = int(rng.integers(1, 4))
    rows = [[pool[i] for i in rng.integers(0, len(pool), int(rng.integers(max(3, per_row // 2), per_row + 1)))]
            for _ in range(nrows)]
    boxes, placed = layout(rng, tile_w, art, canvas, rows, start=(rng.uniform(0.05, 0.12), rng.uniform(0.08, 0.3)))
    img, boxes, keep = finish(canvas, boxes, rng, strength=1.0, occlude=True)
    return img, boxes[keep], [c for c, k in zip(placed, keep) if k]


def layout_photo(rng: np.random.Generator, art: str = "riichi", size: int = 640, rows=None):
    """A calm photo of the teach-your-set layout (one of each tile, rows as on the sheet)."""
    from companion.vision.tiles.teach import LAYOUT_ROWS

    rows = rows or LAYOUT_ROWS
    canvas = _table(rng, size)
    tile_w = int(size * 0.8 / 9.6)
    boxes, placed = layout(rng, tile_w, art, canvas, [list(r) for r in rows], start=(0.08, 0.06), body=0.15)
    img, boxes, _ = finish(canvas, boxes, rng, strength=0.35, occlude=False)
    return img, boxes, placed
