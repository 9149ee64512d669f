"""Read YOLO-format tile photos (images/ + labels/ folders) into boxes and class indices.

Used by the training scripts, the benchmark and the tests, so it needs only numpy/OpenCV.
Label lines are `id cx cy w h` (normalised) or polygons `id x1 y1 x2 y2 ...`, for which
the box is the polygon's min/max.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.vision.tiles.codes import DATASET_TO_CLASS

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


@dataclass
class LabelledImage:
    """One photo's path and its true tiles: boxes (N, 4) x1y1x2y2 in pixels, classes (N,).

    `polygon` (N,) marks labels drawn as polygons: their box is the outline's tight min/max
    even in rotated copies, unlike a rotated box label (see the training scripts).
    """

    path: Path
    boxes: np.ndarray
    classes: np.ndarray
    polygon: np.ndarray | None = None


def parse_labels(lines: list[str], width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse YOLO lines into pixel boxes, our class indices (polygons -> min/max box) and a flag
    per label: True where it was a polygon."""
    boxes, classes, polygon = [], [], []
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        cls, vals = int(parts[0]), [float(v) for v in parts[1:]]
        if len(vals) == 4:
            cx, cy, w, h = vals
            x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
            polygon.append(False)
        elif len(vals) >= 6 and len(vals) % 2 == 0:
            xs, ys = vals[0::2], vals[1::2]
            x1, y1, x2, y2 = min(xs), min(ys), max(xs), max(ys)
            polygon.append(True)
        else:
            raise ValueError(f"bad label line: {line!r}")
        boxes.append([x1 * width, y1 * height, x2 * width, y2 * height])
        classes.append(DATASET_TO_CLASS[cls])
    return np.asarray(boxes, np.float32).reshape(-1, 4), np.asarray(classes, np.int64), np.asarray(polygon, bool)


def load_split(folder: str | Path, size: tuple[int, int] | None = (640, 640)) -> list[LabelledImage]:
    """All labelled images of a split folder holding images/ and labels/.

    `size` is the (width, height) the labels are normalised against; the data set's
    images are all 640x640, so reading each image's size is skipped unless size is None.
    """
    folder = Path(folder)
    out = []
    for img in sorted((folder / "images").iterdir()):
        if img.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        label = folder / "labels" / (img.stem + ".txt")
        lines = label.read_text().splitlines() if label.exists() else []
        if size is None:
            import cv2

            h, w = cv2.imread(str(img), cv2.IMREAD_GRAYSCALE).shape[:2]
        else:
            w, h = size
        boxes, classes, polygon = parse_labels(lines, w, h)
        out.append(LabelledImage(img, boxes, classes, polygon))
    return out


def source_photo(path: str | Path) -> str:
    """The source photo an augmented Roboflow copy came from (`abc_jpg.rf.<hash>.jpg` -> `abc`)."""
    name = Path(path).name
    return name.split("_jpg.rf.")[0] if "_jpg.rf." in name else Path(path).stem
