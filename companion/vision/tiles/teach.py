""""Teach your set": adapt the recogniser to a club's own tiles from a photo of a layout.

The players lay one of each tile face-up in five rows, as the printed sheet shows
(`companion teach --sheet layout.svg`):

    row 1  1m 2m ... 9m   characters
    row 2  1p 2p ... 9p   circles
    row 3  1s 2s ... 9s   bamboo
    row 4  1z ... 7z      East South West North, White Green Red
    row 5  1f ... 8f      plum orchid chrysanthemum bamboo, spring summer autumn winter
                          (leave row 5 out for a set without bonus tiles)

and take one or more photos from above (a photo taken sideways, upside down or at a slant is
turned upright and levelled first, see `read_layout`). The detector finds the 42 (or 34) faces,
they are sorted into rows by height and named by position, each crop is jittered into a few dozen
views, and a softmax head is fitted on the classifier's 128-d embeddings of those views
(seconds on a Pi; the shipped networks are unchanged). The detector is less sure of a
design it never saw, so the set also keeps a detection threshold of its own, read from the
detector's scores in the layout photo (`taught_threshold`). A set whose tiles the shipped
classifier mostly misnames in the layout photo is a design the shipped models never saw: it
is then read by the general detector (see `recognizer`), which was trained on many made-up
designs and finds unfamiliar tiles better (`FAMILIAR_SHARE`). The set is saved as an .npz in
the user's data folder and `companion recognize` uses it until it is forgotten.
"""

from __future__ import annotations

import math
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.tiles.codes import TILE_CODES

LAYOUT_ROWS: tuple[tuple[str, ...], ...] = (
    tuple(f"{n}m" for n in range(1, 10)),
    tuple(f"{n}p" for n in range(1, 10)),
    tuple(f"{n}s" for n in range(1, 10)),
    tuple(f"{n}z" for n in range(1, 8)),
    tuple(f"{n}f" for n in range(1, 9)),
)
VIEWS_PER_TILE = 32
#: the jitter of a taught tile's views: shift (share of the box) and log scale, each way
VIEW_SHIFT, VIEW_LOG_SCALE = 0.06, 0.1
LAYOUT_THRESHOLD = 0.3
#: a taught set's detection threshold: this share of its tiles' median detector score in the
#: layout photo, never above the shipped threshold and never below TAUGHT_THRESHOLD_FLOOR
#: (the share was chosen on `companion bench teach --seed 3`, see the model card)
TAUGHT_SCORE_SHARE = 0.4
TAUGHT_THRESHOLD_FLOOR = 0.15
#: a taught set drops a detection it cannot name: the head's best probability below this
#: (a half tile, a box off the tile, something that is not one of the set's tiles). Chosen on
#: `companion bench teach --seed 3` (F1 after teaching 0.775 -> 0.796), see the model card
TAUGHT_NAME_FLOOR = 0.2
#: a set whose layout tiles the shipped classifier names right at least this often is one the
#: shipped models know, and keeps the shipped detector; below it the general detector reads its
#: photos (see the model card, "Teach your set")
FAMILIAR_SHARE = 0.8
DETECTORS = ("shipped", "general")


class TeachError(CompanionError, ValueError):
    """The layout photo does not show the expected rows of tiles."""


#: the taught set's place inside the data folder (beside the game log, so that the service and
#: `companion teach` run with the service's configuration share it)
TAUGHT_FILE = Path("tiles") / "taught_set.npz"
_data_dir: Path | None = None


def use_data_dir(data_dir: str | os.PathLike) -> None:
    """Keep the taught set in this data folder from now on (each command calls it with its
    settings' `data_dir`; the recogniser is one per process, and so is its taught set)."""
    global _data_dir
    _data_dir = Path(data_dir).expanduser()


def taught_path(data_dir: str | os.PathLike | None = None) -> Path:
    """Where the taught set is kept: $COMPANION_TAUGHT_SET, else `<data_dir>/tiles/taught_set.npz`
    (`data_dir`, else the one `use_data_dir` named, else the default one)."""
    env = os.environ.get("COMPANION_TAUGHT_SET")
    if env:
        return Path(env)
    if data_dir is not None:
        return Path(data_dir).expanduser() / TAUGHT_FILE
    if _data_dir is None:
        from companion.config import default_data_dir

        return default_data_dir() / TAUGHT_FILE
    return _data_dir / TAUGHT_FILE


