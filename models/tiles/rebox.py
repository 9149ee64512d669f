"""Re-box the train labels with the detector's own boxes, for cleaner classifier crops.

    python models/tiles/rebox.py --models DIR --out /tmp/tiles-reboxed.npz
    python models/tiles/train_classifier.py --boxes /tmp/tiles-reboxed.npz ...

Roboflow's rotated train copies carry loose, sometimes shifted boxes, so crops cut from
them show parts of neighbouring tiles, while at run time the classifier sees crops cut
from detector boxes. Here each label is replaced by the detection that matches it (its
centre inside the label box, IoU >= 0.3, the best such), and kept where none does. The
class labels are never changed. Output: an .npz with one (N, 4) array per train image
name, in label order.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np
from common import DEFAULT_DATA, load_train

from companion.vision.tiles.metrics import iou_matrix
from companion.vision.tiles.recognizer import TileRecognizer


def rebox(det: np.ndarray, labels: np.ndarray, min_iou: float = 0.3) -> tuple[np.ndarray, int]:
    """Labels with matched detections swapped in, and how many were swapped."""
    out = labels.copy()
    if not len(det) or not len(labels):
        return out, 0
    m = iou_matrix(det, labels)
    cx, cy = (det[:, 0] + det[:, 2]) / 2, (det[:, 1] + det[:, 3]) / 2
    inside = ((labels[None, :, 0] <= cx[:, None]) & (cx[:, None] <= labels[None, :, 2])
              & (labels[None, :, 1] <= cy[:, None]) & (cy[:, None] <= labels[None, :, 3]))
    m = np.where(inside & (m >= min_iou), m, 0)
    used, n = set(), 0
    for j in np.argsort(-m.max(0)):  # labels with the clearest match first
        cand = [i for i in np.argsort(-m[:, j]) if m[i, j] > 0 and i not in used]
        if cand:
            used.add(cand[0])
            out[j] = det[cand[0]]
            n += 1
    return out, n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--models", required=True, help="folder with the exported detector to box with")
    ap.add_argument("--threshold", type=float, default=0.2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rec = TileRecognizer(args.models, threshold=args.threshold)
    items = load_train(args.data)
    out, swapped, total, t0 = {}, 0, 0, time.time()
    for k, it in enumerate(items):
        det, _ = rec.detect(cv2.imread(str(it.path)))
        out[it.path.name], n = rebox(det, it.boxes)
        swapped, total = swapped + n, total + len(it.boxes)
        if (k + 1) % 200 == 0:
            print(f"{k + 1}/{len(items)} photos, {swapped}/{total} boxes re-boxed, {time.time() - t0:.0f}s", flush=True)
    np.savez_compressed(args.out, **out)
    print(f"{swapped}/{total} labels took the detector's box ({swapped / max(total, 1):.1%}); saved {args.out}")


if __name__ == "__main__":
    main()
