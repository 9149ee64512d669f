"""Box-and-face F1 of the dice reader on labelled real photos (YOLO labels, class = face - 1).

    python models/dice/eval_real.py DATA_DIR [--iou 0.5] [--show N]

DATA_DIR holds images/ and labels/ (e.g. the team's real_dice split). A reading counts as a true
positive when its box overlaps an unmatched labelled die with IoU >= --iou and the faces agree.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from companion.vision.dice import find_dice


def iou(a, b) -> float:
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def labels(path: Path, w: int, h: int) -> list[tuple[int, list[float]]]:
    out = []
    for line in path.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 5:
            c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
            out.append((c + 1, [(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h]))
    return out


def evaluate(data: Path, min_iou: float = 0.5) -> dict:
    tp = fp = fn = box_tp = 0
    times = []
    for img_path in sorted((data / "images").glob("*.jpg")):
        img = cv2.imread(str(img_path))
        h, w = img.shape[:2]
        truth = labels(data / "labels" / (img_path.stem + ".txt"), w, h)
        t = time.perf_counter()
        got = find_dice(img)
        times.append(time.perf_counter() - t)
        used = set()
        for d in got:
            best, j = 0.0, -1
            for i, (face, box) in enumerate(truth):
                if i not in used and (v := iou(d.box, box)) > best:
                    best, j = v, i
            if best >= min_iou:
                used.add(j)
                box_tp += 1
                if truth[j][0] == d.face:
                    tp += 1
                else:
                    fp += 1
                    fn += 1
            else:
                fp += 1
        fn += len(truth) - len(used)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"images": len(times), "dice": tp + fn - (len(used) - len(used)), "tp": tp, "fp": fp, "fn": fn,
            "box_only_tp": box_tp, "f1": round(f1, 4), "ms_p50": round(1000 * float(np.median(times)), 1)}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--iou", type=float, default=0.5)
    args = ap.parse_args()
    print(evaluate(args.data, args.iou))
