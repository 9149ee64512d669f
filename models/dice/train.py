"""Train the dice reader's two models (CPU, or a CUDA GPU when there is one) and export them to ONNX.

    python models/dice/make_data.py                      # synthetic pictures → models/dice/build/
    python models/dice/train.py detector --real DATA     # → companion/vision/dice_weights/dice_detect.onnx
    python models/dice/train.py face --real DATA         # → companion/vision/dice_weights/dice_face.onnx
    python models/dice/train.py mine --real DATA --out M # M's models: hard negatives, found boxes → build/

DATA is a folder of labelled real photos (images/, labels/ in YOLO format, class = face − 1);
`--part train` (default) uses only the photos outside the validation blocks of `realdata.py`,
`--part all` every photo. Pictures are mixed from three sources: the real photos, the rendered
tray photos and the rendered table views, each heavily augmented (scale, quarter turns, mirror
images, hue and channel swaps, contrast, gamma, blur, noise, JPEG), so that dice of colours,
materials and lighting the real photos lack are still seen. Pre-processing (scaling, crops,
input normalisation, decoding) is imported from `companion.vision.dice`, so training and the
reader at run time cannot drift apart. Progress goes to stderr; seeded.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).parent))
from nets import Detector, FaceNet  # noqa: E402
from realdata import PARTS, photos  # noqa: E402

from companion.vision import dice as reader  # noqa: E402

HERE = Path(__file__).parent
PATCH = 160  # detector training crops
#: share of the face model's samples cut from face-up tiles (discards) in the table views: a
#: bamboo or circles tile is the one thing on the table with die-sized dark marks on ivory
TILE_SHARE = 0.1
#: a face-model sample is sometimes shrunk to 0.45-0.9 of this many pixels across and blown up
#: again, as a small or far die looks (the 48 px crops of the first face models)
FEW_PIXELS = 48
#: where the face model's samples come from, by default
FACE_MIX = {"real": 0.4, "tray": 0.25, "table": 0.35}
#: share of a die's face-model samples cut around the box the detector found for it (`mine`), when
#: there is one, rather than around its labelled box: the reader crops around found boxes, and
#: the detector's box of a cocked die hugs the top face more than the label's box does
FOUND_SHARE = 0.5
#: the faintest dice (`Pool.faint`: least unlike what they lie on, e.g. green dice on green felt):
#: this share of them, and `--faint-share` of the face model's die samples drawn from them
FAINT_QUANTILE = 0.15
#: the face model's crops are turned so that the camera's foot lies below (`dice.face_crop`),
#: give or take this many degrees (a foot estimated from the calibration is off a little)
FOOT_JITTER = 8.0


# --- the pictures --------------------------------------------------------------------------------


class Pool:
    """Every training picture in memory: (image, dice, kind, die_px or None)."""

    def __init__(self, real: Path | None, part: str, build: Path) -> None:
        self.items: dict[str, list] = {"real": [], "tray": [], "table": []}
        self.tile_share = TILE_SHARE
        #: the face model's crop side in pixels (`--crop`); the run time reads it from the model
        self.crop = reader.CROP
        #: where the face model's samples come from (`--real-share` moves weight to the real photos)
        self.face_mix = dict(FACE_MIX)
        #: face-up tiles (discards) in the table views, (index, box): die-sized crops of them are no dice
        self.tiles: list[tuple[int, list[float]]] = []
        #: where the camera's foot is in each table view, (kind, index) → (x, y) pixels (`synth`);
        #: a photo's is taken as its middle
        self.foot: dict[tuple[str, int], tuple[float, float]] = {}
        if real is not None:
            for path, dice in photos(real, part):
                self.items["real"].append((cv2.imread(str(path)), dice, None))
        for kind in ("tray", "table"):
            labels_path = build / kind / "labels.json"
            if not labels_path.exists():
                continue
            for name, lab in json.loads(labels_path.read_text()).items():
                img = cv2.imread(str(build / kind / name))
                if img is not None:
                    if kind == "table":
                        self.tiles += [(len(self.items[kind]), box) for box in lab.get("tiles", [])]
                        if lab.get("foot"):
                            self.foot[(kind, len(self.items[kind]))] = tuple(lab["foot"])
                    self.items[kind].append((img, lab["dice"], lab.get("die_px") if kind == "table" else None))
        for k, v in self.items.items():
            print(f"{k}: {len(v)} pictures, {sum(len(i[1]) for i in v)} dice", file=sys.stderr)
        # what the detector took for a die and is none (`mine`): read by the face model as "not a die"
        self.hard: dict[str, list[tuple[int, list[float]]]] = {k: [] for k in self.items}
        if (build / "hard.json").exists():
            for kind, index, box in json.loads((build / "hard.json").read_text()):
                if index < len(self.items[kind]) and \
                        all(reader._iou(box, d["box"]) < 0.15 for d in self.items[kind][index][1]):
                    self.hard[kind].append((index, box))
            print("hard negatives: " + ", ".join(f"{k} {len(v)}" for k, v in self.hard.items()), file=sys.stderr)
        # the detector's boxes of labelled dice (`mine`): (kind, picture index, die index) → box
        self.found: dict[tuple[str, int, int], list[float]] = {}
        self.found_share = FOUND_SHARE
        if (build / "found.json").exists():
            for kind, index, i, box in json.loads((build / "found.json").read_text()):
                if index < len(self.items[kind]) and i < len(self.items[kind][index][1]):
                    self.found[(kind, index, i)] = box
            print(f"found boxes of dice: {len(self.found)}", file=sys.stderr)
        print(f"face-up tiles: {len(self.tiles)}", file=sys.stderr)
        #: (kind, picture index, die index) of the faintest dice; `faint_share` of die samples come from them
        self.faint = faintest(self.items, FAINT_QUANTILE)
        self.faint_share = 0.0
        #: colour_jitter's reach on photos (real, tray: --camera) and on the table views (--table-camera)
        self.camera = self.table_camera = CAMERA["narrow"]
        print(f"faint dice: {len(self.faint)}", file=sys.stderr)

    def reach(self, kind: str) -> CameraReach:
        """How far the light and camera jitter reaches on a picture of `kind`."""
        return self.table_camera if kind == "table" else self.camera

    def pick(self, rng: np.random.Generator, weights: dict[str, float]):
        """(kind, index, (image, dice, die_px)) of a picture drawn with the kinds' `weights`."""
        kinds = [k for k in weights if self.items[k]]
        p = np.array([weights[k] for k in kinds])
        kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
        items = self.items[kind]
        index = int(rng.integers(len(items)))
        return kind, index, items[index]


