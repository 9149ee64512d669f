"""How the dice reader's box-and-face F1 on labelled real photos moves when the photos are changed.

    python models/dice/robustness.py DATA_DIR [--part val] [--only NAME ...] [--models DIR] [--json]

Each change is applied to every photo of `--part` (default: the held-out photos) before it is
read as `companion observe` reads an uncalibrated photo, and scored as `eval_real.py` scores
(IoU >= 0.5, faces agree): smaller and larger photos, darker and brighter ones, colour casts
of warm and cool light, a flatter tone curve, strong JPEG compression, an out-of-focus camera
and sensor noise. Some reach past what the shipped models were trained with (`train.CAMERA`,
"narrow": white balance 0.85–1.15 per channel, blur σ 0.3–1.2, JPEG quality 40–95), to show
where the reading starts to fall off. Prints the mistakes by kind too: a wrong face, a die read
where none is labelled, a die not found. Seeded: the same figures every run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from eval_real import match  # noqa: E402
from realdata import PARTS, photos  # noqa: E402

from companion.vision.dice import DiceReader  # noqa: E402

Change = tuple[Callable[[np.ndarray], np.ndarray], float]  # (the change, how it scales the boxes)


def _scale(f: float) -> Change:
    return (lambda im: cv2.resize(im, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)), f


def _gain(per_channel: tuple[float, float, float]) -> Change:
    g = np.array(per_channel, np.float32)
    return (lambda im: np.clip(im.astype(np.float32) * g, 0, 255).astype(np.uint8)), 1.0


def _gamma(g: float) -> Change:
    lut = np.array([255 * (i / 255) ** g for i in range(256)], np.uint8)
    return (lambda im: cv2.LUT(im, lut)), 1.0


def _jpeg(q: int) -> Change:
    return (lambda im: cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)), 1.0


def _blur(sigma: float) -> Change:
    return (lambda im: cv2.GaussianBlur(im, (0, 0), sigma)), 1.0


def _noise(sigma: float, seed: int = 1) -> Change:
    rng = np.random.default_rng(seed)
    return (lambda im: np.clip(im + rng.normal(0, sigma, im.shape), 0, 255).astype(np.uint8)), 1.0


#: name -> change; "as taken" first, the yardstick
CHANGES: dict[str, Change] = {
    "as taken": _gain((1, 1, 1)),
    "smaller x0.7": _scale(0.7),
    "larger x1.4": _scale(1.4),
    "darker x0.6": _gain((0.6, 0.6, 0.6)),
    "brighter x1.3": _gain((1.3, 1.3, 1.3)),
    "warm light": _gain((0.7, 0.95, 1.1)),  # BGR: less blue, more red (a tungsten lamp)
    "cool light": _gain((1.15, 1.0, 0.8)),  # more blue, less red (shade, a cold LED)
    "gamma 1.6": _gamma(1.6),
    "JPEG q50": _jpeg(50),
    "JPEG q35": _jpeg(35),
    "blur 1.0": _blur(1.0),
    "blur 1.5": _blur(1.5),
    "noise 8": _noise(8),
}


def score(reader: DiceReader, items: list[tuple[np.ndarray, list[dict]]], change: Change) -> dict:
    """True positives, false positives, false negatives and F1 of the reader on the changed photos,
    and the mistakes by kind: a die read with the wrong face (one false positive and one false
    negative), a die read where there is none, a die not found."""
    fn_, f = change
    tp = wrong = spurious = missed = 0
    for img, truth in items:
        want = [dict(t, box=[v * f for v in t["box"]]) for t in truth]
        r, w, s, m = match(reader.read(fn_(img)), want, 0.5)
        tp, wrong, spurious, missed = tp + len(r), wrong + len(w), spurious + len(s), missed + len(m)
    fp, fn = wrong + spurious, wrong + missed
    return {"tp": tp, "fp": fp, "fn": fn, "f1": round(2 * tp / max(1, 2 * tp + fp + fn), 4),
            "wrong_face": wrong, "spurious": spurious, "missed": missed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path, help="folder with images/ and labels/")
    ap.add_argument("--part", default="val", choices=PARTS)
    ap.add_argument("--only", nargs="+", choices=list(CHANGES), metavar="NAME", help="these changes alone")
    ap.add_argument("--models", type=Path, help="folder with dice_detect.onnx and dice_face.onnx (default: shipped)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    items = [(img, truth) for path, truth in photos(args.data, args.part) if (img := cv2.imread(str(path))) is not None]
    if not items:
        sys.exit(f"no labelled photos of part {args.part!r} under {args.data}")
    reader = DiceReader(args.models)
    out = {}
    for name in args.only or CHANGES:
        out[name] = score(reader, items, CHANGES[name])
        if not args.json:
            r = out[name]
            print(f"{name:14} F1 {r['f1']:.4f}  (right {r['tp']}, false {r['fp']}, missed {r['fn']}; "
                  f"wrong face {r['wrong_face']}, no die there {r['spurious']}, not found {r['missed']})", flush=True)
    if args.json:
        print(json.dumps({"part": args.part, "photos": len(items), "changes": out}, indent=1))


if __name__ == "__main__":
    main()