@dataclass
class TaughtSet:
    """A softmax head over the classifier embedding, fitted on one club's tiles."""

    weights: np.ndarray  # (128, K)
    bias: np.ndarray     # (K,)
    codes: list[str]
    #: detection threshold for this set (None: the shipped one; see `taught_threshold`)
    threshold: float | None = None
    info: dict = field(default_factory=dict)
    #: which detector reads this set's photos: "shipped", or "general" for a design the shipped
    #: models did not know (see FAMILIAR_SHARE)
    detector: str = "shipped"

    def predict_proba(self, emb: np.ndarray) -> np.ndarray:
        z = emb @ self.weights + self.bias
        z -= z.max(1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(1, keepdims=True)

    def save(self, path: str | os.PathLike | None = None) -> Path:
        path = Path(path or taught_path())
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, weights=self.weights, bias=self.bias, codes=np.array(self.codes),
                 threshold=np.float32(np.nan if self.threshold is None else self.threshold),
                 info=np.array(repr(self.info)), detector=np.array(self.detector))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike | None = None) -> TaughtSet | None:
        """The saved set, or None when nothing was taught yet."""
        path = Path(path or taught_path())
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                t = float(z["threshold"]) if "threshold" in z.files else math.nan  # sets taught before it had one
                detector = str(z["detector"]) if "detector" in z.files else "shipped"
                if detector not in DETECTORS:
                    raise ValueError(f"unknown detector {detector!r}")
                return cls(z["weights"], z["bias"], [str(c) for c in z["codes"]],
                           threshold=None if math.isnan(t) else t, info={"file": str(path)}, detector=detector)
        except Exception as exc:
            raise CompanionError(f"taught tile set {path} is damaged ({_damage(exc)}); teach the set again, "
                                 "or run `companion teach --forget`") from exc


def _damage(exc: Exception) -> str:
    """What is wrong with a taught-set file, in words (numpy's own message for a file that is
    not an .npz at all talks of pickles and `allow_pickle`, which is no help here)."""
    if isinstance(exc, KeyError):  # numpy: "weights is not a file in the archive"
        return f"it has no {str(exc.args[0]).split()[0]!r}" if exc.args else "an array is missing"
    if isinstance(exc, (zipfile.BadZipFile, EOFError)) or "pickle" in str(exc) or "interpret" in str(exc):
        return "not a saved tile set: the file is cut short or was overwritten"
    return str(exc) or type(exc).__name__


def load_or_shipped(path: str | os.PathLike | None = None) -> tuple[TaughtSet | None, str | None]:
    """(the taught set or None, None), or (None, why) when its file is damaged: a damaged set
    must not stop tiles being named, so the shipped classifier names them and the caller says why."""
    try:
        return TaughtSet.load(path), None
    except CompanionError as exc:
        return None, f"{exc}; the shipped tile models name the tiles meanwhile"


