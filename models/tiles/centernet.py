"""What both detector recipes share: targets, loss and the holdout check of a CenterNet-style
one-class detector (see nets.TileDetector).

* `visible`: which warped boxes a view shows well enough to be taught, and which it cuts
  (their area is masked out of the loss rather than taught as background);
* `make_targets`: Gaussian centre peaks, log box size and sub-cell offset at stride 4;
* `centernet_loss`: focal loss on the peaks, L1 on the offset, and L1 on log size that is
  asymmetric for loose boxes;
* `holdout_f1`: centre-matched F1 on the holdout sets, printed while training;
* `add_training_args`, `train_step`, `end_epoch`: the command line, the optimiser step and the
  per-epoch report and checkpoint that both training scripts run.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from common import DEFAULT_DATA
from nets import DET_STRIDE, DetectorExport


def visible(boxes: np.ndarray, out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boxes clipped to an out x out view, mask of those taught, mask of those cut off)."""
    cb = np.clip(boxes, 0, out)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    carea = (cb[:, 2] - cb[:, 0]) * (cb[:, 3] - cb[:, 1])
    keep = (carea > 0.6 * area) & (cb[:, 2] - cb[:, 0] > 3) & (cb[:, 3] - cb[:, 1] > 3)
    return cb, keep, (carea > 0) & ~keep


def make_targets(boxes: np.ndarray, tight: np.ndarray, ignore: np.ndarray, out: int):
    """Targets on an out x out grid (the view's size / DET_STRIDE): heat, loss mask, size, offset, reg.

    `tight` says per box whether its size can be trusted both ways (reg 1) or is loose (reg 2).
    """
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


def centernet_loss(pred, heat, mask, size, off, reg):
    ph, ps, po = pred
    p = torch.sigmoid(ph[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat == 1).float()
    neg = (1 - pos) * mask
    n = pos.sum().clamp(min=1)
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + neg * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p)).sum() / n
    tight, loose = (reg == 1).float().unsqueeze(1), (reg == 2).float().unsqueeze(1)
    d = ps - size
    # loose labels (Roboflow's rotated copies) are never too small: an over-estimate of them
    # costs 4x an under-estimate, so the size head learns the tight size of unrotated copies
    l_size = (d.abs() * tight + torch.where(d > 0, d, -0.25 * d) * loose).sum() / n
    r = (reg > 0).float().unsqueeze(1)
    l_off = (F.l1_loss(po, off, reduction="none") * r).sum() / n
    return focal + l_size + l_off, (focal.item(), l_size.item(), l_off.item())


def holdout_f1(net, sets, size: int, threshold: float = 0.4) -> dict[str, float]:
    """Centre-matched F1 of the detector on the holdout sets, each photo read whole at `size`."""
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
                x = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
                x = torch.from_numpy(x.transpose(2, 0, 1)[None].astype(np.float32) / 255.0)
                heat, sz, offset = (o.numpy() for o in exp(x))
                b, s = decode_detections(heat, sz, offset, threshold, w / size, h / size)
                if len(b):
                    b = b[nms(b, s)]
                hh, pp, tt = centre_counts(b, boxes, ignore)
                hits, pred, truth = hits + hh, pred + pp, truth + tt
            p, r = hits / max(pred, 1), hits / max(truth, 1)
            res[name] = 2 * p * r / max(p + r, 1e-9)
    net.train()
    return res


def add_training_args(ap: argparse.ArgumentParser, epochs: int) -> None:
    """The options both detector scripts take."""
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=4, help="holdout F1 every N epochs (0: only at the end)")
    ap.add_argument("--init", default=None, help="start from these weights (a second, shorter cycle)")
    ap.add_argument("--limit", type=int, default=0, help="use only N train photos (a quick smoke run)")
    ap.add_argument("--out", default="tiles-det.pt")


def train_step(net, opt, sched, x: torch.Tensor, targets) -> tuple[float, np.ndarray]:
    """One optimiser step on a batch: (loss, its heat / size / offset parts)."""
    loss, parts = centernet_loss(net(x), *targets)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
    opt.step()
    sched.step()
    return loss.item(), np.array(parts)


def end_epoch(net, args, ep: int, losses: list[float], parts: np.ndarray, started: float, sets, size: int) -> None:
    """Print the epoch's mean losses (and the holdout F1 every `--eval-every` epochs) and save."""
    n = max(len(losses), 1)
    msg = (f"epoch {ep + 1}/{args.epochs} loss {sum(losses) / n:.3f} (heat {parts[0] / n:.3f} "
           f"size {parts[1] / n:.3f} off {parts[2] / n:.3f}) {time.time() - started:.0f}s")
    if ep + 1 == args.epochs or (args.eval_every and (ep + 1) % args.eval_every == 0):
        msg += " | centre F1 " + " ".join(f"{k} {v:.3f}" for k, v in holdout_f1(net, sets, size).items())
    print(msg, flush=True)
    torch.save(net.state_dict(), args.out)
