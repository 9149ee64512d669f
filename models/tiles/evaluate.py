"""Evaluate an exported model pair on one split and say where the errors are.

    python models/tiles/evaluate.py --split valid                      # shipped models, their settings
    python models/tiles/evaluate.py --split holdout-tight --thresholds 0.3,0.4,0.5
    python models/tiles/evaluate.py --models DIR --split valid --json figures.json

Splits:
* `valid`: the developer validation split (never trained on, never used to choose).
* `holdout`: 1 in 12 train source photos, never trained on (augmented copies; rotated
  copies carry loose boxes, so IoU figures there are pessimistic).
* `holdout-tight`: the holdout copies without a free-angle rotation (tight boxes).
* `holdout-stretched`: holdout photos cut to a band and stretched back to a square.
The holdout splits are what thresholds and settings are chosen on (calibrate.py).

For each threshold it prints the breakdown of companion.vision.tiles.diagnose: end-to-end
figures, detection alone, naming alone (also on the true boxes), by family, size and shape.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
from common import DEFAULT_DATA, load_train, rotated_copy

from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.dataset import load_split
from companion.vision.tiles.diagnose import Breakdown
from companion.vision.tiles.recognizer import TileRecognizer

SPLITS = ("valid", "holdout", "holdout-tight", "holdout-stretched")


def load(data, split: str):
    """[(name, image, true boxes, true class indices)] of a split."""
    if split == "valid":
        return [(it.path.name, cv2.imread(str(it.path)), it.boxes, it.classes) for it in load_split(Path(data) / "valid")]
    if split == "holdout-stretched":
        import holdout

        items = load_train(data, holdout=True)
        return [(f"{it.path.name} (stretched)", *holdout.stretched(it, cv2.imread(str(it.path)))[:3]) for it in items]
    out = [(it.path.name, cv2.imread(str(it.path)), it.boxes, it.classes) for it in load_train(data, holdout=True)]
    if split == "holdout-tight":
        out = [o for o in out if not rotated_copy(o[1])]
    return out


def run(rec: TileRecognizer, items, low: float = 0.05):
    """Detections at a low threshold, their class probabilities, and the names of the true boxes."""
    saved = rec.threshold
    rec.threshold = low
    cache = []
    try:
        for name, img, boxes, classes in items:
            b, s = rec.detect(img)
            probs, _ = rec.embed(img, b)
            tprobs, _ = rec.embed(img, boxes)
            cache.append((name, b, s, probs, boxes, classes, tprobs))
    finally:
        rec.threshold = saved
    return cache


def breakdown(cache, threshold: float, name_floor: float = 0.0, rec: TileRecognizer | None = None) -> Breakdown:
    """Figures at a detection threshold; boxes whose best name is below `name_floor` are dropped,
    and with `rec` its faint kinds are kept down to its faint_threshold (as at run time:
    TileRecognizer.kept_in_photo)."""
    bd = Breakdown()
    for name, b, s, probs, boxes, classes, tprobs in cache:
        if rec is not None:
            k = rec.kept_in_photo(s, probs, threshold, name_floor)
        else:
            k = (s >= threshold) & (probs.max(1) >= name_floor) if len(b) else s >= threshold
        bd.add(b[k], [TILE_CODES[i] for i in probs[k].argmax(1)] if k.any() else [], s[k], boxes,
               [TILE_CODES[c] for c in classes], [TILE_CODES[i] for i in tprobs.argmax(1)] if len(boxes) else [], name)
    return bd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--models", default=None, help="model folder (default: the shipped models)")
    ap.add_argument("--split", choices=SPLITS, default="valid")
    ap.add_argument("--thresholds", default=None, help="comma-separated (default: the model's own)")
    ap.add_argument("--tta", choices=["on", "off", "model"], default="model", help="half-turn averaging")
    ap.add_argument("--json", default=None, help="also write the figures (per threshold) to this file")
    args = ap.parse_args()
    rec = TileRecognizer(args.models)
    if args.tta != "model":
        rec.rotate_tta = args.tta == "on"
    thresholds = [float(t) for t in args.thresholds.split(",")] if args.thresholds else [rec.threshold]
    items = load(args.data, args.split)
    print(f"{args.split}: {len(items)} photos, {sum(len(i[3]) for i in items)} tiles; detector input {rec.det_size}, "
          f"crops {rec.cls_size}, half-turn averaging {'on' if rec.rotate_tta else 'off'}, containment {rec.contain}, "
          f"name floor {rec.name_floor}",
          flush=True)
    cache = run(rec, items)
    out = {}
    for th in thresholds:
        bd = breakdown(cache, th, rec.name_floor, rec)
        print(f"\n== threshold {th:.2f}\n{bd.report()}", flush=True)
        out[f"{th:.2f}"] = bd.summary()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
