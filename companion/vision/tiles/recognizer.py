"""The two-stage tile recogniser: find tile faces, then name each crop.

Stage 1 (tile_detector.onnx): the whole frame stretched to 384x384 (as the training photos
were stretched to a square) -> centre heat map with peaks, box size, offset.
Stage 2 (tile_classifier.onnx): each box plus a 6 % margin stretched to 48x48 -> 42 kind
probabilities and a 128-d embedding. A taught tile set (see `teach`) replaces the
classifier's head by one fitted on the players' own tiles.
Only numpy, OpenCV and onnxruntime run here: no PyTorch at run time.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.errors import ImageError
from companion.vision.tiles import models
from companion.vision.tiles.codes import TILE_CODES

DET_SIZE = 384
DET_STRIDE = 4
CLS_SIZE = 48
MARGIN = 0.06
MAX_TILES = 150


@dataclass(frozen=True)
class Tile:
    """One recognised tile: code, box [x1, y1, x2, y2] in image pixels, score 0-1."""

    tile: str
    box: tuple[float, float, float, float]
    score: float

    def to_json(self) -> dict:
        return {"tile": self.tile, "box": [round(v, 1) for v in self.box], "score": round(self.score, 3)}


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Decode an image file to BGR, or raise ImageError saying why not."""
    p = Path(path)
    if not p.is_file():
        raise ImageError(f"{p}: no such image file")
    data = np.fromfile(str(p), np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"{p}: not a readable image (corrupt or unsupported format)")
    return img


