"""Train the one-class tile-face detector on the real photos' train split (CPU is enough).

    python models/tiles/train_detector.py --data DATA_DIR --epochs 30 --out /tmp/tiles-det.pt

Random zoom/shift/flip/rot90 affine to 384x384 plus photometric jitter; CenterNet loss
(focal loss on Gaussian centre peaks, L1 on sub-cell offset) with an asymmetric L1 on
log box size, because the augmented train copies carry loose boxes.
"""

from __future__ import annotations

import argparse
import math
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from common import DEFAULT_DATA, load_train, photometric
from nets import DET_SIZE, DET_STRIDE, TileDetector


def random_affine(rng: np.random.Generator, src: int, dst: int) -> np.ndarray:
    """2x3 matrix mapping a src x src image into dst x dst with zoom, shift, flips, rot90."""
    scale = dst / src * math.exp(rng.uniform(math.log(0.6), math.log(2.0)))
    k = int(rng.integers(4))
    ang = k * 90 + (rng.uniform(-10, 10) if rng.random() < 0.3 else 0.0)
    m = cv2.getRotationMatrix2D((src / 2, src / 2), ang, scale)
    if rng.random() < 0.5:
        m[0] *= -1
        m[0, 2] += 0  # flip around x=0; recentred below
    # recentre the image centre to a random point of the output
    c = m @ np.array([src / 2, src / 2, 1.0])
    target = np.array([dst / 2, dst / 2]) + rng.uniform(-0.3, 0.3, 2) * dst * max(scale * src / dst, 1.0)
    m[:, 2] += target - c
    return m


def transform_boxes(boxes: np.ndarray, m: np.ndarray, dst: int):
    pts = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [0, 3]], boxes[:, [2, 3]]], 1)  # N,4,2
    pts = pts @ m[:, :2].T + m[:, 2]
    nb = np.concatenate([pts.min(1), pts.max(1)], 1)
    area = (nb[:, 2] - nb[:, 0]) * (nb[:, 3] - nb[:, 1])
    cb = np.clip(nb, 0, dst)
    carea = (cb[:, 2] - cb[:, 0]) * (cb[:, 3] - cb[:, 1])
    keep = (carea > 0.6 * area) & (cb[:, 2] - cb[:, 0] > 3) & (cb[:, 3] - cb[:, 1] > 3)
    ignore = (carea > 0) & ~keep
    return cb[keep], cb[ignore]


def make_targets(boxes: np.ndarray, ignore: np.ndarray, out: int):
    heat = np.zeros((out, out), np.float32)
    mask = np.ones((out, out), np.float32)  # 0 where a half-visible tile makes the label unsure
    size = np.zeros((2, out, out), np.float32)
    off = np.zeros((2, out, out), np.float32)
    reg = np.zeros((out, out), np.float32)
    ys, xs = np.mgrid[0:out, 0:out]
    for b in ignore / DET_STRIDE:
        x1, y1, x2, y2 = np.clip(b, 0, out - 1).astype(int)
        mask[y1:y2 + 1, x1:x2 + 1] = 0
    for b in boxes / DET_STRIDE:
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
        reg[iy, ix] = 1.0
    return heat, mask, size, off, reg


class DetData(torch.utils.data.Dataset):
    def __init__(self, items, seed: int):
        self.items = items
        self.images = [cv2.imread(str(it.path)) for it in items]
        self.seed = seed
        self.epoch = 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        rng = np.random.default_rng((self.seed, self.epoch, i))
        img = self.images[i]
        m = random_affine(rng, img.shape[0], DET_SIZE)
        border = tuple(int(v) for v in rng.integers(0, 255, 3)) if rng.random() < 0.5 else (0, 0, 0)
        out = cv2.warpAffine(img, m, (DET_SIZE, DET_SIZE), flags=cv2.INTER_LINEAR, borderValue=border)
        out = photometric(out, rng)
        boxes, ignore = transform_boxes(self.items[i].boxes, m, DET_SIZE)
        t = make_targets(boxes, ignore, DET_SIZE // DET_STRIDE)
        x = torch.from_numpy(out.transpose(2, 0, 1).astype(np.float32) / 255.0)
        return (x, *(torch.from_numpy(a) for a in t))


def centernet_loss(pred, heat, mask, size, off, reg):
    ph, ps, po = pred
    p = torch.sigmoid(ph[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat == 1).float()
    neg = (1 - pos) * mask
    n = pos.sum().clamp(min=1)
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + neg * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p)).sum() / n
    r = reg.unsqueeze(1)
    # Boxes of the rotated/sheared train copies are loose (never too small), so an
    # over-estimate costs 4x an under-estimate: the size head learns a low quantile,
    # which is the tight size that unrotated copies show.
    d = ps - size
    l_size = (torch.where(d > 0, d, -0.25 * d) * r).sum() / n
    l_off = (F.l1_loss(po, off, reduction="none") * r).sum() / n
    return focal + l_size + l_off, (focal.item(), l_size.item(), l_off.item())


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", default=None, help="start from these weights (a second, shorter cycle)")
    ap.add_argument("--out", default="tiles-det.pt")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    items = load_train(args.data)
    ds = DetData(items, args.seed)
    print(f"{len(items)} train images", flush=True)
    net = TileDetector()
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * math.ceil(len(ds) / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps, pct_start=0.05)
    for ep in range(args.epochs):
        ds.epoch = ep
        dl = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, drop_last=True,
                                         generator=torch.Generator().manual_seed(ep))
        t0, tot, parts = time.time(), 0.0, np.zeros(3)
        net.train()
        for batch in dl:
            x, *tg = batch
            loss, p = centernet_loss(net(x), *tg)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
            opt.step()
            sched.step()
            tot += loss.item()
            parts += p
        nb = len(dl)
        print(f"epoch {ep + 1}/{args.epochs} loss {tot / nb:.3f} (heat {parts[0] / nb:.3f} size {parts[1] / nb:.3f} "
              f"off {parts[2] / nb:.3f}) {time.time() - t0:.0f}s", flush=True)
        torch.save(net.state_dict(), args.out)


if __name__ == "__main__":
    main()