@dataclass(frozen=True)
class CameraReach:
    """How far `colour_jitter` moves a picture's light and camera (`--camera`, `--table-camera`).

    "narrow" is what the shipped models trained with; "wide" reaches past the
    changes that cost the held-out photos most (model card, "How the reading holds up"):
    a cool or warm cast, a darker tone curve, a die out of focus, a phone's strong JPEG.
    """

    white_balance: tuple[float, float] = (0.85, 1.15)  # each channel × this
    gamma_p: float = 0.3
    gamma: tuple[float, float] = (0.6, 1.6)
    blur_p: float = 0.3
    blur: tuple[float, float] = (0.3, 1.2)  # Gaussian σ, px
    jpeg_p: float = 0.3
    jpeg_quality: tuple[int, int] = (40, 95)
    #: a die's crop cut from the photo compressed again at the photo's own scale and block grid
    #: (a phone's photo sent on: `around_die_jpeg`), before the crop-sized changes above
    photo_jpeg_p: float = 0.0


CAMERA = {
    "narrow": CameraReach(),
    "wide": CameraReach(white_balance=(0.75, 1.25), gamma_p=0.4, gamma=(0.5, 1.8), blur_p=0.4, blur=(0.3, 1.9),
                        jpeg_p=0.4, jpeg_quality=(25, 95), photo_jpeg_p=0.35),
}


