"""Shared training helpers: data loading with a source-photo holdout, and photometric jitter."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from companion.vision.tiles.dataset import load_split, source_photo  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real_tiles"


def is_holdout(path) -> bool:
    """About 1 in 12 train *source photos* (all their augmented copies) is kept for model
    selection, so the validation split is never used to choose epochs or thresholds."""
    return int(hashlib.sha1(source_photo(path).encode()).hexdigest(), 16) % 12 == 0


def load_train(data: Path, holdout: bool = False):
    items = [it for it in load_split(Path(data) / "train") if len(it.classes)]
    return [it for it in items if is_holdout(it.path) == holdout]


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Brightness/contrast/colour jitter, occasional blur, noise and greyscale."""
    img = img.astype(np.float32)
    img = img * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    img = img * rng.uniform(0.85, 1.15, size=3)[None, None, :]
    if rng.random() < 0.15:
        img = np.repeat(img.mean(axis=2, keepdims=True), 3, axis=2)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        k = int(rng.choice([3, 5]))
        img = cv2.GaussianBlur(img, (k, k), 0)
    if rng.random() < 0.2:
        img = np.clip(img.astype(np.int16) + rng.normal(0, 6, img.shape).astype(np.int16), 0, 255).astype(np.uint8)
    return img


def rotated_copy(img: np.ndarray) -> bool:
    """Roboflow's free-angle rotations leave black corners; such copies carry loose boxes."""
    corners = [img[:6, :6], img[:6, -6:], img[-6:, :6], img[-6:, -6:]]
    return sum(int(c.max() < 12) for c in corners) >= 2