def assign_layout(boxes: np.ndarray, scores: np.ndarray | None = None, rows=LAYOUT_ROWS) -> list[tuple[np.ndarray, str]]:
    """Name the tiles of a layout photo by place: rows top to bottom, tiles left to right.

    `scores` (the detector's) are accepted so that `assign_layout(*rec.detect(img))` works.
    Accepts the full five rows or the first four (a set without bonus tiles). Robust to a
    tile found as two boxes and to a tile missed inside a row (see the slots below).
    Returns (box, code) pairs; raises TeachError saying what was seen when the rows cannot
    be matched.
    """
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if len(boxes) == 0:
        raise TeachError("no tiles found in the layout photo")
    scores = np.ones(len(boxes), np.float32) if scores is None else np.asarray(scores, np.float32)
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    h = np.median(boxes[:, 3] - boxes[:, 1])
    order = np.argsort(cy)
    groups, current = [], [order[0]]
    for a, b in zip(order[:-1], order[1:]):
        if cy[b] - cy[a] > 0.5 * h:
            groups.append(current)
            current = []
        current.append(b)
    groups.append(current)
    counts = [len(g) for g in groups]
    expected = [len(r) for r in rows]

    def refuse():
        raise TeachError(
            f"expected rows of {expected} tiles (or the first four rows), found rows of {counts}: "
            "lay the tiles out as on the sheet, face up, with a clear gap between rows")

    if len(groups) not in (len(rows), len(rows) - 1):
        refuse()
    # The sheet spaces the tiles evenly, so each row is cut into equal slots between its
    # outermost detections; a slot's tile is the union of the detections centred in it (a
    # tall tile found as two halves becomes whole), or, when the slot is empty (e.g. a
    # plain white dragon), a box of the row's typical size in the middle of the slot.
    spans = [(boxes[g, 2].max() - boxes[g, 0].min()) / len(row) for g, row in zip(groups, rows)]
    typical = float(np.median(spans))
    w = float(np.median(boxes[:, 2] - boxes[:, 0]))
    out = []
    for g, row, span in zip(groups, rows, spans):
        if abs(span / typical - 1) > 0.06:  # a row's end tile is missing, or something lies beyond it
            refuse()
        left, right = boxes[g, 0].min(), boxes[g, 2].max()
        slot = (right - left) / len(row)
        y1, y2 = float(np.median(boxes[g, 1])), float(np.median(boxes[g, 3]))
        cx = (boxes[g, 0] + boxes[g, 2]) / 2
        for k, code in enumerate(row):
            inside = [i for i, c in zip(g, cx) if left + k * slot <= c < left + (k + 1) * slot]
            if inside:
                b = np.float32([boxes[inside, 0].min(), boxes[inside, 1].min(), boxes[inside, 2].max(), boxes[inside, 3].max()])
            else:
                mid = left + (k + 0.5) * slot
                b = np.float32([mid - w / 2, y1, mid + w / 2, y2])
            out.append((b, code))
    return out


def _views(image: np.ndarray, box: np.ndarray, rng: np.random.Generator, n: int, size: int = 48) -> list[np.ndarray]:
    """n jittered copies of the box region (shift, scale, quarter turns, light, blur), size square."""
    from companion.vision.tiles.recognizer import MARGIN

    x1, y1, x2, y2 = box
    cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) * (1 + 2 * MARGIN), (y2 - y1) * (1 + 2 * MARGIN)
    out = []
    for i in range(n):
        jx, jy = (rng.uniform(-VIEW_SHIFT, VIEW_SHIFT, 2) if i else (0, 0))
        sw, sh = (np.exp(rng.uniform(-VIEW_LOG_SCALE, VIEW_LOG_SCALE, 2)) if i else (1, 1))
        ww, hh = w * sw, h * sh
        src = np.float32([[cx + jx * w - ww / 2, cy + jy * h - hh / 2], [cx + jx * w + ww / 2, cy + jy * h - hh / 2],
                          [cx + jx * w + ww / 2, cy + jy * h + hh / 2]])
        m = cv2.getAffineTransform(src, np.float32([[0, 0], [size, 0], [size, size]]))
        r = cv2.getRotationMatrix2D((size / 2, size / 2), 90 * (i % 4) + (rng.uniform(-8, 8) if i >= 4 else 0), 1.0)
        m = np.hstack([r[:, :2] @ m[:, :2], r[:, :2] @ m[:, 2:] + r[:, 2:]])
        crop = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if i >= 4:
            crop = np.clip(crop.astype(np.float32) * rng.uniform(0.7, 1.25) + rng.uniform(-20, 20), 0, 255).astype(np.uint8)
            if rng.random() < 0.4:
                crop = cv2.GaussianBlur(crop, (3, 3), 0)
        out.append(crop)
    return out


