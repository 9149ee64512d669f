"""Ordinary dice lying on the table: where they are, which face is up, and whether one is cocked.

Two small learned models, run with onnxruntime (trained by `models/dice/train.py`, model card
`models/dice/README.md`):

1. a centre-point detector (`dice_detect.onnx`) over the whole picture, scaled so a die is about
   `DET_DIE_PX` pixels wide: each die's centre and box;
2. a crop reader (`dice_face.onnx`) on a 72×72 crop of each die taken from the full-resolution
   picture, turned so that the camera's foot lies below it (two crop sizes, each also read
   mirrored, averaged): not-a-die or the face up (1..6), and whether the die is cocked —
   leaning on a tile or another die, showing two faces — so it must be thrown again (R18).

Works on a top-down view of the table (the camera image rectified through the calibration; the
die's size in pixels is then known) or on a plain photo taken from above (size unknown: a first
pass at `PHOTO_LONG_SIDE` finds the dice, a second one at the right scale if they are far from
the size the detector knows best).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError, ImageError

#: where the shipped models live: inside the package, so that an installed companion has them
#: (trained by `models/dice/train.py`)
MODEL_DIR = Path(__file__).resolve().parent / "dice_weights"
DETECTOR_FILE, FACE_FILE = "dice_detect.onnx", "dice_face.onnx"

#: the die width (px) the detector sees best; pictures are scaled to it when the size is known
DET_DIE_PX = 16.0
#: the detector works at stride 4 and its input sides must be multiples of 16
DET_STRIDE, DET_MULTIPLE = 4, 16
#: a photo of unknown scale is first read with its long side at this many pixels
PHOTO_LONG_SIDE = 320
#: the largest detector input side (a huge photo is read smaller)
MAX_SIDE = 1280
#: the crop read by the face model: CROP×CROP pixels (the model's own input size wins) covering
#: CROP_SCALE × the die's box; 72 px keep the pips of a die 30-50 px wide in a phone photo apart
#: (48 px crops ran the red pips of dark marbled dice into their swirls; models/dice/README.md)
CROP, CROP_SCALE = 72, 1.5
#: each die is read at these crop scales (× its box's longer side) and the outputs averaged; the
#: model trained at CROP_SCALE, and a second, wider look settles dice whose found box is a bit
#: small — a cocked die's box hugs its top face (models/dice/README.md, tenth cycle)
READ_SCALES = (CROP_SCALE, 1.7)
#: each crop is also read mirrored left to right (which keeps the camera's foot below it)
READ_MIRRORED = True
#: a die whose face reads less sure than REREAD_P (its share of the six faces' probabilities)
#: is read again from more views: the crop also turned by REREAD_TURNS degrees about the die
#: (the training's jitter), at each of REREAD_SCALES; its face is then the average of them all.
#: On the table few dice are in doubt, so it costs little (p99 about 15 ms more); a crowded
#: phone photo of real dice takes about twice as long (models/dice/README.md, "A second look")
REREAD_P = 0.9
REREAD_SCALES, REREAD_TURNS = (1.4, 1.5, 1.6, 1.7), (-8.0, 0.0, 8.0)
#: crops per run of the face model (a phone photo of a dozen dice makes ~100)
FACE_BATCH = 32
#: the detector also reads the picture mirrored and averages the two outputs: steadier boxes,
#: so steadier crops for the face model (rendered table dice exact 389 -> 393 of 415 scenes)
DET_MIRROR = True
#: of two detections whose boxes overlap this much (IoU), only the surer is a die. Dice are solid:
#: no two labelled dice overlap more than 0.16 (1 063 real, 3 396 rendered on the table), while the
#: detector finds a die-sized box across two dice leaning together at 0.3-0.4 (models/dice/README.md,
#: "Two dice touching"; 0.45 before)
ONE_DIE_IOU = 0.3
#: a detection is kept when centre score × die probability is at least MIN_SCORE, or when the
#: detector is sure (SURE_CENTRE), the face model not quite sure it is no die (SURE_DIE_P) and
#: reads it lying flat: the face model alone tends to take a white die showing one pip for a
#: round spot on a tray, while what the detector is sure of, the face model doubts and reads as
#: cocked (two faces' pips side by side) is a face-up bamboo or circles tile (a discard)
MIN_SCORE, SURE_CENTRE, SURE_DIE_P = 0.25, 0.5, 0.2
#: a die is flagged cocked when the face model's cocked probability is at least this (and, for the
#: keep rule above, "reads as cocked")
COCKED_P = 0.5
#: R18: a die comes to rest cocked only leaning on something, and at a throw the square inside the
#: walls holds the walls and the dice alone. On a table view (`cocked_on_table`) a die farther
#: than LEAN_REACH_WALL of its sides from the walls' faces and LEAN_REACH_DIE from every other die
#: lies flat, whatever the face model says: its flat/cocked overlap is a flat marbled die seen from
#: a camera off to one side, whose side faces' swirls pass for a second face's pips. A leaning
#: die's centre lies at most 0.74 of a side from what it leans on (`render.scenes.lean`). The
#: reach to a wall is counted from the walls' faces: 1.36 sides from them is 1.2 from the edge of
#: the dice view, which stops 0.3 cm inside them (`scene.DICE_VIEW_REACH`).
LEAN_REACH_WALL, LEAN_REACH_DIE = 1.36, 2.0
#: …and a die that has something to lean on is flagged from this lower cocked probability: a cocked
#: die let through moves the break, a flat die flagged costs one re-throw, and the dice in the open
#: that a low cut would flag are settled by the rule above. 0.2 until easy 100161 and hard 110028
#: read 0.12 and 0.19; on 6 120 rendered scenes of twelve seeds the flat dice with something to
#: lean on read 0.08 at most below the two that 0.2 flags too (models/dice/README.md)
LEANING_COCKED_P = 0.1

#: a face read with less than this probability (among the six faces, `DieReading.face_p`, after
#: the second look) is unsure: the watcher records such a die as read and asks the players to
#: check it ("dice_unsure"), `observe` says so. On the held-out real photos 2 of the 5 wrong faces
#: read under 0.6 (two of the others look mislabelled) and 9 of 304 right ones; on four sets of
#: 510 rendered scenes 6 of 3 056 right ones (models/dice/README.md, "How sure a face is")
UNSURE_FACE_P = 0.6


class DiceModelError(CompanionError, RuntimeError):
    """The dice reader's model files are missing or cannot be loaded."""


