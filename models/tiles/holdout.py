"""Model-selection data that is not the validation split.

* `holdout`: the 1 in 12 train source photos never trained on (see common.is_holdout);
  augmented copies, so boxes are loose: a prediction is matched by its centre.
* `holdout-stretched`: each holdout photo cut to a band and stretched back to 640x640,
  as Roboflow did to long photos (the train split holds no such photo, the validation
  split about one in nine). Tiles cut by the band's edge are dropped from the truth and
  predictions centred on them are not counted.
"""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
from augment import transform_boxes
from common import load_train

SIZE = 640


def stretched(item, img: np.ndarray):
    """(image, boxes, classes, cut boxes) of one holdout photo squeezed along x or y."""
    seed = int(hashlib.sha1(item.path.name.encode()).hexdigest()[:8], 16)
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    f = 2.0 ** rng.uniform(1.3, 3.3)
    c = (item.boxes[:, :2] + item.boxes[:, 2:]).mean(0) / 2
    if rng.random() < 0.5:  # a wide band: tiles come out tall and thin... or the other way round
        bw, bh = w, h / f
    else:
        bw, bh = w / f, h
    x0 = float(np.clip(c[0] - bw / 2, 0, w - bw))
    y0 = float(np.clip(c[1] - bh / 2, 0, h - bh))
    m = np.float64([[SIZE / bw, 0, -x0 * SIZE / bw], [0, SIZE / bh, -y0 * SIZE / bh]])
    out = cv2.warpAffine(img, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR)
    b = transform_boxes(item.boxes, m)
    cb = np.clip(b, 0, SIZE)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    carea = (cb[:, 2] - cb[:, 0]) * (cb[:, 3] - cb[:, 1])
    whole = carea >= 0.9 * area
    cut = (carea > 0) & ~whole
    return out, cb[whole], item.classes[whole], cb[cut]


def load(data, which: str):
    """[(image, boxes, classes, ignore boxes)] of `holdout` or `holdout-stretched`."""
    out = []
    for it in load_train(data, holdout=True):
        img = cv2.imread(str(it.path))
        if which == "holdout":
            out.append((img, it.boxes, it.classes, np.zeros((0, 4), np.float32)))
        else:
            out.append(stretched(it, img))
    return out


def centre_counts(pred: np.ndarray, truth: np.ndarray, ignore: np.ndarray) -> tuple[int, int, int]:
    """(hits, predictions counted, truths): a prediction hits when its centre lies in an
    unused true box (nearest centre first); predictions centred in an ignore box are dropped."""
    pred = np.asarray(pred, np.float32).reshape(-1, 4)
    cx, cy = (pred[:, 0] + pred[:, 2]) / 2, (pred[:, 1] + pred[:, 3]) / 2
    if len(ignore):
        inside_ignored = ((ignore[None, :, 0] <= cx[:, None]) & (cx[:, None] <= ignore[None, :, 2])
                          & (ignore[None, :, 1] <= cy[:, None]) & (cy[:, None] <= ignore[None, :, 3])).any(1)
        in_truth = ((truth[None, :, 0] <= cx[:, None]) & (cx[:, None] <= truth[None, :, 2])
                    & (truth[None, :, 1] <= cy[:, None]) & (cy[:, None] <= truth[None, :, 3])).any(1) if len(truth) else False
        keep = ~inside_ignored | in_truth
        pred, cx, cy = pred[keep], cx[keep], cy[keep]
    used = np.zeros(len(truth), bool)
    hits = 0
    for x, y in zip(cx, cy):
        ok = (truth[:, 0] <= x) & (x <= truth[:, 2]) & (truth[:, 1] <= y) & (y <= truth[:, 3]) & ~used
        if ok.any():
            j = np.flatnonzero(ok)
            tc = (truth[j, :2] + truth[j, 2:]) / 2
            used[j[np.argmin(np.hypot(tc[:, 0] - x, tc[:, 1] - y))]] = True
            hits += 1
    return hits, len(pred), len(truth)


def centre_pairs(pred: np.ndarray, truth: np.ndarray) -> list[tuple[int, int]]:
    """(i_pred, j_true) pairs where the predicted centre lies inside the true box (nearest
    true centre first, each true box used once)."""
    pairs, used = [], set()
    for i, b in enumerate(np.asarray(pred, np.float32).reshape(-1, 4)):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        inside = np.flatnonzero((truth[:, 0] <= cx) & (cx <= truth[:, 2]) & (truth[:, 1] <= cy) & (cy <= truth[:, 3]))
        inside = [j for j in inside if j not in used]
        if inside:
            tc = (truth[inside, :2] + truth[inside, 2:]) / 2
            j = inside[int(np.argmin(np.linalg.norm(tc - [cx, cy], axis=1)))]
            used.add(j)
            pairs.append((i, j))
    return pairs
