"""Train the shipped tile-face detector (`tile_detector.onnx`) on the real photos' train split.

    python models/tiles/train_detector.py --epochs 30 --out /tmp/tiles-det.pt
    python models/tiles/train_detector.py --init /tmp/tiles-det.pt --epochs 16 --lr 1.5e-3 --out /tmp/det2.pt
    python models/tiles/export_onnx.py --det /tmp/det2.pt

CPU is enough: an epoch takes about 40 s on two quiet cores. Each view is a whole train photo
warped to DET_SIZE x DET_SIZE by `augment.zoom_matrix` (zoom 0.6-2x, shift, mirror, quarter
turns, small tilts) plus photometric jitter. Loss (centernet.py): focal loss on Gaussian
centre peaks, L1 on the sub-cell offset, and an asymmetric L1 on log box size for every box,
because the augmented train copies carry loose boxes. The holdout's centre F1 is printed every
few epochs. The general detector for taught sets has its own recipe
(`train_general_detector.py`).
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np
import torch
from augment import transform_boxes, zoom_matrix
from centernet import add_training_args, end_epoch, make_targets, train_step, visible
from common import load_train, photometric
from nets import DET_SIZE, DET_STRIDE, TileDetector


class DetData(torch.utils.data.Dataset):
    """The train photos, each drawn as one random view per epoch (seeded by seed, epoch, index)."""

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
        m = zoom_matrix(rng, img.shape[0], DET_SIZE)
        border = tuple(int(v) for v in rng.integers(0, 255, 3)) if rng.random() < 0.5 else (0, 0, 0)
        out = cv2.warpAffine(img, m, (DET_SIZE, DET_SIZE), flags=cv2.INTER_LINEAR, borderValue=border)
        out = photometric(out, rng)
        cb, keep, ignore = visible(transform_boxes(self.items[i].boxes, m), DET_SIZE)
        t = make_targets(cb[keep], np.zeros(int(keep.sum()), bool), cb[ignore], DET_SIZE // DET_STRIDE)
        x = torch.from_numpy(out.transpose(2, 0, 1).astype(np.float32) / 255.0)
        return (x, *(torch.from_numpy(a) for a in t))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_training_args(ap, epochs=30)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    import holdout

    items = load_train(args.data)[:args.limit or None]
    ds = DetData(items, args.seed)
    sets = {name: holdout.load(args.data, name)[:args.limit or None] for name in ("holdout", "holdout-stretched")}
    print(f"{len(items)} train images; holdout {len(sets['holdout'])} photos", flush=True)
    net = TileDetector()
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(ds) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps, pct_start=0.05)
    for ep in range(args.epochs):
        ds.epoch = ep
        dl = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, drop_last=True,
                                         generator=torch.Generator().manual_seed(ep))
        t0, losses, parts = time.time(), [], np.zeros(3)
        net.train()
        for x, *tg in dl:
            loss, p = train_step(net, opt, sched, x, tg)
            losses.append(loss)
            parts += p
        end_epoch(net, args, ep, losses, parts, t0, sets, DET_SIZE)

if __name__ == "__main__":
    main()