def colour_jitter(img: np.ndarray, rng: np.random.Generator, strong: bool,
                  reach: CameraReach = CAMERA["narrow"]) -> np.ndarray:
    """Other dice, trays and light: hue turns, channel swaps, contrast, gamma, grey; blur, noise, JPEG."""
    if rng.random() < (0.7 if strong else 0.4):
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        if rng.random() < 0.5:
            hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.4), 0, 255).astype(np.uint8)
        img = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.3:
        img = np.ascontiguousarray(img[..., rng.permutation(3)])
    if rng.random() < 0.08:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    f = img.astype(np.float32)
    if rng.random() < 0.8:
        f = (f - 128) * rng.uniform(0.6, 1.3) + 128 + rng.uniform(-40, 40)
        f *= rng.uniform(*reach.white_balance, 3).astype(np.float32)  # white balance
    if rng.random() < reach.gamma_p:
        f = 255 * (np.clip(f, 0, 255) / 255) ** rng.uniform(*reach.gamma)
    if rng.random() < reach.blur_p:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(*reach.blur))
    if rng.random() < 0.5:
        f += rng.normal(0, rng.uniform(1, 8), f.shape).astype(np.float32)
    img = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < reach.jpeg_p:
        q = int(rng.integers(*reach.jpeg_quality))
        _, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


