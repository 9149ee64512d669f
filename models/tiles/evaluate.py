"""Evaluate exported ONNX models on a split, sweeping the detection threshold.

    python models/tiles/evaluate.py --models companion/vision/tiles/weights --split holdout
    python models/tiles/evaluate.py --split valid --thresholds 0.3

`holdout` is the 1-in-12 train source photos never trained on (augmented copies with
loose boxes, so a prediction also counts as found when its centre lies in a true box of
the same tile); it is what the shipped threshold was chosen on. `valid` is reported only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from common import DEFAULT_DATA, load_train  # noqa: F401  (sets sys.path)
from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.dataset import load_split
from companion.vision.tiles.metrics import Score
from companion.vision.tiles.recognizer import Tile, TileRecognizer, read_image


def centre_hits(tiles, boxes, codes) -> int:
    used = np.zeros(len(boxes), bool)
    hits = 0
    for t in sorted(tiles, key=lambda t: -t.score):
        cx, cy = (t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2
        ok = (boxes[:, 0] <= cx) & (cx <= boxes[:, 2]) & (boxes[:, 1] <= cy) & (cy <= boxes[:, 3]) & ~used
        ok &= np.array([c == t.tile for c in codes])
        if ok.any():
            i = np.flatnonzero(ok)[0]
            used[i] = True
            hits += 1
    return hits


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--models", default=None)
    ap.add_argument("--split", choices=["holdout", "valid", "valid-odd"], default="holdout")
    ap.add_argument("--thresholds", default="0.2,0.25,0.3,0.35,0.4,0.5")
    ap.add_argument("--box-scale", default=None, help="w,h factors (default: the model folder settings)")
    ap.add_argument("--tta", action="store_true", help="average with half-turned crops")
    args = ap.parse_args()
    if args.split == "holdout":
        items = load_train(args.data, holdout=True)
    else:
        from calibrate import calibration_half

        items = load_split(Path(args.data) / "valid")
        if args.split == "valid-odd":  # the half that the box-size factor was not fitted on
            items = [it for it in items if not calibration_half(it.path)]
    rec = TileRecognizer(args.models, threshold=0.05)
    if args.box_scale:
        rec.box_scale = tuple(float(v) for v in args.box_scale.split(","))
    rec.rotate_tta = args.tta
    cache = []
    for it in items:
        img = read_image(it.path)
        boxes, det = rec.detect(img)
        probs, _ = rec.embed(img, boxes)
        tiles = [Tile(TILE_CODES[p.argmax()], tuple(b), float(d)) for b, d, p in zip(boxes, det, probs)]
        cache.append((tiles, it.boxes, [TILE_CODES[c] for c in it.classes]))
    for th in (float(t) for t in args.thresholds.split(",")):
        s, d, hits, pred = Score(), Score(), 0, 0
        for tiles, boxes, codes in cache:
            kept = [t for t in tiles if t.score >= th]
            d.add(np.float32([t.box for t in kept]).reshape(-1, 4), ["t"] * len(kept), [t.score for t in kept],
                  boxes, ["t"] * len(codes))
            s.add(np.float32([t.box for t in kept]).reshape(-1, 4), [t.tile for t in kept], [t.score for t in kept], boxes, codes)
            hits += centre_hits(kept, boxes, codes)
            pred += len(kept)
        cp, cr = hits / max(pred, 1), hits / max(s.truth, 1)
        print(f"threshold {th:.2f}: IoU P {s.precision:.3f} R {s.recall:.3f} F1 {s.f1:.3f} perfect {s.perfect}/{s.images} | "
              f"centre P {cp:.3f} R {cr:.3f} F1 {2 * cp * cr / max(cp + cr, 1e-9):.3f} | "
              f"boxes only P {d.precision:.3f} R {d.recall:.3f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
