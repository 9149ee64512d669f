"""Labelled real dice photos (YOLO labels, class = face − 1) and the development split.

The developer photos (`shared/data/real_dice`, one session `IMG_20191208_*`) are split by the
time they were taken, so that no arrangement of dice is in both halves: three blocks of the
session — crowded dice in the cardboard tray at the start, a crowded light-box block in the
middle and the cardboard-tray block at the end — are held out for validation (`VAL_BLOCKS`,
times HHMMSS inclusive); the model is trained on the rest.
"""

from __future__ import annotations

from pathlib import Path

import cv2

VAL_BLOCKS = [(111228, 111328), (112322, 112404), (112911, 113019)]


def photo_time(name: str) -> int:
    """HHMMSS from a name like IMG_20191208_111228."""
    return int(Path(name).stem.split("_")[2][:6])


def is_val(name: str) -> bool:
    t = photo_time(name)
    return any(a <= t <= b for a, b in VAL_BLOCKS)


def labels(path: Path, w: int, h: int) -> list[dict]:
    """Dice of one photo: [{"face", "box": [x1, y1, x2, y2] px, "cocked": False}]."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 5:
            c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
            out.append({"face": c + 1, "cocked": False,
                        "box": [(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h]})
    return out


def photos(data: Path, part: str = "all") -> list[tuple[Path, list[dict]]]:
    """(image path, dice) of `part` = "all", "train" or "val"."""
    out = []
    for img_path in sorted((data / "images").glob("*.jpg")):
        if part != "all" and is_val(img_path.name) != (part == "val"):
            continue
        img = cv2.imread(str(img_path))
        if img is None:
            continue
        h, w = img.shape[:2]
        out.append((img_path, labels(data / "labels" / (img_path.stem + ".txt"), w, h)))
    return out