def fit_head(emb: np.ndarray, labels: np.ndarray, k: int, l2: float = 1e-3, steps: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression on unit embeddings (full-batch Adam, numpy only)."""
    d = emb.shape[1]
    onehot = np.eye(k, dtype=np.float32)[labels]
    # start from scaled class means (prototype matching), then refine
    protos = np.stack([emb[labels == c].mean(0) if np.any(labels == c) else np.zeros(d, np.float32) for c in range(k)])
    w = (protos.T * 10.0).astype(np.float32)
    b = np.zeros(k, np.float32)
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        z = emb @ w + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(emb)
        gw, gb = emb.T @ g + l2 * w, g.sum(0)
        for prm, grd, m, v in ((w, gw, mw, vw), (b, gb, mb, vb)):
            m *= b1
            m += (1 - b1) * grd
            v *= b2
            v += (1 - b2) * grd * grd
            prm -= lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + 1e-8)
    return w, b


def slot_scores(boxes: np.ndarray, scores: np.ndarray, slots: list[np.ndarray]) -> np.ndarray:
    """Per layout slot, the best detection score centred in it (0 where the tile was missed)."""
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    out = np.zeros(len(slots), np.float32)
    for i, (x1, y1, x2, y2) in enumerate(slots):
        inside = (x1 <= cx) & (cx <= x2) & (y1 <= cy) & (cy <= y2)
        out[i] = scores[inside].max() if inside.any() else 0.0
    return out


def taught_threshold(scores: np.ndarray, shipped: float) -> float:
    """The detection threshold for a set whose layout tiles scored `scores` (see TAUGHT_SCORE_SHARE)."""
    return float(np.clip(TAUGHT_SCORE_SHARE * np.median(scores), TAUGHT_THRESHOLD_FLOOR, shipped))


def teach(recognizer, images: list[np.ndarray], seed: int = 0, views: int = VIEWS_PER_TILE,
          names: list[str] | None = None) -> TaughtSet:
    """Fit a TaughtSet from layout photos (BGR images): detect, name by layout, fit, and keep
    the detector that will read the set and a detection threshold for it. `names`: the photos'
    names, for a refusal to say which photo does not show the layout."""
    saved_threshold, saved_taught = recognizer.threshold, recognizer.taught
    # the layout's structure is known, so look harder: extra boxes are merged or dropped by row
    recognizer.threshold, recognizer.taught = min(saved_threshold, LAYOUT_THRESHOLD), None
    try:
        labelled = []
        for i, img in enumerate(images):
            try:
                labelled.append(read_layout(recognizer, img))
            except TeachError as e:
                if names is None:
                    raise
                raise TeachError(f"{names[i]}: {e}") from None
        familiar = familiar_share(recognizer, labelled)
        detector = "general" if familiar < FAMILIAR_SHARE and recognizer.has_general_detector else "shipped"
        if detector == "general":  # learn from the boxes that detector draws, where it makes the rows
            labelled = [read_layout(recognizer, img, prefer="general") for img, _, _ in labelled]  # already upright
        # the set's threshold comes from the scores of the detector that will read it
        scores = np.concatenate([slot_scores(*recognizer.detect(img, detector=detector), boxes)
                                 for img, boxes, _ in labelled])
    finally:
        recognizer.threshold, recognizer.taught = saved_threshold, saved_taught
    taught = teach_labelled(recognizer, labelled, seed, views)
    taught.detector = detector
    taught.threshold = taught_threshold(scores, recognizer.shipped_threshold)
    taught.info.update(threshold=round(taught.threshold, 3), detector=detector, familiar=round(familiar, 3))
    return taught


#: a phone held the other way shows the sheet's rows as columns (or upside down): the photo is
#: also read turned by these quarter turns. Only the upright turn makes rows of 9, 9, 9, 7 (and 8)
#: tiles top to bottom, so a wrong turn is refused, never misnamed
LAYOUT_TURNS = (0, 1, 3, 2)
#: a photo whose rows slope by more than this (degrees) is also read levelled (see `level`)
LEVEL_MIN_DEGREES = 2.0


def read_layout(recognizer, image: np.ndarray, prefer: str = "shipped"):
    """(image, slot boxes, codes) of one layout photo, read by the `prefer`red detector, or by
    the other one when its boxes do not make the rows; the photo is turned upright if it was
    taken sideways, and levelled if its rows slope (the image returned is the one read). The
    first refusal is raised when nothing makes the rows."""
    refusal = None
    detectors = [prefer] + [d for d in DETECTORS if d != prefer] if recognizer.has_general_detector else ["shipped"]

    def views():
        for turns in LAYOUT_TURNS:
            yield np.ascontiguousarray(np.rot90(image, turns)) if turns else image
        levelled = level(image, recognizer.detect(image, detector=detectors[0])[0])
        if levelled is not None:
            for turns in LAYOUT_TURNS:
                yield np.ascontiguousarray(np.rot90(levelled, turns)) if turns else levelled

    for view in views():
        for which in detectors:
            try:
                pairs = assign_layout(*recognizer.detect(view, detector=which))
            except TeachError as exc:
                refusal = refusal or exc
                continue
            return view, [b for b, _ in pairs], [c for _, c in pairs]
    raise refusal


def row_angle(boxes: np.ndarray) -> float | None:
    """How far the layout's rows slope in the photo (degrees, -45..45; None: too few tiles): the
    median direction from each tile to its nearest neighbour, which lies in the same row (tiles
    in a row nearly touch; rows are further apart), folded onto a quarter turn."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if len(boxes) < 6:
        return None
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    d = np.linalg.norm(c[:, None] - c[None], axis=2)
    np.fill_diagonal(d, np.inf)
    v = c[d.argmin(1)] - c
    ang = np.degrees(np.arctan2(v[:, 1], v[:, 0]))
    return float(np.median((ang + 45) % 90 - 45))


def level(image: np.ndarray, boxes: np.ndarray) -> np.ndarray | None:
    """The photo turned so that the layout's rows run level (on a larger canvas, so no tile is
    cut), or None when they already do or there are too few tiles to tell."""
    angle = row_angle(boxes)
    if angle is None or abs(angle) < LEVEL_MIN_DEGREES:
        return None
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(h * sin + w * cos + 0.5), int(h * cos + w * sin + 0.5)
    m[:, 2] += ((nw - w) / 2, (nh - h) / 2)
    out = cv2.warpAffine(image, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # keep the tiles' part of it (with a margin for tiles missed at the rows' ends): the detector
    # reads the whole picture at a fixed size, so the tiles stay as large as they were
    c = cv2.transform(((boxes[:, :2] + boxes[:, 2:]) / 2)[None].astype(np.float32), m)[0]
    pad = 2.0 * float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    x1, y1 = (np.maximum(c.min(0) - pad, 0)).astype(int)
    x2, y2 = (np.minimum(c.max(0) + pad, (nw, nh))).astype(int)
    return np.ascontiguousarray(out[y1:y2, x1:x2])


def familiar_share(recognizer, labelled) -> float:
    """The share of the layout's tiles that the shipped classifier already names right."""
    right = total = 0
    for img, boxes, codes in labelled:
        probs, _ = recognizer.embed(img, np.float32(boxes).reshape(-1, 4))
        right += sum(TILE_CODES[i] == c for i, c in zip(probs.argmax(1), codes))
        total += len(codes)
    return right / max(total, 1)


def teach_labelled(recognizer, labelled, seed: int = 0, views: int = VIEWS_PER_TILE) -> TaughtSet:
    """Fit a TaughtSet from (image, boxes, codes) triples whose tiles are already named."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    crops, labels, seen = [], [], set()
    for img, boxes, names in labelled:
        for box, code in zip(boxes, names):
            seen.add(code)
            crops += _views(img, np.asarray(box, np.float32), rng, views, recognizer.cls_size)
            labels += [TILE_CODES.index(code)] * views
    if not crops:
        raise TeachError("no tiles to learn from")
    codes = [c for c in TILE_CODES if c in seen]
    remap = {TILE_CODES.index(c): i for i, c in enumerate(codes)}
    x = np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    emb = np.concatenate([recognizer.classifier.run(None, {"crops": x[i:i + 256]})[1] for i in range(0, len(x), 256)])
    y = np.array([remap[c] for c in labels])
    w, b = fit_head(emb, y, len(codes))
    acc = float((np.argmax(emb @ w + b, 1) == y).mean())
    return TaughtSet(w, b, codes, info={"photos": len(labelled), "tiles": len(codes), "views": len(y),
                                        "train_accuracy": round(acc, 4), "seconds": round(time.perf_counter() - t0, 1)})
