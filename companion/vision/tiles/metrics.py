"""Scoring a recogniser against true tiles: a prediction is right when its box overlaps a
true box of the same kind with IoU >= 0.5 (each true tile matched at most once)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in a (N, 4) with every box in b (M, 4), x1y1x2y2."""
    a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


def match(pred_boxes, pred_codes, pred_scores, true_boxes, true_codes, iou: float = 0.5) -> int:
    """Number of predictions that are right (greedy by score, same code, IoU >= iou)."""
    if len(pred_boxes) == 0 or len(true_boxes) == 0:
        return 0
    m = iou_matrix(pred_boxes, true_boxes)
    used = np.zeros(len(true_boxes), bool)
    right = 0
    for i in np.argsort(-np.asarray(pred_scores, np.float32)):
        ok = (m[i] >= iou) & ~used & (np.asarray(true_codes) == pred_codes[i])
        if ok.any():
            used[np.flatnonzero(ok)[np.argmax(m[i][ok])]] = True
            right += 1
    return right


@dataclass
class Score:
    """Running totals over images."""

    tp: int = 0
    predicted: int = 0
    truth: int = 0
    images: int = 0
    perfect: int = 0
    per_image: list = field(default_factory=list)
    counts: list = field(default_factory=list)  # per image: (right, predicted, true)

    def add(self, pred_boxes, pred_codes, pred_scores, true_boxes, true_codes) -> int:
        tp = match(pred_boxes, list(pred_codes), pred_scores, true_boxes, list(true_codes))
        self.tp += tp
        self.predicted += len(pred_codes)
        self.truth += len(true_codes)
        self.images += 1
        ok = tp == len(true_codes) == len(pred_codes)
        self.perfect += ok
        self.per_image.append(ok)
        self.counts.append((tp, len(pred_codes), len(true_codes)))
        return tp

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.truth if self.truth else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def f1_interval(self, rounds: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
        """How far F1 could move on another set of photos like these: the central `level` of F1
        over `rounds` resamples of the images with replacement (a bootstrap over photos)."""
        c = np.asarray(self.counts, np.float64).reshape(-1, 3)
        if not len(c):
            return 0.0, 0.0
        picks = np.random.default_rng(seed).integers(0, len(c), (rounds, len(c)))
        tp, pred, true = (c[:, k][picks].sum(1) for k in range(3))
        f1 = np.divide(2 * tp, pred + true, out=np.zeros(rounds), where=pred + true > 0)
        lo, hi = np.quantile(f1, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)

    @property
    def perfect_rate(self) -> float:
        return self.perfect / self.images if self.images else 0.0