@dataclass
class DieReading:
    face: int
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in the view's pixels
    cocked: bool
    centre: tuple[float, float]  # view pixels
    score: float
    p_cocked: float = 0.0  # the face model's cocked probability
    face_p: float = 1.0  # how sure the face model is of `face`: its probability among the six faces

    def to_json(self) -> dict:
        return {"face": self.face, "box": [round(v, 1) for v in self.box], "cocked": self.cocked,
                "face_p": round(self.face_p, 2)}


# --- pre-processing shared with training (models/dice/train.py imports these) ------------------


def to_input(images: np.ndarray) -> np.ndarray:
    """uint8 BGR images N×H×W×3 → float32 N×3×H×W, centred."""
    x = images.astype(np.float32) * (1 / 255.0) - 0.5
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2) * 4.0)


def detector_image(img: np.ndarray, scale: float) -> np.ndarray:
    """The picture scaled by `scale` and padded (edge colour) to multiples of DET_MULTIPLE."""
    h, w = img.shape[:2]
    nw, nh = max(DET_MULTIPLE, round(w * scale)), max(DET_MULTIPLE, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(img, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else img
    pw, ph = -nw % DET_MULTIPLE, -nh % DET_MULTIPLE
    if pw or ph:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return small


def face_crop(img: np.ndarray, box, size: int = CROP, scale: float = CROP_SCALE, towards=None) -> np.ndarray:
    """The size×size patch the face model reads: centred on the box, `scale` × its longer side,
    turned so that the point `towards` (the camera's foot, picture pixels) lies straight below.

    Seen from a camera that is not right above it, a flat die shows the side faces turned to the
    camera's foot; turned this way, those always lie at the crop's bottom, where a cocked die's
    second face may lie anywhere. Box corners are pixel edges, so the middle is half a pixel up
    and left in OpenCV's pixel-centre coordinates.
    """
    x1, y1, x2, y2 = box
    side = max(4.0, scale * max(x2 - x1, y2 - y1))
    cx, cy = (x1 + x2) / 2 - 0.5, (y1 + y2) / 2 - 0.5
    down = np.array([0.0, 1.0])
    if towards is not None:
        v = np.array([towards[0] - cx, towards[1] - cy], np.float64)
        n = float(np.hypot(*v))
        if n > 1e-6:
            down = v / n
    # the square around the die that any turn of the crop lies in (edges repeated off the picture)
    big = int(np.ceil(side * 1.42)) + 4
    patch = cv2.getRectSubPix(img, (big, big), (cx, cy))
    k = side / size
    if k > 1:  # fewer crop pixels than picture pixels: smooth first, as INTER_AREA would
        patch = cv2.GaussianBlur(patch, (0, 0), 0.5 * k)
    # crop pixel (u, v) -> patch: its middle + k · [down⊥ down] · ((u, v) − the crop's middle)
    R = k * np.array([[down[1], down[0]], [-down[0], down[1]]])
    mid, pmid = (size - 1) / 2, (big - 1) / 2
    M = np.hstack([R, [[pmid], [pmid]] - R @ [[mid], [mid]]])
    return cv2.warpAffine(patch, M, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _turned(foot, centre, degrees: float):
    """`foot` turned by `degrees` about `centre`: a crop towards it is the crop turned so."""
    if not degrees:
        return foot
    a = np.radians(degrees)
    dx, dy = foot[0] - centre[0], foot[1] - centre[1]
    return (centre[0] + dx * np.cos(a) - dy * np.sin(a), centre[1] + dx * np.sin(a) + dy * np.cos(a))


def decode(out: np.ndarray, scale: float, threshold: float = 0.2) -> list[tuple[float, list[float]]]:
    """Detector output 5×h×w → [(centre score, [x1, y1, x2, y2] in the original picture)]."""
    logits = out[0]
    heat = 1 / (1 + np.exp(-logits))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    found = []
    for i, j in zip(*np.nonzero(peaks)):
        cx = (j + 0.5 + out[3, i, j]) * DET_STRIDE / scale
        cy = (i + 0.5 + out[4, i, j]) * DET_STRIDE / scale
        w = float(np.exp(np.clip(out[1, i, j], -3, 5))) * DET_STRIDE / scale
        h = float(np.exp(np.clip(out[2, i, j], -3, 5))) * DET_STRIDE / scale
        found.append((float(heat[i, j]), [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]))
    return found


def judge(score: float, probs) -> tuple[bool, bool]:
    """(keep the detection, cocked) from its centre score and the face model's 8 outputs."""
    p_die = 1 - float(probs[0])
    cocked = bool(probs[7] >= COCKED_P)
    keep = score * p_die >= MIN_SCORE or (score >= SURE_CENTRE and p_die >= SURE_DIE_P and not cocked)
    return keep, cocked


def _iou(a, b) -> float:
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


# --- the reader ----------------------------------------------------------------------------------


class DiceReader:
    """The two models, loaded once; `read()` is thread-safe (onnxruntime sessions are)."""

    def __init__(self, model_dir: Path | str | None = None, threads: int | None = None) -> None:
        from companion.vision.onnx_options import open_model, session_options

        folder = Path(model_dir) if model_dir is not None else MODEL_DIR
        opts = session_options(threads or min(2, os.cpu_count() or 1))
        self.detector, self.face = (open_model(folder / name, "dice model", "models/dice/train.py", DiceModelError, opts)
                                    for name in (DETECTOR_FILE, FACE_FILE))
        self.flips = 2 if READ_MIRRORED else 1
        self.reread = True  # `REREAD_P`; off only to measure what it brings
        self.scales = READ_SCALES
        self.mirror = DET_MIRROR
        side = self.face.get_inputs()[0].shape[2]
        self.crop = side if isinstance(side, int) else CROP

    def detect(self, img: np.ndarray, scale: float) -> list[tuple[float, list[float]]]:
        x = to_input(detector_image(img, scale)[None])
        if not self.mirror:
            return decode(self.detector.run(None, {"image": x})[0][0], scale)
        plain, mirrored = self.detector.run(None, {"image": np.concatenate([x, x[..., ::-1]])})[0]
        mirrored = mirrored[..., ::-1].copy()  # back to the picture's cells
        mirrored[3] *= -1  # a sub-cell offset to the right was one to the left
        return decode((plain + mirrored) / 2, scale)

    def classify(self, img: np.ndarray, boxes: list[list[float]], foot=None) -> np.ndarray:
        """Per box: [p(not a die), p(1) … p(6), p(cocked)], averaged over the crops at each of the
        READ_SCALES, each also read mirrored; the faces of a die in doubt averaged over more views
        (`REREAD_P`). `foot`: the camera's foot point in the picture's pixels (None: the picture's
        middle, as for a photo taken straight down)."""
        if not boxes:
            return np.zeros((0, 8), np.float32)
        if foot is None:
            foot = (img.shape[1] / 2, img.shape[0] / 2)
        probs = self._views(img, boxes, foot, self.scales, (0.0,))
        faces = probs[:, 1:7]
        # dice (not the rest a crowded photo's detector offers) whose face is in doubt
        doubt = [i for i, f in enumerate(faces) if self.reread and f.max() < REREAD_P * f.sum() and f.sum() >= 0.5]
        if doubt:  # a second look at the faces alone: the die and cocked readings stay
            again = self._views(img, [boxes[i] for i in doubt], foot, REREAD_SCALES, REREAD_TURNS)[:, 1:7]
            probs[doubt, 1:7] = faces[doubt].sum(1, keepdims=True) * again / again.sum(1, keepdims=True)
        return probs

    def _views(self, img: np.ndarray, boxes: list[list[float]], foot, scales, turns) -> np.ndarray:
        """`classify`'s output averaged over crops at each scale and turn (degrees), each also mirrored."""
        cx = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
        crops = np.stack([face_crop(img, b, self.crop, sc, _turned(foot, c, t))
                          for t in turns for sc in scales for b, c in zip(boxes, cx)])
        views = np.concatenate([crops, crops[:, :, ::-1]][:self.flips])
        # in batches: onnxruntime keeps the memory of its largest batch for good
        out = np.concatenate([self.face.run(None, {"crop": to_input(views[i:i + FACE_BATCH])})[0]
                              for i in range(0, len(views), FACE_BATCH)])
        out = out.reshape(self.flips * len(scales) * len(turns), len(boxes), -1)
        e = np.exp(out[..., :7] - out[..., :7].max(-1, keepdims=True))
        probs = (e / e.sum(-1, keepdims=True)).mean(0)
        cocked = (1 / (1 + np.exp(-out[..., 7:8]))).mean(0)
        return np.concatenate([probs, cocked], axis=1)

    def candidates(self, img: np.ndarray, die_px: float | None = None, foot=None, at_least: float = 0.0,
                   skip=None) -> list[tuple[float, list[float], np.ndarray]]:
        """Every detection, one per die, before `judge`: (centre score, box, `classify`'s probabilities).
        Left out (unread): those whose centre score is under `at_least`, and those `skip` names."""
        _check(img)
        h, w = img.shape[:2]
        if die_px is not None:
            scale = min(DET_DIE_PX / die_px, MAX_SIDE / max(h, w))
            found = self.detect(img, scale)
        else:
            scale = min(PHOTO_LONG_SIDE / max(h, w), MAX_SIDE / max(h, w))
            found = self.detect(img, scale)
            sure = [max(b[2] - b[0], b[3] - b[1]) * scale for s, b in found if s >= 0.5]
            if sure:  # read again where the dice are far from the size the detector knows best
                seen = float(np.median(sure))
                if not 11 <= seen <= 26:
                    scale = min(scale * (DET_DIE_PX + 2) / seen, MAX_SIDE / max(h, w))
                    found = self.detect(img, scale)
        found.sort(key=lambda f: -f[0])
        kept: list[tuple[float, list[float]]] = []
        for s, b in found:  # one reading per die
            if all(_iou(b, k[1]) < ONE_DIE_IOU for k in kept):
                kept.append((s, b))
        # after the one-per-die choice, in which they lost to none
        kept = [(s, b) for s, b in kept if s >= at_least and not (skip and skip(s, b))]
        probs = self.classify(img, [b for _, b in kept], foot)
        return [(s, b, p) for (s, b), p in zip(kept, probs)]

    def read(self, img: np.ndarray, die_px: float | None = None, foot=None, skip=None) -> list[DieReading]:
        """The dice in a BGR picture: the `candidates` that `judge` keeps, with face and cocked flag.

        `die_px`: a die's side in pixels (None: found from the picture); `foot`: the camera's
        foot point in the picture (None: its middle); `skip(score, box)`: True for a detection
        that is no die whatever the face model says, given the best score it could reach (its
        centre score): it is not read."""
        _check(img)
        h, w = img.shape[:2]
        out = []
        # a centre score under MIN_SCORE can never be kept (judge: score × P(die) ≥ MIN_SCORE, or a
        # score ≥ SURE_CENTRE), so such detections are not read at all: on a cluttered photo most
        # detections are, and reading each is four runs of the face model
        for s, b, p in self.candidates(img, die_px, foot, at_least=min(MIN_SCORE, SURE_CENTRE), skip=skip):
            keep, cocked = judge(s, p)
            if not keep:
                continue
            p_die = 1 - float(p[0])
            face = int(np.argmax(p[1:7])) + 1
            box = (max(0.0, b[0]), max(0.0, b[1]), min(float(w), b[2]), min(float(h), b[3]))
            out.append(DieReading(face, box, cocked, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2),
                                  round(s * p_die, 4), float(p[7]), float(p[face] / max(p[1:7].sum(), 1e-9))))
        return out


def on_table(readings: list[DieReading], die_px: float, size: tuple[int, int],
             faces_in: float = 0.0) -> list[DieReading]:
    """The dice of a view of the square inside the walls, as `cocked_on_table` flags them, less
    those whose middle lies beyond the walls' faces (only when `faces_in` > 0, the view reaching
    past them so that a die leaning on a wall is seen whole; a die lies inside the walls, R18)."""
    h, w = size
    if faces_in > 0:  # a view that stops inside the walls keeps a die cut by its edge, centre beyond it
        readings = [d for d in readings
                    if min(d.centre[0], d.centre[1], w - d.centre[0], h - d.centre[1]) >= faces_in]
    return cocked_on_table(readings, die_px, size, faces_in)


def cocked_on_table(readings: list[DieReading], die_px: float, size: tuple[int, int],
                    faces_in: float = 0.0) -> list[DieReading]:
    """`readings` of a view of the square inside the walls (h, w = `size`; the walls' faces
    `faces_in` pixels in from its edges, negative when the view stops inside them), each die
    flagged cocked (R18) when it has something to lean on within reach (`LEAN_REACH_WALL`,
    `LEAN_REACH_DIE`) and its cocked probability is at least `LEANING_COCKED_P`; a die out in the
    open lies flat.

    Of two dice with nothing but each other to lean on, only the one that reads more cocked is
    cocked: the other is its support, which stands flat (two dice propping each other up, both
    cocked, is left out). The crop of a flat die with a cocked one against it shows the leaning
    die's side, so the support may read cocked too."""
    h, w = size

    def near(d: DieReading, o: DieReading) -> bool:
        return o is not d and np.hypot(d.centre[0] - o.centre[0], d.centre[1] - o.centre[1]) <= LEAN_REACH_DIE * die_px

    def by_wall(d: DieReading) -> bool:
        x, y = d.centre
        return min(x, y, w - x, h - y) - faces_in <= LEAN_REACH_WALL * die_px

    leaning = [d.p_cocked >= LEANING_COCKED_P and (by_wall(d) or any(near(d, o) for o in readings))
               for d in readings]
    out = []
    for d, may in zip(readings, leaning):
        # a surer leaning die beside it: this one is its support
        holds = any(near(d, o) and ok and o.p_cocked > d.p_cocked for o, ok in zip(readings, leaning))
        cocked = bool(may and (by_wall(d) or not holds))
        out.append(d if cocked == d.cocked else replace(d, cocked=cocked))
    return out


def _check(img) -> None:
    if not isinstance(img, np.ndarray) or img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
        raise ImageError("the dice reader needs a colour picture (H×W×3, 8-bit BGR)")
    if min(img.shape[:2]) < 16:
        raise ImageError(f"picture too small for the dice reader: {img.shape[1]}×{img.shape[0]}")


_reader: DiceReader | None = None
_lock = threading.Lock()


def default_reader() -> DiceReader:
    """The shipped models, loaded on first use and shared."""
    global _reader
    with _lock:
        if _reader is None:
            _reader = DiceReader()
        return _reader


def find_dice(img: np.ndarray, die_px: float | None = None, roi_mask: np.ndarray | None = None,
              foot=None, skip=None) -> list[DieReading]:
    """Dice in a top-down picture. `die_px`: the side of a die in pixels (None: found from the picture).

    `roi_mask` (uint8, same size): only dice whose centre lies where it is non-zero. `foot`: the
    table point right below the camera, in the picture's pixels (None: the picture's middle).
    `skip`: see `DiceReader.read`.
    """
    got = default_reader().read(img, die_px, foot, skip)
    if roi_mask is not None:
        got = [d for d in got if roi_mask[min(int(d.centre[1]), roi_mask.shape[0] - 1),
                                          min(int(d.centre[0]), roi_mask.shape[1] - 1)]]
    return got
