"""Train the general detector that taught sets of unknown designs are read with
(`tile_detector_general.onnx`; CPU is enough, about 25-30 min on two quiet cores).

    python models/tiles/train_general_detector.py --epochs 32 --seed 4 --out /tmp/det32.pt
    python models/tiles/export_onnx.py --general /tmp/det32.pt

Each training view is a random affine of a train photo (quarter turns, mirror, sometimes a
small tilt, zoom, and an anisotropic stretch, see augment.py) plus photometric jitter:
three batches in four are 320x320 views of a few tiles; one in four is a 448x448 view
(the run-time input size), strongly stretched more often, so that tiles stretched across
the whole frame are seen whole. A share of views comes from synthetic table scenes drawn
with procedural "abstract" tile art (never the riichi art, which stays unseen for
measuring "teach your set"), whose boxes are exact.

Loss: CenterNet focal loss on Gaussian centre peaks, L1 on the sub-cell offset, and L1 on
log box size. Box labels of the augmented train copies that Roboflow rotated by a free
angle are loose (the box around a rotated box), so for those the size loss is asymmetric
(an over-estimate costs 4x an under-estimate); polygon labels, copies without a free
rotation (no black corners) and synthetic scenes have tight boxes and get a plain L1.
Progress (losses, time, holdout centre F1 every few epochs) is printed per epoch.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np
import torch
from augment import transform_boxes, view_matrix
from centernet import add_training_args, end_epoch, make_targets, train_step, visible
from common import load_train, photometric, rotated_copy
from nets import DET_STRIDE, GENERAL_DET_SIZE, TileDetector

SMALL_VIEW, BIG_VIEW, BIG_SHARE = 320, GENERAL_DET_SIZE, 0.25


class Source:
    """One training photo or synthetic scene: image, boxes, per-box tightness."""

    def __init__(self, img, boxes, tight):
        self.img, self.boxes, self.tight = img, np.asarray(boxes, np.float32).reshape(-1, 4), np.asarray(tight, bool)
        wh = self.boxes[:, 2:] - self.boxes[:, :2]
        self.tile_wh = np.median(wh, 0) if len(wh) else np.float32([40, 55])


def real_sources(items) -> list[Source]:
    out = []
    for it in items:
        img = cv2.imread(str(it.path))
        loose = rotated_copy(img)
        out.append(Source(img, it.boxes, it.polygon | (not loose)))
    return out


def synthetic_sources(n: int, seed: int) -> list[Source]:
    """Table scenes of abstract-art tiles (exact boxes); see companion.vision.tiles.synth."""
    from companion.vision.tiles.synth import table_scene

    rng = np.random.default_rng((seed, 7))
    out = []
    for _ in range(n):
        img, boxes, _ = table_scene(rng, art="abstract")
        out.append(Source(img, boxes, np.ones(len(boxes), bool)))
    return out




def make_view(src: Source, rng: np.random.Generator, out: int):
    """One augmented view of a source and its targets."""
    if len(src.boxes):
        j = int(rng.integers(len(src.boxes)))
        centre = (src.boxes[j, :2] + src.boxes[j, 2:]) / 2
    else:
        centre = np.float32(src.img.shape[1::-1]) / 2
    big = out == BIG_VIEW
    m = view_matrix(rng, centre, src.tile_wh, out, size_range=(18.0, 150.0) if big else (14.0, 110.0),
                    max_side=1.0 if big else 0.85, strong_p=0.6 if big else 0.2)
    tilted = abs(m[0, 1] * m[1, 0]) > 1e-9 and abs(m[0, 0] * m[1, 1]) > 1e-9  # not a quarter turn
    border = tuple(int(v) for v in rng.integers(0, 255, 3)) if rng.random() < 0.5 else (0, 0, 0)
    img = cv2.warpAffine(src.img, m, (out, out), flags=cv2.INTER_LINEAR, borderValue=border)
    img = photometric(img, rng)
    cb, keep, ignore = visible(transform_boxes(src.boxes, m), out)
    tight = src.tight & (not tilted)
    t = make_targets(cb[keep], tight[keep], cb[ignore], out // DET_STRIDE)
    return img, t


def batch_of(sources, idx, rng, out):
    xs, ts = [], []
    for i in idx:
        img, t = make_view(sources[i], rng, out)
        xs.append(img.transpose(2, 0, 1))
        ts.append(t)
    x = torch.from_numpy(np.stack(xs).astype(np.float32) / 255.0)
    return (x, *(torch.from_numpy(np.stack(a)) for a in zip(*ts)))






def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_training_args(ap, epochs=32)
    ap.add_argument("--warmup", type=float, default=0.05, help="share of the steps spent warming up the LR")
    ap.add_argument("--synthetic", type=int, default=300, help="synthetic abstract-art scenes mixed into each epoch")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    sources = real_sources(load_train(args.data)[:args.limit or None])
    n_real = len(sources)
    sources += synthetic_sources(args.synthetic, args.seed)
    import holdout

    sets = {name: holdout.load(args.data, name)[:args.limit or None] for name in ("holdout", "holdout-stretched")}
    print(f"{n_real} train photos ({sum(int(s.tight.all()) for s in sources[:n_real])} with tight boxes), "
          f"{args.synthetic} synthetic scenes; holdout {len(sets['holdout'])} photos; "
          f"set-up {time.time() - t0:.0f}s", flush=True)
    net = TileDetector(deep=True)
    if args.init:  # layers the earlier net lacked (e.g. the stride-64 level) start fresh
        missing, _ = net.load_state_dict(torch.load(args.init, map_location="cpu"), strict=False)
        print(f"started from {args.init}; new layers: {sorted({k.split('.')[0] for k in missing}) or 'none'}", flush=True)
    net = net.to(memory_format=torch.channels_last)  # faster convolutions on CPU
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = len(sources) // args.batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.epochs * per_epoch, pct_start=args.warmup)
    for ep in range(args.epochs):
        rng = np.random.default_rng((args.seed, ep))
        order = rng.permutation(len(sources))
        t1, losses, parts = time.time(), [], np.zeros(3)
        net.train()
        for b in range(per_epoch):
            out = BIG_VIEW if rng.random() < BIG_SHARE else SMALL_VIEW
            x, *tg = batch_of(sources, order[b * args.batch:(b + 1) * args.batch], rng, out)
            loss, p = train_step(net, opt, sched, x.contiguous(memory_format=torch.channels_last), tg)
            losses.append(loss)
            parts += p
        end_epoch(net, args, ep, losses, parts, t1, sets, GENERAL_DET_SIZE)

if __name__ == "__main__":
    main()
