"""Train the 42-kind tile crop classifier on the real photos' train split (CPU is enough).

    python models/tiles/train_classifier.py --data DATA_DIR --epochs 24 --out /tmp/tiles-cls.pt

Each true box is cut out with random shift/scale/small rotation and a random quarter turn
(players' tiles lie sideways and upside down), resized to 48x48, colour-jittered.
The same crop geometry (box + 6 % margin, stretched to a square) is used at run time.
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
from nets import CLS_SIZE, TileClassifier

MARGIN = 0.06


def crop_matrix(box, size: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """2x3 affine taking the (jittered) box plus margin onto a size x size square."""
    x1, y1, x2, y2 = box
    cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) * (1 + 2 * MARGIN), (y2 - y1) * (1 + 2 * MARGIN)
    ang, k = 0.0, 0
    if rng is not None:
        cx += rng.uniform(-0.08, 0.08) * w
        cy += rng.uniform(-0.08, 0.08) * h
        w *= math.exp(rng.uniform(-0.15, 0.15))
        h *= math.exp(rng.uniform(-0.15, 0.15))
        ang = rng.uniform(-12, 12) if rng.random() < 0.4 else 0.0
        k = int(rng.integers(4))
    src = np.float32([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2]])
    dst = np.float32([[0, 0], [size, 0], [size, size]])
    m = cv2.getAffineTransform(src, dst)
    if ang or k:
        r = cv2.getRotationMatrix2D((size / 2, size / 2), ang + 90 * k, 1.0)
        m = np.hstack([r[:, :2] @ m[:, :2], r[:, :2] @ m[:, 2:] + r[:, 2:]])
    return m


class CropData(torch.utils.data.Dataset):
    def __init__(self, items, seed: int, train: bool):
        self.images = [cv2.imread(str(it.path)) for it in items]
        self.samples = [(i, b, int(c)) for i, it in enumerate(items) for b, c in zip(it.boxes, it.classes)]
        self.seed, self.train, self.epoch = seed, train, 0

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, j):
        i, box, c = self.samples[j]
        rng = np.random.default_rng((self.seed, self.epoch, j)) if self.train else None
        m = crop_matrix(box, CLS_SIZE, rng)
        crop = cv2.warpAffine(self.images[i], m, (CLS_SIZE, CLS_SIZE), flags=cv2.INTER_AREA if rng is None else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        if rng is not None:
            crop = photometric(crop, rng)
        return torch.from_numpy(crop.transpose(2, 0, 1).astype(np.float32) / 255.0), c


def evaluate(net, ds) -> float:
    net.eval()
    right = n = 0
    with torch.no_grad():
        for x, y in torch.utils.data.DataLoader(ds, batch_size=256):
            right += (net(x).argmax(1) == y).sum().item()
            n += len(y)
    return right / max(n, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", default=None, help="start from these weights (a second, shorter cycle)")
    ap.add_argument("--out", default="tiles-cls.pt")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    ds = CropData(load_train(args.data), args.seed, train=True)
    hold = CropData(load_train(args.data, holdout=True), args.seed, train=False)
    print(f"{len(ds)} train crops, {len(hold)} holdout crops", flush=True)
    net = TileClassifier()
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    steps = args.epochs * (len(ds) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps, pct_start=0.1)
    for ep in range(args.epochs):
        ds.epoch = ep
        net.train()
        t0, tot, nb = time.time(), 0.0, 0
        for x, y in torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, drop_last=True,
                                                generator=torch.Generator().manual_seed(ep)):
            loss = F.cross_entropy(net(x), y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot, nb = tot + loss.item(), nb + 1
        acc = evaluate(net, hold)
        print(f"epoch {ep + 1}/{args.epochs} loss {tot / nb:.3f} holdout acc {acc:.4f} {time.time() - t0:.0f}s", flush=True)
        torch.save(net.state_dict(), args.out)


if __name__ == "__main__":
    main()