def crop_tiles(image: np.ndarray, boxes: np.ndarray, size: int = CLS_SIZE) -> np.ndarray:
    """Cut each box plus margin out of the image, stretched to size x size: (N, 3, s, s) float32."""
    out = np.empty((len(boxes), 3, size, size), np.float32)
    h, w = image.shape[:2]
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        mx, my = (x2 - x1) * MARGIN, (y2 - y1) * MARGIN
        src = np.float32([[x1 - mx, y1 - my], [x2 + mx, y1 - my], [x2 + mx, y2 + my]])
        dst = np.float32([[0, 0], [size, 0], [size, size]])
        m = cv2.getAffineTransform(src, dst)
        bw = (x2 - x1 + 2 * mx)
        if bw > 2 * size:  # big tile in a big photo: shrink the region first so nothing aliases
            xa, ya = int(max(0, x1 - mx)), int(max(0, y1 - my))
            xb, yb = int(min(w, x2 + mx + 1)), int(min(h, y2 + my + 1))
            f = 2 * size / bw
            sub = cv2.resize(image[ya:yb, xa:xb], None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            src = (src - [xa, ya]) * f
            m = cv2.getAffineTransform(np.float32(src), dst)
            crop = cv2.warpAffine(sub, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        else:
            crop = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out[i] = crop.transpose(2, 0, 1)
    return out * np.float32(1 / 255.0)


def decode_detections(heat: np.ndarray, size: np.ndarray, offset: np.ndarray, threshold: float,
                      scale_x: float, scale_y: float, box_scale=(1.0, 1.0)) -> tuple[np.ndarray, np.ndarray]:
    """Peaks of the heat map above threshold -> boxes in image pixels and scores.

    `box_scale` corrects the size head's known bias (it was trained to under-shoot the
    loose boxes of augmented photos; see the model card) by a fixed factor per axis.
    """
    hm = heat[0, 0]
    flat = hm.ravel()
    idx = np.flatnonzero(flat > threshold)
    if idx.size > MAX_TILES:
        idx = idx[np.argsort(flat[idx])[::-1][:MAX_TILES]]
    ys, xs = np.divmod(idx, hm.shape[1])
    cx = (xs + offset[0, 0, ys, xs]) * DET_STRIDE
    cy = (ys + offset[0, 1, ys, xs]) * DET_STRIDE
    bw = np.exp(size[0, 0, ys, xs]) * DET_STRIDE * box_scale[0]
    bh = np.exp(size[0, 1, ys, xs]) * DET_STRIDE * box_scale[1]
    boxes = np.stack([(cx - bw / 2) * scale_x, (cy - bh / 2) * scale_y, (cx + bw / 2) * scale_x, (cy + bh / 2) * scale_y], 1)
    return boxes.astype(np.float32), flat[idx].astype(np.float32)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float = 0.6) -> np.ndarray:
    """Indices kept by greedy IoU suppression (peaks already spread out; this catches twins)."""
    order = np.argsort(scores)[::-1]
    keep = []
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(xx2 - xx1, 0, None) * np.clip(yy2 - yy1, 0, None)
        order = rest[inter / (area[i] + area[rest] - inter + 1e-9) <= iou]
    return np.asarray(keep, np.int64)


class TileRecognizer:
    """Load the models once, then `recognize(image)` as often as needed.

    `taught`: a TaughtSet (see companion.vision.tiles.teach) whose head names the crops
    instead of the shipped classifier's; None uses the shipped classifier.
    """

    def __init__(self, folder: str | os.PathLike | None = None, threshold: float | None = None,
                 taught=None, threads: int | None = None):
        d = models.model_dir(folder)
        self.detector = models.session(d / models.DETECTOR_FILE, threads)
        self.classifier = models.session(d / models.CLASSIFIER_FILE, threads)
        cfg = models.settings(d)
        self.threshold = cfg["threshold"] if threshold is None else threshold
        self.box_scale = tuple(cfg["box_scale"])
        self.rotate_tta = bool(cfg["rotate_tta"])
        self.taught = taught
        # one dummy pass so onnxruntime's first-run set-up is not billed to the first image
        self.detector.run(None, {"image": np.zeros((1, 3, DET_SIZE, DET_SIZE), np.float32)})
        self.classifier.run(None, {"crops": np.zeros((2, 3, CLS_SIZE, CLS_SIZE), np.float32)})

    def detect(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tile-face boxes (N, 4) in image pixels and their detection scores."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 8:
            raise ImageError("expected a BGR colour image of at least 8x8 pixels")
        h, w = image.shape[:2]
        x = cv2.resize(image, (DET_SIZE, DET_SIZE), interpolation=cv2.INTER_AREA if max(h, w) > DET_SIZE else cv2.INTER_LINEAR)
        x = x.transpose(2, 0, 1)[None].astype(np.float32) * np.float32(1 / 255.0)
        heat, size, offset = self.detector.run(None, {"image": x})
        boxes, scores = decode_detections(heat, size, offset, self.threshold, w / DET_SIZE, h / DET_SIZE, self.box_scale)
        if len(boxes):
            keep = nms(boxes, scores)
            boxes, scores = boxes[keep], scores[keep]
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
            boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes, scores

    def embed(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities (N, 42) and unit embeddings (N, 128) of the boxed tiles."""
        if len(boxes) == 0:
            return np.zeros((0, len(TILE_CODES)), np.float32), np.zeros((0, 128), np.float32)
        crops = crop_tiles(image, boxes)
        n = len(crops)
        if self.rotate_tta:  # tiles lie either way up: average with the half-turned crop, in one batch
            crops = np.concatenate([crops, crops[:, :, ::-1, ::-1]])
        probs, emb = self.classifier.run(None, {"crops": crops})
        if self.rotate_tta:
            probs = (probs[:n] + probs[n:]) / 2
            emb = emb[:n] + emb[n:]
            emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-9
        return probs, emb

    def recognize(self, image: np.ndarray) -> list[Tile]:
        """Every tile face found in a BGR image, named, in reading order (top-left first)."""
        boxes, det = self.detect(image)
        probs, emb = self.embed(image, boxes)
        if self.taught is not None and len(boxes):
            probs = self.taught.predict_proba(emb)
        cls = probs.argmax(1) if len(boxes) else np.zeros(0, np.int64)
        tiles = [Tile(self.taught.codes[c] if self.taught is not None else TILE_CODES[c],
                      tuple(float(v) for v in b), float(s * p[c]))
                 for b, s, p, c in zip(boxes, det, probs, cls)]
        return sorted(tiles, key=lambda t: (round(t.box[1] / max(1.0, t.box[3] - t.box[1])), t.box[0]))

    def recognize_file(self, path: str | os.PathLike) -> tuple[list[Tile], float]:
        """Tiles in an image file and the milliseconds spent (decode included)."""
        t0 = time.perf_counter()
        tiles = self.recognize(read_image(path))
        return tiles, (time.perf_counter() - t0) * 1000.0