def around_die_jpeg(img: np.ndarray, box, rng: np.random.Generator, reach: CameraReach) -> tuple[np.ndarray, float, float]:
    """The photo around a die compressed once more as a whole photo would be: at the photo's own
    scale, on its own 16-pixel block grid (so that the blocks fall on the die as they would).
    Returns the compressed window and where it lies in the photo (x, y); crops are cut from it."""
    x1, y1, x2, y2 = box
    r = 1.6 * max(x2 - x1, y2 - y1) + 8  # any crop of the die at any turn lies inside
    h, w = img.shape[:2]
    x0, y0 = max(0, int((x1 + x2) / 2 - r)) // 16 * 16, max(0, int((y1 + y2) / 2 - r)) // 16 * 16
    xe, ye = min(w, int((x1 + x2) / 2 + r) + 1), min(h, int((y1 + y2) / 2 + r) + 1)
    if xe - x0 < 16 or ye - y0 < 16:
        return img, 0.0, 0.0
    q = int(rng.integers(*reach.jpeg_quality))
    _, enc = cv2.imencode(".jpg", np.ascontiguousarray(img[y0:ye, x0:xe]), [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR), float(x0), float(y0)


def turn(img: np.ndarray, boxes: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random quarter turn and mirror image (a die's faces read the same either way)."""
    h, w = img.shape[:2]
    b = boxes.copy()
    if rng.random() < 0.5:
        img = img[:, ::-1]
        b[:, [0, 2]] = w - b[:, [2, 0]]
    k = int(rng.integers(4))
    for _ in range(k):  # 90° anticlockwise: (x, y) -> (y, W - x)
        h, w = img.shape[:2]
        img = np.rot90(img)
        b = np.stack([b[:, 1], w - b[:, 2], b[:, 3], w - b[:, 0]], 1)
    return np.ascontiguousarray(img), b


# --- detector ------------------------------------------------------------------------------------


def detector_sample(pool: Pool, rng: np.random.Generator):
    kind, _, (img, dice, die_px) = pool.pick(rng, {"real": 0.35, "tray": 0.35, "table": 0.3})
    boxes = np.array([d["box"] for d in dice], np.float32).reshape(-1, 4)
    h, w = img.shape[:2]
    if kind == "table":
        scale = reader.DET_DIE_PX / die_px * rng.uniform(0.8, 1.25)
    else:
        sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) if len(boxes) else np.array([40.0])
        med = float(np.median(sizes))
        if rng.random() < 0.5:  # as the reader's first pass scales a photo
            scale = reader.PHOTO_LONG_SIDE / max(h, w) * rng.uniform(0.85, 1.15)
        else:
            scale = rng.uniform(9, 36) / med
    small = cv2.resize(img, (max(8, round(w * scale)), max(8, round(h * scale))),
                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    boxes = boxes * scale
    small, boxes = turn(small, boxes, rng)
    h, w = small.shape[:2]
    if h < PATCH or w < PATCH:
        small = cv2.copyMakeBorder(small, 0, max(0, PATCH - h), 0, max(0, PATCH - w), cv2.BORDER_REPLICATE)
        h, w = small.shape[:2]
    if len(boxes) and rng.random() < 0.7:
        c = boxes[int(rng.integers(len(boxes)))]
        x0 = int(np.clip((c[0] + c[2]) / 2 - rng.uniform(20, PATCH - 20), 0, w - PATCH))
        y0 = int(np.clip((c[1] + c[3]) / 2 - rng.uniform(20, PATCH - 20), 0, h - PATCH))
    else:
        x0, y0 = int(rng.integers(0, w - PATCH + 1)), int(rng.integers(0, h - PATCH + 1))
    patch = colour_jitter(small[y0:y0 + PATCH, x0:x0 + PATCH], rng, kind == "real", pool.reach(kind))
    boxes = boxes - [x0, y0, x0, y0]
    g = PATCH // reader.DET_STRIDE
    heat = np.zeros((g, g), np.float32)
    reg = np.zeros((4, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x1, y1, x2, y2 in boxes:
        cx, cy = (x1 + x2) / 2 / reader.DET_STRIDE, (y1 + y2) / 2 / reader.DET_STRIDE
        if not (0 <= cx < g and 0 <= cy < g):
            continue
        bw, bh = max(1.0, x2 - x1), max(1.0, y2 - y1)
        sigma = max(0.6, min(bw, bh) / reader.DET_STRIDE / 5)
        ix, iy = int(cx), int(cy)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma ** 2)))
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = [math.log(bw / reader.DET_STRIDE), math.log(bh / reader.DET_STRIDE),
                          cx - ix - 0.5, cy - iy - 0.5]
        mask[iy, ix] = 1.0
    return patch, heat, reg, mask


def focal_loss(logits: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on the centre map."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


class Batches(torch.utils.data.IterableDataset):
    def __init__(self, pool: Pool, make, batch: int, seed: int) -> None:
        self.pool, self.make, self.batch, self.seed = pool, make, batch, seed

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        cv2.setNumThreads(1)
        while True:
            yield [np.stack(x) for x in zip(*(self.make(self.pool, rng) for _ in range(self.batch)))]


def train_detector(pool: Pool, steps: int, out: Path, seed: int, workers: int, init: Path | None = None,
                   lr: float = 3e-3, device: str = "cpu", max_minutes: float | None = None) -> None:
    torch.manual_seed(seed)
    net = Detector()
    if init is not None:
        start_from(net, init)
    net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    data = torch.utils.data.DataLoader(Batches(pool, detector_sample, 16, seed), batch_size=None,
                                       num_workers=workers, persistent_workers=workers > 0)
    t0, run = time.time(), []
    for step, (patch, heat, reg, mask) in enumerate(data):
        if step >= steps or out_of_time(t0, max_minutes, step, steps):
            break
        x = torch.from_numpy(reader.to_input(np.asarray(patch))).to(device)  # the loader hands over tensors
        heat, reg, mask = (torch.as_tensor(t).to(device) for t in (heat, reg, mask))
        y = net(x)
        l_heat = focal_loss(y[:, 0], heat)
        m = mask[:, None]
        l_reg = (F.l1_loss(y[:, 1:5] * m, reg * m, reduction="sum")) / m.sum().clamp(min=1)
        loss = l_heat + l_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run.append((l_heat.item(), l_reg.item()))
        if (step + 1) % 50 == 0:
            a = np.mean(run[-50:], axis=0)
            print(f"detector step {step + 1}/{steps}: heat {a[0]:.3f} box {a[1]:.3f} ({time.time() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    export(net.cpu(), out / reader.DETECTOR_FILE, "image", (1, 3, 320, 320), dynamic=True)


# --- face reader ---------------------------------------------------------------------------------


def faintest(items: dict[str, list], share: float) -> list[tuple[str, int, int]]:
    """The `share` of all dice whose middle is least unlike the square around them (colour).

    Numpy only: an OpenCV call here would start OpenCV's threads before the loader forks its
    workers, whose own OpenCV calls then hang."""
    scored = []
    for kind, pictures in items.items():
        for index, (lab, dice, _) in enumerate(pictures):
            h, w = lab.shape[:2]
            for i, d in enumerate(dice):
                x1, y1, x2, y2 = d["box"]
                cx, cy, r = (x1 + x2) / 2, (y1 + y2) / 2, max(x2 - x1, y2 - y1) / 2
                inner = lab[int(max(0, cy - r / 2)):int(cy + r / 2) + 1, int(max(0, cx - r / 2)):int(cx + r / 2) + 1]
                outer = lab[int(max(0, cy - 1.5 * r)):int(min(h, cy + 1.5 * r)), int(max(0, cx - 1.5 * r)):int(min(w, cx + 1.5 * r))]
                if not inner.size or not outer.size:
                    continue
                ring = np.median(outer.reshape(-1, 3).astype(np.float32), axis=0)  # the square is mostly not die
                mid = np.median(inner.reshape(-1, 3).astype(np.float32), axis=0)
                scored.append((float(np.linalg.norm(mid - ring)), kind, index, i))
    scored.sort()
    return [(k, index, i) for _, k, index, i in scored[:int(len(scored) * share)]]


def face_sample(pool: Pool, rng: np.random.Generator):
    kind, picked, (img, dice, _) = pool.pick(rng, pool.face_mix)
    where = (kind, picked)  # the picture the crop is cut from
    boxes = np.array([d["box"] for d in dice], np.float32).reshape(-1, 4)
    h, w = img.shape[:2]
    r = rng.random()
    if pool.hard[kind] and r < 0.12:
        index, box = pool.hard[kind][int(rng.integers(len(pool.hard[kind])))]
        img = pool.items[kind][index][0]
        where = (kind, index)
        label, cocked = 0, -1.0
    elif pool.tiles and r < 0.12 + pool.tile_share:  # part of a face-up tile, die-sized or as big as a cocked die
        index, (x1, y1, x2, y2) = pool.tiles[int(rng.integers(len(pool.tiles)))]
        img, dice, die_px = pool.items["table"][index]
        where = ("table", index)
        tw, th = x2 - x1, y2 - y1
        s = die_px * rng.uniform(0.8, 2.6)
        cx, cy = (x1 + x2) / 2 + rng.uniform(-0.3, 0.3) * tw, (y1 + y2) / 2 + rng.uniform(-0.3, 0.3) * th
        box = [cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2]
        if any(reader._iou(box, d["box"]) >= 0.15 for d in dice):  # a die lies there: read it instead
            box = dice[int(np.argmax([reader._iou(box, d["box"]) for d in dice]))]["box"]
            d = next(d for d in dice if d["box"] == box)
            label, cocked = d["face"], float(d["cocked"])
        else:
            label, cocked = 0, -1.0
    elif len(boxes) and rng.random() < 0.82:
        i = int(rng.integers(len(boxes)))
        cocked_ones = [j for j, d in enumerate(dice) if d["cocked"]]
        if pool.faint and rng.random() < pool.faint_share:  # a die hard to tell from what it lies on
            kind, picked, i = pool.faint[int(rng.integers(len(pool.faint)))]
            img, dice, _ = pool.items[kind][picked]
            where = (kind, picked)
            boxes = np.array([d["box"] for d in dice], np.float32).reshape(-1, 4)
        elif cocked_ones and rng.random() < 0.5:  # cocked dice are rare: show them more often (R18)
            i = cocked_ones[int(rng.integers(len(cocked_ones)))]
        found = pool.found.get((kind, picked, i))
        if found is not None and rng.random() < pool.found_share:  # as the reader will crop it
            x1, y1, x2, y2 = found
            jitter, k = 0.03, rng.uniform(0.95, 1.08)
        else:
            x1, y1, x2, y2 = boxes[i]
            jitter, k = 0.07, rng.uniform(0.85, 1.2)
        bw, bh = x2 - x1, y2 - y1
        s = max(bw, bh)
        cx, cy = (x1 + x2) / 2 + rng.normal(0, jitter) * s, (y1 + y2) / 2 + rng.normal(0, jitter) * s
        box = [cx - bw * k / 2, cy - bh * k / 2, cx + bw * k / 2, cy + bh * k / 2]
        label, cocked = dice[i]["face"], float(dice[i]["cocked"])
    else:  # not a die: the tray, the felt, a tile, a marker, a hand, or half of a die
        ref = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) if len(boxes) else 30
        for _try in range(20):
            s = ref * rng.uniform(0.7, 1.5)
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            if len(boxes) and rng.random() < 0.3:  # next to a die
                b = boxes[int(rng.integers(len(boxes)))]
                cx, cy = (b[0] + b[2]) / 2 + rng.choice([-1, 1]) * s * rng.uniform(0.7, 1.0), (b[1] + b[3]) / 2
            box = [cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2]
            if all(reader._iou(box, b) < 0.25 for b in boxes):
                break
        label, cocked = 0, -1.0
    # turned as the reader turns it: the camera's foot below (a photo's: its middle), give or take
    # FOOT_JITTER degrees
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    fx, fy = pool.foot.get(where) or (img.shape[1] / 2, img.shape[0] / 2)
    a = math.radians(rng.normal(0, FOOT_JITTER))
    towards = (cx + math.cos(a) * (fx - cx) - math.sin(a) * (fy - cy),
               cy + math.sin(a) * (fx - cx) + math.cos(a) * (fy - cy))
    size = pool.crop
    reach = pool.reach(where[0])  # the kind of picture the crop is cut from
    if reach.photo_jpeg_p and rng.random() < reach.photo_jpeg_p:  # narrow: the draws of before
        img, ox, oy = around_die_jpeg(img, box, rng, reach)
        box, towards = [box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy], (towards[0] - ox, towards[1] - oy)
    crop = reader.face_crop(img, box, size, reader.CROP_SCALE, towards)
    if rng.random() < 0.4:  # fewer pixels on the die: a smaller or farther die
        f = rng.uniform(0.45, 0.9) * FEW_PIXELS / size
        n = max(8, round(size * f))
        crop = cv2.resize(cv2.resize(crop, (n, n), interpolation=cv2.INTER_AREA), (size, size),
                          interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    crop = colour_jitter(np.ascontiguousarray(crop), rng, kind == "real", reach)
    return crop, np.int64(label), np.float32(cocked)


def train_face(pool: Pool, steps: int, out: Path, seed: int, workers: int, init: Path | None = None,
               lr: float = 3e-3, cocked_weight: float = 2.0, width: float = 1.0, device: str = "cpu",
               max_minutes: float | None = None) -> None:
    torch.manual_seed(seed)
    net = FaceNet(pool.crop, width)
    if init is not None:
        start_from(net, init)
    net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    data = torch.utils.data.DataLoader(Batches(pool, face_sample, 96, seed), batch_size=None,
                                       num_workers=workers, persistent_workers=workers > 0)
    t0, run = time.time(), []
    for step, (crop, label, cocked) in enumerate(data):
        if step >= steps or out_of_time(t0, max_minutes, step, steps):
            break
        x = torch.from_numpy(reader.to_input(np.asarray(crop))).to(device)
        label, cocked = torch.as_tensor(label).to(device), torch.as_tensor(cocked).to(device)
        y = net(x)
        l_face = F.cross_entropy(y[:, :7], label, label_smoothing=0.02)
        m = cocked >= 0
        l_cock = (F.binary_cross_entropy_with_logits(y[m, 7], cocked[m],
                                                     pos_weight=torch.tensor(cocked_weight, device=device))
                  if m.any() else y.sum() * 0)
        loss = l_face + l_cock
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        acc = (y[:, :7].argmax(1) == label).float().mean().item()
        run.append((l_face.item(), l_cock.item(), acc))
        if (step + 1) % 50 == 0:
            a = np.mean(run[-50:], axis=0)
            print(f"face step {step + 1}/{steps}: face {a[0]:.3f} cocked {a[1]:.3f} acc {a[2]:.3f} "
                  f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    export(net.cpu(), out / reader.FACE_FILE, "crop", (1, 3, pool.crop, pool.crop), dynamic=True)


def out_of_time(t0: float, max_minutes: float | None, step: int, steps: int) -> bool:
    """True (and a warning) once a run has had `max_minutes`: a guard for a lent machine's time
    limit, so that a run too long for it still exports what it has (cut short of its schedule)."""
    if max_minutes is None or time.time() - t0 < max_minutes * 60:
        return False
    print(f"WARNING: stopped at step {step} of {steps} after {max_minutes} minutes (--max-minutes); "
          "the learning rate had not come down", file=sys.stderr, flush=True)
    return True


def mine(pool: Pool, models: Path, out: Path, kinds: list[str], add: bool = False) -> None:
    """Run the detector over the training pictures of `kinds`; keep what it finds that is not a die
    (hard negatives, `hard.json`) and the box it finds for each labelled die (`found.json`).

    Hard negatives already mined for the other kinds are kept; with `add`, those of `kinds` too
    (what an earlier detector took for a die is still no die). Found boxes are always this
    detector's: those of the other kinds are kept, those of `kinds` replaced."""
    det = reader.DiceReader(models)
    old = json.loads((out / "hard.json").read_text()) if (out / "hard.json").exists() else []
    hard = [h for h in old if add or h[0] not in kinds]
    old_found = json.loads((out / "found.json").read_text()) if (out / "found.json").exists() else []
    found = [f for f in old_found if f[0] not in kinds]
    for kind, items in pool.items.items():
        if kind not in kinds:
            continue
        for index, (img, dice, die_px) in enumerate(items):
            scale = reader.DET_DIE_PX / die_px if die_px else reader.PHOTO_LONG_SIDE / max(img.shape[:2])
            for s, b in det.detect(img, scale):
                if s >= 0.1 and all(reader._iou(b, d["box"]) < 0.3 for d in dice):
                    hard.append((kind, index, [round(v, 1) for v in b]))
            # the boxes the reader itself would crop (its second look at a photo's scale included)
            best: dict[int, tuple[float, list[float]]] = {}
            for s, b, _ in det.candidates(img, die_px):
                overlaps = [reader._iou(b, d["box"]) for d in dice]
                if not overlaps or max(overlaps) < 0.3:
                    continue
                i = int(np.argmax(overlaps))
                if s > best.get(i, (0.0, None))[0]:
                    best[i] = (s, b)
            found += [(kind, index, i, [round(v, 1) for v in b]) for i, (_, b) in sorted(best.items())]
        print(f"{kind}: {len(hard)} hard negatives, {len(found)} found boxes so far", file=sys.stderr)
    (out / "found.json").write_text(json.dumps(found))
    unique: dict = {}  # with `add`, a box found by both detectors once
    for h in hard:
        unique.setdefault((h[0], h[1], tuple(h[2])), h)
    hard = list(unique.values())
    (out / "hard.json").write_text(json.dumps(hard))


def load_onnx(net: torch.nn.Module, path: Path) -> None:
    """Start from a shipped .onnx (when its .pt is gone): its weights into `net`, BatchNorm frozen.

    The export folded each BatchNorm into the convolution before it, so every BatchNorm becomes
    the identity (mean 0, variance 1 − eps) carrying the folded bias, and stays in eval mode while
    training (`freeze_norms`): batch statistics would undo the fold.
    """
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    order: list[nn.Conv2d] = []  # torch's convolutions in the order they run = the graph's order
    hooks = [m.register_forward_hook(lambda m, i, o: order.append(m)) for m in net.modules()
             if isinstance(m, nn.Conv2d)]
    net.eval()
    with torch.no_grad():
        side = getattr(net, "crop", reader.CROP)  # the face model's size; the detector takes any
        net(torch.zeros(1, 3, side, side))
    for h in hooks:
        h.remove()
    if len(order) != len(convs):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network has {len(order)}")
    following = {}  # each convolution's BatchNorm
    mods = list(net.modules())
    for i, m in enumerate(mods):
        if isinstance(m, nn.Conv2d) and i + 1 < len(mods) and isinstance(mods[i + 1], nn.BatchNorm2d):
            following[m] = mods[i + 1]
    with torch.no_grad():
        for conv, node in zip(order, convs):
            w = torch.from_numpy(init[node.input[1]].copy())
            b = torch.from_numpy(init[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(w.shape[0])
            if w.shape != conv.weight.shape:
                raise SystemExit(f"{path}: weight {tuple(w.shape)} does not fit {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bn = following.get(conv)
            if bn is not None:
                bn.weight.fill_(1.0)
                bn.bias.copy_(b)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            else:
                conv.bias.copy_(b)
        for name, p in net.named_parameters():
            if name in init:
                p.copy_(torch.from_numpy(init[name].copy()))
    net.train()
    freeze_norms(net)


def freeze_norms(net: torch.nn.Module) -> None:
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def start_from(net: torch.nn.Module, init: Path) -> None:
    """Load --init: a .pt written by `export`, or a shipped .onnx (`load_onnx`)."""
    if init.suffix == ".onnx":
        load_onnx(net, init)
    else:
        net.load_state_dict(torch.load(init, map_location="cpu"))
        norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
        if all(float(m.running_mean.abs().max()) == 0 and torch.allclose(m.running_var, 1 - torch.tensor(m.eps))
               for m in norms):  # saved by a run that started from an .onnx: its norms stay frozen
            freeze_norms(net)


def export(net: torch.nn.Module, path: Path, name: str, shape: tuple, dynamic: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    net.eval()
    torch.save(net.state_dict(), path.with_suffix(".pt"))  # to go on training from (--init)
    axes = {name: {0: "n", 2: "h", 3: "w"} if name == "image" else {0: "n"}, "out": {0: "n"}}
    torch.onnx.export(net, torch.zeros(shape), str(path), input_names=[name], output_names=["out"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)", file=sys.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", choices=["detector", "face", "mine"])
    ap.add_argument("--real", type=Path, help="labelled real photos (images/, labels/)")
    ap.add_argument("--part", choices=[p for p in PARTS if p not in ("val", "tune")], default="train",
                    help="which real photos to train on (fit: train without the tuning blocks)")
    ap.add_argument("--build", type=Path, default=HERE / "build")
    ap.add_argument("--out", type=Path, default=HERE.parents[1] / "companion" / "vision" / "dice_weights")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", type=Path, help="go on from these weights: a .pt written next to the .onnx, "
                    "or the .onnx itself (BatchNorm then stays frozen)")
    ap.add_argument("--kinds", default="real,tray,table", help="mine: the kinds of pictures to mine")
    ap.add_argument("--add", action="store_true", help="mine: keep the hard negatives mined before for these kinds")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--tile-share", type=float, default=TILE_SHARE,
                    help="face: share of samples cut from face-up tiles in the table views")
    ap.add_argument("--cocked-weight", type=float, default=2.0,
                    help="face: weight of a cocked die in the cocked loss (cocked dice are rare, R18)")
    ap.add_argument("--crop", type=int, default=reader.CROP,
                    help="face: the crop side in pixels, a multiple of 24 (more pixels per die cost more time)")
    ap.add_argument("--real-share", type=float, default=FACE_MIX["real"],
                    help="face: share of samples from the real photos (the rest split as in FACE_MIX)")
    ap.add_argument("--width", type=float, default=1.0, help="face: scale of the face model's channels")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                    help="where the network trains (the pictures are always made on the CPU, --workers)")
    ap.add_argument("--max-minutes", type=float, help="stop and export after this long, even short of --steps")
    ap.add_argument("--faint-share", type=float, default=0.0,
                    help="face: share of die samples drawn from the faintest dice (FAINT_QUANTILE of them)")
    ap.add_argument("--camera", choices=sorted(CAMERA), default="narrow",
                    help="how far the light and camera jitter reaches on photos (CameraReach; wide: tried in the sixteenth cycle)")
    ap.add_argument("--table-camera", choices=sorted(CAMERA), default="narrow",
                    help="the same on the table views: the companion's own camera, fixed and uncompressed")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    pool = Pool(args.real, args.part, args.build)
    pool.tile_share = args.tile_share
    pool.faint_share = args.faint_share
    pool.camera, pool.table_camera = CAMERA[args.camera], CAMERA[args.table_camera]
    pool.crop = args.crop
    rest = (1 - args.real_share) / (1 - FACE_MIX["real"])
    pool.face_mix = {k: args.real_share if k == "real" else v * rest for k, v in FACE_MIX.items()}
    if args.model == "mine":  # the detector in --out; hard negatives → --build/hard.json
        mine(pool, args.out, args.build, args.kinds.split(","), args.add)
    elif args.model == "detector":
        train_detector(pool, args.steps or 2000, args.out, args.seed, args.workers, args.init, args.lr, args.device,
                       args.max_minutes)
    else:
        train_face(pool, args.steps or 3000, args.out, args.seed, args.workers, args.init, args.lr, args.cocked_weight,
                   args.width, args.device, args.max_minutes)
