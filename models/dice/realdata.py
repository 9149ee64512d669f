"""Labelled real dice photos (YOLO labels, class = face − 1) and the development split.

The developer photos (`shared/data/real_dice`, one session `IMG_20191208_*`) are split by the
time they were taken, so that no arrangement of dice is in both halves: three blocks of the
session — crowded dice in the cardboard tray at the start, a crowded light-box block in the
middle and the cardboard-tray block at the end — are held out for validation (`VAL_BLOCKS`,
times HHMMSS inclusive); the model is trained on the rest.

Choosing between training runs on the validation blocks would make their figures optimistic, so
two more blocks of the training photos (`TUNE_BLOCKS`) can be set aside as a tuning split: a
candidate is trained on "fit" (train without tune), compared on "tune", and the chosen recipe is
then trained again on the whole "train" part.
"""

from __future__ import annotations

from pathlib import Path

import cv2

VAL_BLOCKS = [(111228, 111328), (112322, 112404), (112911, 113019)]
#: inside the training photos: set aside to choose between training runs (18 photos)
TUNE_BLOCKS = [(111730, 111833), (112600, 112645)]
PARTS = ("all", "train", "val", "fit", "tune")


def photo_time(name: str) -> int:
    """HHMMSS from a name like IMG_20191208_111228."""
    return int(Path(name).stem.split("_")[2][:6])


def is_val(name: str) -> bool:
    t = photo_time(name)
    return any(a <= t <= b for a, b in VAL_BLOCKS)


def is_tune(name: str) -> bool:
    t = photo_time(name)
    return any(a <= t <= b for a, b in TUNE_BLOCKS)


def in_part(name: str, part: str) -> bool:
    """Whether photo `name` belongs to `part` (one of `PARTS`)."""
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; one of {', '.join(PARTS)}")
    if part == "all":
        return True
    if part == "val":
        return is_val(name)
    if part == "train":
        return not is_val(name)
    return not is_val(name) and is_tune(name) == (part == "tune")


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
    """(image path, dice) of `part`, one of `PARTS`."""
    out = []
    for img_path in sorted((data / "images").glob("*.jpg")):
        if not in_part(img_path.name, part):
            continue
        img = cv2.imread(str(img_path))
        if img is None:
            continue
        h, w = img.shape[:2]
        out.append((img_path, labels(data / "labels" / (img_path.stem + ".txt"), w, h)))
    return out
