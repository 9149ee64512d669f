"""Train the 42-kind tile crop classifier on the real photos' train split (CPU is enough).

    python models/tiles/train_classifier.py --epochs 20 --out /tmp/tiles-cls.pt

Each true box is cut out with random shift/scale/small rotation and a random quarter turn
(players' tiles lie sideways and upside down), resized to 48x48, colour-jittered, and
sometimes squeezed along one axis and stretched back (the resolution a tile keeps in a
photo that Roboflow stretched to a square, see augment.py). The same crop geometry
(box + 6 % margin, stretched to a square) is used at run time.

`--boxes FILE` (from rebox.py) replaces each label's box by the detector's box for the same
tile where they agree: the crops are then cut as at run time, and the loose, shifted boxes
of rotated train copies no longer teach the classifier to look past the tile.
"""

from __future__ import annotations

import argparse
import math
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from augment import squeeze
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
    def __init__(self, items, seed: int, train: bool, reboxed: dict | None = None, images=None):
        self.images = images if images is not None else [cv2.imread(str(it.path)) for it in items]
        self.samples = []
        for i, it in enumerate(items):
            boxes = it.boxes
            if reboxed is not None and it.path.name in reboxed:
                boxes = reboxed[it.path.name]
            self.samples += [(i, b, int(c)) for b, c in zip(boxes, it.classes)]
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
            crop = photometric(squeeze(crop, rng), rng)
        return torch.from_numpy(crop.transpose(2, 0, 1).astype(np.float32) / 255.0), c


def evaluate(net, ds) -> float:
    net.eval()
    right = n = 0
    with torch.no_grad():
        for x, y in torch.utils.data.DataLoader(ds, batch_size=256):
            right += (net(x).argmax(1) == y).sum().item()
            n += len(y)
    return right / max(n, 1)


def holdout_sets(data, seed):
    import holdout

    out = {"holdout": CropData(load_train(data, holdout=True), seed, train=False)}
    from pathlib import Path

    from companion.vision.tiles.dataset import LabelledImage

    s = holdout.load(data, "holdout-stretched")
    items = [LabelledImage(Path(f"stretched-{i}"), boxes, classes) for i, (_, boxes, classes, _) in enumerate(s)]
    out["holdout-stretched"] = CropData(items, seed, train=False, images=[x[0] for x in s])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", default=None, help="start from these weights (a second, shorter cycle)")
    ap.add_argument("--boxes", default=None, help="re-boxed train labels from rebox.py (.npz)")
    ap.add_argument("--out", default="tiles-cls.pt")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    reboxed = None
    if args.boxes:
        with np.load(args.boxes) as z:
            reboxed = {k: z[k] for k in z.files}
    ds = CropData(load_train(args.data), args.seed, train=True, reboxed=reboxed)
    holds = holdout_sets(args.data, args.seed)
    print(f"{len(ds)} train crops ({'re-boxed' if reboxed else 'label boxes'}), "
          + ", ".join(f"{len(v)} {k} crops" for k, v in holds.items()), flush=True)
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
        accs = " ".join(f"{k} acc {evaluate(net, v):.4f}" for k, v in holds.items())
        print(f"epoch {ep + 1}/{args.epochs} loss {tot / nb:.3f} {accs} {time.time() - t0:.0f}s", flush=True)
        torch.save(net.state_dict(), args.out)


if __name__ == "__main__":
    main()
