"""Train the loose-tile model (`companion/vision/loose.py`) on rendered tables.

    python models/walls/train_loose.py data --seed 100000 --count 6000 --out models/walls/build/loose_100000.npz
    python models/walls/train_loose.py train models/walls/build/loose_*.npz --steps 12000 --batch 128 --seed 2 --hard-weight 2.5

(the shipped model's recipe, all its data runs and the block kept out to compare on: models/walls/README.md)

`data` renders random table scenes of the lift style with their loose tiles (R19; scene seeds
from 100 000 up, far from the benchmark's), reads the walls as `scene.analyse` does and keeps the
model's input for every stack near the gaps, labelled from the scene's truth. Scenes whose
standing stacks are read wrong are left out (their stack numbers cannot be trusted).
`train` fits `LooseNet` (binary cross-entropy, AdamW, one-cycle), prints the error rates on
a tenth of the scenes kept back, and exports `companion/vision/loose_weights/loose.onnx`.
PyTorch is needed for training only (`pip install torch onnx`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from companion.vision import loose
from companion.vision.render.scenes import LEVELS


def make_data(first: int, count: int, out: Path) -> None:
    from companion.vision.calibrate import from_markers
    from companion.vision.geometry import TableLayout
    from companion.vision.render.draw import render
    from companion.vision.render.scenes import random_scene, scene_variant
    from companion.vision.scene import SceneSettings, side_seats
    from companion.vision.walls import read_walls

    xs, ys, groups = [], [], []
    tried = kept = 0
    t0 = time.time()
    for seed in range(first, first + count):
        level = LEVELS[seed % len(LEVELS)]
        sc = random_scene(seed, level)
        t = sc.truth
        if not t.get("loose") or t["break"] is None:
            continue
        tried += 1
        image, _ = render(sc)
        cal = from_markers(image)
        if cal is None or not cal.calibrated:
            continue
        variant = scene_variant(t["variant"])
        layout = TableLayout(cal.table_size, variant.stacks_per_wall, SceneSettings(variant).tile)
        seats = side_seats(t["dealer"], t["first_east_side"], variant.seating.direction)
        found: dict = {}
        readings = read_walls(image, cal, layout, loose_inputs=found)
        standing = {seats[side]: [k for k, h in enumerate(r.heights, 1) if h > 0] for side, r in readings.items()}
        if any(standing[seat] != t["walls"][seat] for seat in standing):
            continue
        kept += 1
        truth = {tuple(x) for x in t["loose"]}
        for (side, k), x in found.items():
            xs.append(x.astype(np.float16))
            ys.append((seats[side], k) in truth)
            groups.append(seed)
        if kept % 50 == 0:
            print(f"  seed {seed}: {kept} scenes kept of {tried}, {len(ys)} stacks, {sum(ys)} with a tile, "
                  f"{time.time() - t0:.0f} s", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.stack(xs), y=np.array(ys, np.uint8), seed=np.array(groups))
    print(f"{out}: {kept} scenes of {tried} ({len(ys)} stacks, {sum(ys)} with a tile)")


def build_net():
    import torch
    from torch import nn

    def cbr(cin: int, cout: int, s: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, s, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class LooseNet(nn.Module):
        """48 × 32 × 7 → one logit: a tile lies on the stack."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(cbr(loose.CHANNELS, 24), cbr(24, 32, 2), cbr(32, 32),  # 24 × 16
                                          cbr(32, 48, 2), cbr(48, 48),  # 12 × 8
                                          cbr(48, 64, 2), cbr(64, 64))  # 6 × 4
            self.head = nn.Linear(64, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x).mean(dim=(2, 3)))

    return LooseNet()


def train(files: list[Path], steps: int, batch: int, lr: float, seed: int, out: Path, hard_weight: float = 1.0) -> None:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    parts = [np.load(f) for f in files]
    x = np.concatenate([p["x"] for p in parts]).astype(np.float32)
    y = np.concatenate([p["y"] for p in parts]).astype(np.float32)
    g = np.concatenate([p["seed"] for p in parts])
    held = np.isin(g, np.unique(g)[::10])  # a tenth of the scenes kept back
    tr, va = np.flatnonzero(~held), np.flatnonzero(held)
    pos, neg = tr[y[tr] == 1], tr[y[tr] == 0]
    # a scene's level follows from its seed (`make_data`); the hard one's stacks drawn `hard_weight` × as often
    # (None at 1: uniform draws as before the option, so that older recipes give the same model)
    weight = np.where(g % len(LEVELS) == LEVELS.index("hard"), hard_weight, 1.0)
    p_pos, p_neg = (None, None) if hard_weight == 1 else (weight[pos] / weight[pos].sum(), weight[neg] / weight[neg].sum())
    print(f"{len(tr)} stacks to train on ({len(pos)} with a tile), {len(va)} kept back ({int(y[va].sum())} with a tile)")
    net = build_net()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    t0 = time.time()
    for step in range(1, steps + 1):
        net.train()
        idx = np.concatenate([rng.choice(pos, batch // 3, p=p_pos), rng.choice(neg, batch - batch // 3, p=p_neg)])
        xb = torch.from_numpy(x[idx].copy())
        if rng.random() < 0.5:  # along the wall either way round
            xb = xb.flip(3)
        xb[:, :6] *= torch.from_numpy(rng.uniform(0.85, 1.15, (len(idx), 6, 1, 1)).astype(np.float32))
        xb[:, :6] += torch.from_numpy(rng.normal(0, 0.03, (len(idx), 6, 1, 1)).astype(np.float32))
        loss = F.binary_cross_entropy_with_logits(net(xb).squeeze(1), torch.from_numpy(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 250 == 0 or step == steps:
            print(f"  step {step}/{steps}: loss {loss.item():.4f}, {time.time() - t0:.0f} s", flush=True)
    net.eval()
    with torch.no_grad():
        p = torch.sigmoid(torch.cat([net(torch.from_numpy(x[va[i:i + 512]])) for i in range(0, len(va), 512)])).squeeze(1).numpy()
    for thr in (0.3, 0.5, 0.7):
        miss = float(np.mean(p[y[va] == 1] < thr))
        false = float(np.mean(p[y[va] == 0] >= thr))
        print(f"kept back, P >= {thr}: {miss:.2%} of the loose tiles missed, {false:.2%} of the other stacks taken for one")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, loose.CHANNELS, loose.PATCH_ROWS, loose.PATCH_COLS), str(out),
                      input_names=["patch"], output_names=["logit"], dynamic_axes={"patch": {0: "n"}, "logit": {0: "n"}},
                      opset_version=17, dynamo=False)
    print(f"wrote {out}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="render scenes and keep the model's inputs")
    d.add_argument("--seed", type=int, default=100_000, help="first scene seed")
    d.add_argument("--count", type=int, default=6000, help="scenes to draw (about a third have loose tiles)")
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train", help="train and export the model")
    t.add_argument("files", type=Path, nargs="+")
    t.add_argument("--steps", type=int, default=5000)
    t.add_argument("--batch", type=int, default=128)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--seed", type=int, default=2)
    t.add_argument("--hard-weight", type=float, default=1.0,
                   help="draw the stacks of hard-level scenes this many times as often as the others")
    t.add_argument("--out", type=Path, default=loose.MODEL_FILE)
    a = ap.parse_args()
    if a.cmd == "data":
        make_data(a.seed, a.count, a.out)
    else:
        train(a.files, a.steps, a.batch, a.lr, a.seed, a.out, a.hard_weight)
