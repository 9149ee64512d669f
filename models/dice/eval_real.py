"""Box-and-face precision, recall and F1 of the dice reader on labelled real photos.

    python models/dice/eval_real.py DATA_DIR [--part val|train|all|fit|tune] [--iou 0.5] [--errors OUT_DIR] [--json]

DATA_DIR holds images/ and labels/ (YOLO format, class = face − 1), e.g. the team's real_dice
split. A reading is a true positive when its box overlaps a not yet matched labelled die with
IoU >= --iou and the faces agree; a matched box with the wrong face counts once as a false
positive and once as a false negative. `--part val` scores only the photos the shipped models
were not trained on when they were trained with `--part train` (see realdata.VAL_BLOCKS).
Photos are read as `companion observe` reads an uncalibrated photo (die size unknown).
Note: a few dice in crowded photos are unlabelled upstream; a reading of one counts as a false
positive here, so precision is a lower bound. `--errors` writes the photos with mistakes drawn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from realdata import PARTS, photos  # noqa: E402

from companion.vision.dice import DiceReader, _iou  # noqa: E402


def match(got, truth, min_iou: float):
    """(true positives, wrong face, spurious, missed lists) for one photo."""
    used: set[int] = set()
    tp, wrong, spurious = [], [], []
    for d in sorted(got, key=lambda d: -d.score):
        best, j = 0.0, -1
        for i, t in enumerate(truth):
            if i not in used and (v := _iou(d.box, t["box"])) > best:
                best, j = v, i
        if best >= min_iou:
            used.add(j)
            (tp if truth[j]["face"] == d.face else wrong).append((d, truth[j]))
        else:
            spurious.append(d)
    missed = [t for i, t in enumerate(truth) if i not in used]
    return tp, wrong, spurious, missed


def evaluate(data: Path, part: str = "val", min_iou: float = 0.5, errors: Path | None = None,
             model_dir: Path | None = None) -> dict:
    reader = DiceReader(model_dir)
    tp = fp = fn = wrong_face = 0
    times = []
    confusion = np.zeros((7, 7), int)  # truth face × read face (0 = missed / spurious)
    for path, truth in photos(data, part):
        img = cv2.imread(str(path))
        t = time.perf_counter()
        got = reader.read(img)
        times.append((time.perf_counter() - t) * 1000)
        ok, wrong, spurious, missed = match(got, truth, min_iou)
        tp += len(ok)
        wrong_face += len(wrong)
        fp += len(wrong) + len(spurious)
        fn += len(wrong) + len(missed)
        for d, t_ in ok + wrong:
            confusion[t_["face"], d.face] += 1
        for d in spurious:
            confusion[0, d.face] += 1
        for t_ in missed:
            confusion[t_["face"], 0] += 1
        if errors is not None and (wrong or spurious or missed):
            errors.mkdir(parents=True, exist_ok=True)
            for d, _ in ok:
                cv2.rectangle(img, [int(v) for v in d.box[:2]], [int(v) for v in d.box[2:]], (0, 200, 0), 1)
            for d, t_ in wrong:
                cv2.rectangle(img, [int(v) for v in d.box[:2]], [int(v) for v in d.box[2:]], (0, 0, 255), 2)
                cv2.putText(img, f"{d.face}/{t_['face']}", [int(d.box[0]), int(d.box[1]) - 3], 0, 0.5, (0, 0, 255), 2)
            for d in spurious:
                cv2.rectangle(img, [int(v) for v in d.box[:2]], [int(v) for v in d.box[2:]], (255, 0, 255), 2)
            for t_ in missed:
                cv2.rectangle(img, [int(v) for v in t_["box"][:2]], [int(v) for v in t_["box"][2:]], (255, 128, 0), 2)
            cv2.imwrite(str(errors / path.name), img)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"part": part, "photos": len(times), "labelled_dice": tp + fn,
            "tp": tp, "wrong_face": wrong_face, "fp": fp, "fn": fn,
            "precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
            "ms_p50": round(float(np.percentile(times, 50)), 1) if times else None,
            "ms_p99": round(float(np.percentile(times, 99)), 1) if times else None,
            "confusion": confusion.tolist()}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--part", choices=PARTS, default="val")
    ap.add_argument("--iou", type=float, default=0.5)
    ap.add_argument("--errors", type=Path, help="write photos with mistakes drawn into this folder")
    ap.add_argument("--models", type=Path, help="folder with dice_detect.onnx and dice_face.onnx")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not (args.data / "images").is_dir():
        ap.error(f"{args.data} has no images/ folder")
    res = evaluate(args.data, args.part, args.iou, args.errors, args.models)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"{res['photos']} photos ({res['part']}), box IoU >= {args.iou} and same face: "
              f"precision {res['precision']:.4f}, recall {res['recall']:.4f}, F1 {res['f1']:.4f}")
        print(f"  {res['tp']} right, {res['wrong_face']} wrong face, {res['fp'] - res['wrong_face']} spurious, "
              f"{res['fn'] - res['wrong_face']} missed; {res['ms_p50']} ms per photo p50, {res['ms_p99']} p99")
        print("  confusion (rows: labelled face, 0 = not labelled; columns: read face, 0 = not read):")
        for i, row in enumerate(res["confusion"]):
            print(f"    {i}: " + " ".join(f"{v:4d}" for v in row))
