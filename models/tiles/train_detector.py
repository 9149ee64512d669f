"""Train the one-class tile-face detector (CPU is enough; about 1.5-3 h on two cores).

    python models/tiles/train_detector.py --epochs 32 --out /tmp/tiles-det.pt

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
import math
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from augment import transform_boxes, view_matrix
from common import DEFAULT_DATA, load_train, photometric, rotated_copy
from nets import DET_SIZE, DET_STRIDE, DetectorExport, TileDetector

SMALL_VIEW, BIG_VIEW, BIG_SHARE = 320, DET_SIZE, 0.25


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


def make_targets(boxes: np.ndarray, tight: np.ndarray, ignore: np.ndarray, out: int):
    heat = np.zeros((out, out), np.float32)
    mask = np.ones((out, out), np.float32)  # 0 where a half-visible tile makes the label unsure
    size = np.zeros((2, out, out), np.float32)
    off = np.zeros((2, out, out), np.float32)
    reg = np.zeros((out, out), np.float32)   # 1: tight box, 2: loose box, 0: no centre
    ys, xs = np.mgrid[0:out, 0:out]
    for b in ignore / DET_STRIDE:
        x1, y1, x2, y2 = np.clip(b, 0, out - 1).astype(int)
        mask[y1:y2 + 1, x1:x2 + 1] = 0
    for b, t in zip(boxes / DET_STRIDE, tight):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        w, h = max(b[2] - b[0], 1.0), max(b[3] - b[1], 1.0)
        ix, iy = min(int(cx), out - 1), min(int(cy), out - 1)
        sx, sy = max(w / 6, 0.6), max(h / 6, 0.6)
        g = np.exp(-((xs - ix) ** 2 / (2 * sx * sx) + (ys - iy) ** 2 / (2 * sy * sy)))
        np.maximum(heat, g, out=heat)
        heat[iy, ix] = 1.0
        mask[iy, ix] = 1.0
        size[:, iy, ix] = np.log([w, h])
        off[:, iy, ix] = [cx - ix, cy - iy]
        reg[iy, ix] = 1.0 if t else 2.0
    return heat, mask, size, off, reg


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
    nb = transform_boxes(src.boxes, m)
    cb = np.clip(nb, 0, out)
    area = (nb[:, 2] - nb[:, 0]) * (nb[:, 3] - nb[:, 1])
    carea = (cb[:, 2] - cb[:, 0]) * (cb[:, 3] - cb[:, 1])
    keep = (carea > 0.6 * area) & (cb[:, 2] - cb[:, 0] > 3) & (cb[:, 3] - cb[:, 1] > 3)
    ignore = (carea > 0) & ~keep
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


def centernet_loss(pred, heat, mask, size, off, reg):
    ph, ps, po = pred
    p = torch.sigmoid(ph[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat == 1).float()
    neg = (1 - pos) * mask
    n = pos.sum().clamp(min=1)
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + neg * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p)).sum() / n
    tight, loose = (reg == 1).float().unsqueeze(1), (reg == 2).float().unsqueeze(1)
    d = ps - size
    # loose labels are never too small: an over-estimate of them costs 4x an under-estimate
    l_size = ((d.abs() * tight + torch.where(d > 0, d, -0.25 * d) * loose)).sum() / n
    r = (reg > 0).float().unsqueeze(1)
    l_off = (F.l1_loss(po, off, reduction="none") * r).sum() / n
    return focal + l_size + l_off, (focal.item(), l_size.item(), l_off.item())


def holdout_f1(net, sets, threshold: float = 0.4) -> dict[str, float]:
    """Centre-matched F1 of the detector on the holdout sets at the run-time input size."""
    from holdout import centre_counts

    from companion.vision.tiles.recognizer import decode_detections, nms

    net.eval()
    exp = DetectorExport(net).eval()
    res = {}
    with torch.no_grad():
        for name, items in sets.items():
            hits = pred = truth = 0
            for img, boxes, _, ignore in items:
                h, w = img.shape[:2]
                x = cv2.resize(img, (DET_SIZE, DET_SIZE), interpolation=cv2.INTER_AREA)
                x = torch.from_numpy(x.transpose(2, 0, 1)[None].astype(np.float32) / 255.0)
                heat, size, offset = (o.numpy() for o in exp(x))
                b, s = decode_detections(heat, size, offset, threshold, w / DET_SIZE, h / DET_SIZE)
                if len(b):
                    b = b[nms(b, s)]
                hh, pp, tt = centre_counts(b, boxes, ignore)
                hits, pred, truth = hits + hh, pred + pp, truth + tt
            p, r = hits / max(pred, 1), hits / max(truth, 1)
            res[name] = 2 * p * r / max(p + r, 1e-9)
    net.train()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--epochs", type=int, default=32)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=float, default=0.05, help="share of the steps spent warming up the LR")
    ap.add_argument("--synthetic", type=int, default=300, help="synthetic abstract-art scenes mixed into each epoch")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=4, help="holdout F1 every N epochs (0: only at the end)")
    ap.add_argument("--init", default=None, help="start from these weights (a second, shorter cycle)")
    ap.add_argument("--limit", type=int, default=0, help="use only N train photos (a quick smoke run)")
    ap.add_argument("--out", default="tiles-det.pt")
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
    net = TileDetector()
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
        t1, tot, parts = time.time(), 0.0, np.zeros(3)
        net.train()
        for b in range(per_epoch):
            out = BIG_VIEW if rng.random() < BIG_SHARE else SMALL_VIEW
            x, *tg = batch_of(sources, order[b * args.batch:(b + 1) * args.batch], rng, out)
            loss, p = centernet_loss(net(x.contiguous(memory_format=torch.channels_last)), *tg)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
            opt.step()
            sched.step()
            tot += loss.item()
            parts += p
        msg = (f"epoch {ep + 1}/{args.epochs} loss {tot / per_epoch:.3f} (heat {parts[0] / per_epoch:.3f} "
               f"size {parts[1] / per_epoch:.3f} off {parts[2] / per_epoch:.3f}) {time.time() - t1:.0f}s")
        if ep + 1 == args.epochs or (args.eval_every and (ep + 1) % args.eval_every == 0):
            f1 = holdout_f1(net, sets)
            msg += " | centre F1 " + " ".join(f"{k} {v:.3f}" for k, v in f1.items())
        print(msg, flush=True)
        torch.save(net.state_dict(), args.out)


if __name__ == "__main__":
    main()
