"""Choose the run-time settings of an exported model pair and write tile_models.json.

    python models/tiles/calibrate.py --models companion/vision/tiles/weights

Everything is chosen on the train holdout (1 in 12 train source photos, never trained
on), never on the validation split:
* threshold and containment suppression (see recognizer.nms): the pair with the best
  end-to-end F1 on `holdout` + `holdout-stretched` together, a prediction counting as
  right when its centre lies in a true box of the same tile (the holdout's rotated copies
  carry loose boxes, so centres are what can be trusted there);
* half-turn averaging of the classifier: kept if it raises that F1;
* box_scale: the median true/predicted width and height over centre-matched tiles of
  `holdout-tight` (holdout copies without a free rotation, whose boxes are tight).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import evaluate
import numpy as np
from common import DEFAULT_DATA
from holdout import centre_counts, centre_pairs

from companion.vision.tiles.recognizer import TileRecognizer, nms

THRESHOLDS = [round(t, 2) for t in np.arange(0.2, 0.651, 0.05)]
CONTAINS = [1.01, 0.9, 0.8, 0.7, 0.6]


def centre_f1(cache, threshold: float, contain: float, tta: bool) -> float:
    """Same-tile, centre-in-box F1 over cached detections (see evaluate.run)."""
    hits = pred = truth = 0
    for _, b, s, probs, boxes, classes, _ in cache:
        k = np.flatnonzero(s >= threshold)
        if len(k):
            k = k[nms(b[k], s[k], iou=1.1, contain=contain)]
        names = probs[tta][k].argmax(1) if len(k) else np.zeros(0, int)
        for c in np.unique(np.r_[names, classes]):  # count per tile kind: same tile and centre inside
            h, p, t = centre_counts(b[k][names == c], boxes[classes == c], np.zeros((0, 4)))
            hits, pred, truth = hits + h, pred + p, truth + t
    p, r = hits / max(pred, 1), hits / max(truth, 1)
    return 2 * p * r / max(p + r, 1e-9)


def cached(rec, items):
    """evaluate.run for both settings of half-turn averaging: probs[False] and probs[True]."""
    out = []
    rec.rotate_tta = False
    plain = evaluate.run(rec, items)
    rec.rotate_tta = True
    turned = evaluate.run(rec, items)
    for a, b in zip(plain, turned):
        out.append((a[0], a[1], a[2], {False: a[3], True: b[3]}, a[4], a[5], a[6]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--models", required=True)
    args = ap.parse_args()
    rec = TileRecognizer(args.models)
    rec.box_scale, rec.contain = (1.0, 1.0), 1.01
    cache = cached(rec, evaluate.load(args.data, "holdout")) + cached(rec, evaluate.load(args.data, "holdout-stretched"))
    best = None
    for tta in (False, True):
        for contain in CONTAINS:
            row = [centre_f1(cache, th, contain, tta) for th in THRESHOLDS]
            print(f"half-turn {'on ' if tta else 'off'} contain {contain:.2f}: "
                  + " ".join(f"{th:.2f}:{f:.3f}" for th, f in zip(THRESHOLDS, row)), flush=True)
            for th, f in zip(THRESHOLDS, row):
                if best is None or f > best[0] + 1e-9:
                    best = (f, th, contain, tta)
    f1, threshold, contain, tta = best
    rw, rh = [], []
    for _, img, boxes, _ in evaluate.load(args.data, "holdout-tight"):
        b, s = rec.detect(img)
        b = b[s >= threshold]
        for i, j in centre_pairs(b, boxes):
            rw.append((boxes[j, 2] - boxes[j, 0]) / (b[i, 2] - b[i, 0]))
            rh.append((boxes[j, 3] - boxes[j, 1]) / (b[i, 3] - b[i, 1]))
    scale = [round(float(np.median(rw)), 3), round(float(np.median(rh)), 3)]
    out = Path(args.models) / "tile_models.json"
    cfg = json.loads(out.read_text()) if out.exists() else {}
    cfg.update({"threshold": threshold, "contain": contain, "rotate_tta": tta, "box_scale": scale})
    out.write_text(json.dumps(cfg, indent=1) + "\n")
    print(f"holdout centre F1 {f1:.3f}: threshold {threshold}, contain {contain}, half-turn averaging {tta}; "
          f"box_scale {scale} from {len(rw)} tiles of holdout-tight -> {out}")


if __name__ == "__main__":
    main()
