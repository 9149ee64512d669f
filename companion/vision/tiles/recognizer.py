"""The two-stage tile recogniser: find tile faces, then name each crop.

Stage 1 (tile_detector.onnx): the whole frame stretched to the detector's square input
(384x384 for the shipped model; as the training photos were stretched to a square) ->
centre heat map with peaks, box size, offset; then twins are suppressed (NMS, and a box
lying mostly inside a better one: half a tile found next to the whole).
Stage 2 (tile_classifier.onnx): each box plus a 6 % margin stretched to the classifier's
square input (48x48) -> 42 kind probabilities and a 128-d embedding. A taught tile set
(see `teach`) replaces the classifier's head by one fitted on the players' own tiles.
Both input sizes are read from the ONNX files, so a retrained pair may change them.
Two more detectors may come with the models (tile_models.json), each loaded on first use:
* the *general* one (`general_detector`), also trained on rendered tiles of many made-up
  designs: it finds a design the shipped detector never saw better, and ordinary photos worse.
  Only a taught set that the shipped classifier did not know uses it (see `teach`), and only in
  pictures read as one window;
* the *windows* one (`window_detector`): an earlier checkpoint of the shipped detector's run,
  which finds tiles of designs it never saw more often; a calibrated table view is read with it
  in windows (see `detect`). Without it, windows use the shipped detector.
Only numpy, OpenCV and onnxruntime run here: no PyTorch at run time.
"""

from __future__ import annotations

import io
import os
import re
import time
import warnings
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps

from companion.errors import ImageError
from companion.vision.tiles import models
from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.teach import TAUGHT_NAME_FLOOR

DET_SIZE = 384   # only if a detector's input size is dynamic; a fixed size in the file wins
DET_STRIDE = 4
CLS_SIZE = 48    # likewise for the classifier
MARGIN = 0.06
MAX_TILES = 150
#: windows overlap by this many tile lengths, so every tile lies whole in at least one window
WINDOW_OVERLAP_TILES = 1.5
#: a window with fewer than this share of pixels further than CLOTH_DIFF (any channel) from the
#: image's commonest colour is bare cloth: skipped (a tile face covers several per cent of one)
BUSY_SHARE = 0.01
CLOTH_DIFF = 40
#: a photo's first reading is "unsure" when its UNSURE_TOP best heat-map peaks average below
#: the model's `unstretch_gate` (see TileRecognizer._detect_photo)
UNSURE_TOP = 5
#: a reading's confidence: the sum of the squares of its best CONFIDENT_TOP scores at or above
#: the threshold (squared, so that a few sure boxes outweigh many doubtful ones)
CONFIDENT_TOP = 30
#: a squeezed photo read by a detector of free input size gets at least this border of its
#: median colour, and its sides are rounded up to a multiple of SIDE_STEP (the coarsest stride)
SQUEEZE_BORDER = 32
SIDE_STEP = 32
#: `embed`'s default: the recogniser's own taught set
SAME = object()
#: the detectors besides the shipped one, by name: their key in tile_models.json
EXTRA_DETECTORS = {"general": "general_detector", "windows": "window_detector"}


@dataclass(frozen=True)
class Tile:
    """One recognised tile: code, box [x1, y1, x2, y2] in image pixels, score 0-1."""

    tile: str
    box: tuple[float, float, float, float]
    score: float

    def to_json(self) -> dict:
        return {"tile": self.tile, "box": [round(v, 1) for v in self.box], "score": round(self.score, 3)}


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Decode an image file to BGR, or raise ImageError saying why not (naming the file as given)."""
    name = os.fspath(path)  # not Path's spelling: "./a.png" stays "./a.png", as the caller prints it
    p = Path(path)
    if name == "-":
        raise ImageError("-: give image files; pictures are not read from standard input")
    if p.is_dir():
        raise ImageError(f"{name}: is a folder, not an image file")
    if not p.is_file():
        raise ImageError(f"{name}: no such image file")
    try:
        data = np.fromfile(str(p), np.uint8)
    except OSError as e:  # unreadable: permissions, a failing card
        raise ImageError(f"{name}: cannot read: {e.strerror}") from None
    return decode_image(data, name)


def named(name: str, why: object) -> str:
    """An image's error as one message naming it once: read_image's already begin with the name."""
    text = str(why)
    return text if text.startswith(f"{name}:") else f"{name}: {text}"


#: pictures with more pixels are refused before they are decoded: a 48-megapixel phone photo
#: fits, while a picture of a few hundred megapixels (a few MB as PNG) would take gigabytes
MAX_PIXELS = 64_000_000
#: pictures with a shorter side are refused: no tile, die or marker can be told in them. One
#: rule for files (`recognize`, `observe`, `teach`) and frames (`scene.analyse`)
MIN_SIDE = 32


def too_small(name: str, width: int, height: int) -> str | None:
    """Why a picture of width x height pixels is refused as too small, or None if it is not."""
    if min(width, height) >= MIN_SIDE:
        return None
    return f"{name}: too small to read ({width}×{height} pixels; at least {MIN_SIDE}×{MIN_SIDE})"


@cache
def _open_heif() -> None:
    """Let Pillow open HEIC/HEIF, the photos of iPhones and of some Android phones, which OpenCV
    does not read (it reads JPEG, PNG, WebP and AVIF itself)."""
    from pillow_heif import register_heif_opener

    register_heif_opener()


def _decode_with_pillow(buf: np.ndarray) -> np.ndarray | None:
    """A picture OpenCV cannot decode, through Pillow, to BGR (EXIF orientation applied); None if
    Pillow cannot either."""
    try:
        with Image.open(io.BytesIO(buf.tobytes())) as im:
            rgb = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
    except Exception:  # corrupt, truncated or a format Pillow does not know either
        return None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def _pixels(buf: np.ndarray) -> float | None:
    """Width x height from the file's header alone (Pillow reads no pixels to tell), or None."""
    try:
        with warnings.catch_warnings():  # Pillow warns over 89 megapixels: the caller says it in words
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(buf.tobytes())) as im:
                w, h = im.size
    except Image.DecompressionBombError as e:  # beyond Pillow's own bound, far above ours
        count = re.search(r"\((\d+) pixels\)", str(e))  # it keeps the size to itself but says the count
        return float(count[1]) if count else float("inf")
    except Exception:  # a format Pillow does not know: OpenCV decides
        return None
    return float(w * h)


def decode_image(data: bytes | np.ndarray, name: str = "image") -> np.ndarray:
    """Decode an encoded image (JPEG, PNG, WebP, AVIF, HEIC, ...; EXIF orientation applied) to BGR,
    or raise ImageError saying why not."""
    buf = np.frombuffer(data, np.uint8) if isinstance(data, (bytes, bytearray)) else data
    if not buf.size:
        raise ImageError(f"{name}: the file is empty")
    at_most = f"at most {MAX_PIXELS // 1_000_000} megapixels"
    _open_heif()  # before the size is read: Pillow then knows a HEIC photo's size too
    pixels = _pixels(buf)
    if pixels is not None and pixels > MAX_PIXELS:
        over = 2 * (Image.MAX_IMAGE_PIXELS or 0)  # Pillow's bound, when it did not say the count
        size = f"over {over / 1e6:,.0f}" if pixels == float("inf") else f"{pixels / 1e6:,.0f}"
        raise ImageError(f"{name}: too large to read ({size} megapixels; {at_most})")
    try:
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    except MemoryError:
        raise ImageError(f"{name}: too large to read (not enough memory; {at_most})") from None
    except cv2.error as e:  # OpenCV's own bounds (2^30 pixels), met in a format Pillow does not read
        if "CV_IO_MAX_IMAGE_PIXELS" in str(e) or "Insufficient memory" in str(e):
            raise ImageError(f"{name}: too large to read ({at_most})") from None
        img = None
    if img is None:
        img = _decode_with_pillow(buf)
    if img is None:
        raise ImageError(f"{name}: not a readable image (corrupt or unsupported format)")
    if why := too_small(name, img.shape[1], img.shape[0]):
        raise ImageError(why)
    return img


def crop_tiles(image: np.ndarray, boxes: np.ndarray, size: int = CLS_SIZE) -> np.ndarray:
    """Cut each box plus margin out of the image, stretched to size x size: (N, 3, s, s) float32.

    A region much larger than the crop is first shrunk with area averaging, each axis on
    its own (a tile stretched across a photo is wide but short: shrinking both axes by the
    width's factor would leave a few pixels of its height).
    """
    out = np.empty((len(boxes), 3, size, size), np.float32)
    h, w = image.shape[:2]
    dst = np.float32([[0, 0], [size, 0], [size, size]])
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        mx, my = (x2 - x1) * MARGIN, (y2 - y1) * MARGIN
        src = np.float32([[x1 - mx, y1 - my], [x2 + mx, y1 - my], [x2 + mx, y2 + my]])
        fx = min(1.0, 2 * size / max(x2 - x1 + 2 * mx, 1e-3))
        fy = min(1.0, 2 * size / max(y2 - y1 + 2 * my, 1e-3))
        if fx < 1 or fy < 1:  # big region: shrink it first so that nothing aliases
            xa, ya = int(max(0, x1 - mx)), int(max(0, y1 - my))
            xb, yb = int(min(w, x2 + mx + 1)), int(min(h, y2 + my + 1))
            if xb - xa >= 2 and yb - ya >= 2:
                sub = cv2.resize(image[ya:yb, xa:xb], (max(2, round((xb - xa) * fx)), max(2, round((yb - ya) * fy))),
                                 interpolation=cv2.INTER_AREA)
                src = (src - [xa, ya]) * [sub.shape[1] / (xb - xa), sub.shape[0] / (yb - ya)]
                m = cv2.getAffineTransform(np.float32(src), dst)
                crop = cv2.warpAffine(sub, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                out[i] = crop.transpose(2, 0, 1)
                continue
        m = cv2.getAffineTransform(src, dst)
        crop = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out[i] = crop.transpose(2, 0, 1)
    return out * np.float32(1 / 255.0)


def decode_detections(heat: np.ndarray, size: np.ndarray, offset: np.ndarray, threshold: float,
                      scale_x: float, scale_y: float, box_scale=(1.0, 1.0)) -> tuple[np.ndarray, np.ndarray]:
    """Peaks of the heat map above threshold -> boxes in image pixels and scores.

    `box_scale` corrects the size head's known bias (it was trained to under-shoot the
    loose boxes of augmented photos; see the model card) by a fixed factor per axis.
    """
    hm = heat[0, 0]
    flat = hm.ravel()
    idx = np.flatnonzero(flat > threshold)
    if idx.size > MAX_TILES:
        idx = idx[np.argsort(flat[idx])[::-1][:MAX_TILES]]
    ys, xs = np.divmod(idx, hm.shape[1])
    cx = (xs + offset[0, 0, ys, xs]) * DET_STRIDE
    cy = (ys + offset[0, 1, ys, xs]) * DET_STRIDE
    bw = np.exp(size[0, 0, ys, xs]) * DET_STRIDE * box_scale[0]
    bh = np.exp(size[0, 1, ys, xs]) * DET_STRIDE * box_scale[1]
    boxes = np.stack([(cx - bw / 2) * scale_x, (cy - bh / 2) * scale_y, (cx + bw / 2) * scale_x, (cy + bh / 2) * scale_y], 1)
    return boxes.astype(np.float32), flat[idx].astype(np.float32)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float = 0.6, contain: float = 1.01) -> np.ndarray:
    """Indices kept by greedy suppression, best score first: a box goes when its IoU with a
    kept box exceeds `iou` (twins) or when more than `contain` of its own area lies inside a
    kept box (a half tile next to the whole one; tiles side by side barely overlap, so this
    does not merge neighbours). `contain` > 1 switches the second test off."""
    order = np.argsort(scores)[::-1]
    keep = []
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(xx2 - xx1, 0, None) * np.clip(yy2 - yy1, 0, None)
        ok = (inter / (area[i] + area[rest] - inter + 1e-9) <= iou) & (inter <= contain * area[rest])
        order = rest[ok]
    return np.asarray(keep, np.int64)


def _starts(length: int, side: int, overlap: int) -> list[int]:
    """Window origins along one axis: `side` long, overlapping by `overlap`, the last flush with the end."""
    if length <= side:
        return [0]
    step = max(1, side - overlap)
    out = list(range(0, length - side, step))
    return out + [length - side]


def _top_mean(heat: np.ndarray) -> float:
    """Mean of the UNSURE_TOP highest values of a heat map (its non-peaks are already zero)."""
    flat = heat.ravel()
    return float(np.partition(flat, flat.size - UNSURE_TOP)[-UNSURE_TOP:].mean())


def _confidence(scores: np.ndarray, threshold: float) -> float:
    """How sure the detector is of a reading: the sum of the squares of its best CONFIDENT_TOP
    scores above threshold. Plain sums favoured a reading with many doubtful boxes (a photo
    squeezed too little) over one with fewer sure ones (squeezed right); see the model card."""
    top = np.sort(scores[scores >= threshold])[::-1][:CONFIDENT_TOP]
    return float(np.square(top).sum())


def _square_input(session, default: int) -> int:
    """The fixed height (= width) of a model's image input, or `default` if it is dynamic."""
    shape = session.get_inputs()[0].shape
    return shape[-1] if isinstance(shape[-1], int) and shape[-1] > 0 else default


@dataclass(frozen=True)
class DetectorModel:
    """One detector network with what belongs to it: its square input side and box-size factor."""

    session: object
    size: int
    box_scale: tuple[float, float]
    free: object = None  # the same network taking any input height and width, if it can (_detect_squeezed)


def _load_detector(path: Path, threads: int | None, box_scale) -> DetectorModel:
    """A detector file as a DetectorModel. One whose input takes any height and width is loaded
    twice: pinned to its square size for plain readings (onnxruntime then plans the graph once:
    1.8 instead of 2.2 ms a pass on two cores), and free, on one thread, for squeezed ones (a squeezed
    picture is a fraction of a plain one: waking a second thread cost more than it saved,
    0.9 ms at the median over the validation photos)."""
    one = models.session(path, 1)
    size = _square_input(one, DET_SIZE)
    dims = one.get_inputs()[0].shape[-2:]
    if all(isinstance(d, int) and d > 0 for d in dims):
        return DetectorModel(one if threads == 1 else models.session(path, threads), size, tuple(box_scale))
    pinned = models.session(path, threads, fixed={d: size for d in dims if isinstance(d, str)})
    return DetectorModel(pinned, size, tuple(box_scale), free=one)


def _round_up(n: int, step: int) -> int:
    return -(-n // step) * step


class TileRecognizer:
    """Load the models once, then `recognize(image)` as often as needed.

    `taught`: a TaughtSet (see companion.vision.tiles.teach) whose head names the crops
    instead of the shipped classifier's; None uses the shipped classifier. A photo read as
    one window is then also detected at the set's own threshold, unless `threshold` is given.
    In a picture read as one window, a box whose best name is unsure (below `name_floor` of
    tile_models.json, or a taught set's TAUGHT_NAME_FLOOR) is dropped.
    """

    def __init__(self, folder: str | os.PathLike | None = None, threshold: float | None = None,
                 taught=None, threads: int | None = None):
        d = models.model_dir(folder)
        cfg = models.settings(d)
        self._shipped = _load_detector(d / models.DETECTOR_FILE, threads, cfg["box_scale"])
        self.detector = self._shipped.session
        self.classifier = models.session(d / models.CLASSIFIER_FILE, threads)
        self.shipped_threshold = float(cfg["threshold"])
        self.threshold = self.shipped_threshold if threshold is None else threshold
        self._threshold_given = threshold is not None
        self.box_scale = tuple(cfg["box_scale"])
        self.rotate_tta = bool(cfg["rotate_tta"])
        self.contain = float(cfg["contain"])
        self.window_tile_px = float(cfg["window_tile_px"])
        self.window_threshold = float(cfg["window_threshold"])
        self.name_floor = float(cfg["name_floor"])
        self.quarter_tta_below = float(cfg["quarter_tta_below"])
        self.unstretch_factors = tuple(float(f) for f in cfg["unstretch_factors"])
        self.unstretch_gate = float(cfg["unstretch_gate"])
        self.unstretch_margin = float(cfg["unstretch_margin"])
        self.unstretch_go_on = float(cfg["unstretch_go_on"])
        if unknown := sorted(set(cfg["faint_kinds"]) - set(TILE_CODES)):
            raise models.ModelError(f"{d / models.SETTINGS_FILE}: unknown tile codes in faint_kinds: {', '.join(unknown)}")
        self.faint_idx = np.array([TILE_CODES.index(c) for c in cfg["faint_kinds"]], np.int64)
        self.faint_threshold = float(cfg["faint_threshold"])
        self.faint_sure = float(cfg["faint_sure"])
        self.det_size = self._shipped.size
        self.cls_size = _square_input(self.classifier, CLS_SIZE)
        self.taught = taught
        self._extra_specs = {which: (d / spec["file"], tuple(spec["box_scale"]), threads)
                             for which, key in EXTRA_DETECTORS.items() if (spec := cfg.get(key))}
        self._extra: dict[str, DetectorModel] = {}
        self._pool = None  # see _squeeze_pool
        # one dummy pass so onnxruntime's first-run set-up is not billed to the first image
        self.detector.run(None, {"image": np.zeros((1, 3, self.det_size, self.det_size), np.float32)})
        if self._shipped.free is not None:
            self._shipped.free.run(None, {"image": np.zeros((1, 3, self.det_size, SIDE_STEP), np.float32)})
        self.classifier.run(None, {"crops": np.zeros((2, 3, self.cls_size, self.cls_size), np.float32)})

    @property
    def has_general_detector(self) -> bool:
        return "general" in self._extra_specs

    def detector_model(self, which: str = "shipped") -> DetectorModel:
        """The shipped detector, or one of EXTRA_DETECTORS (loaded on first use); "windows"
        falls back to the shipped detector when the models have none of their own."""
        if which == "shipped" or (which == "windows" and which not in self._extra_specs):
            return replace(self._shipped, box_scale=self.box_scale)  # box_scale may be re-set (calibrate.py)
        if which not in EXTRA_DETECTORS:
            raise ValueError(f"unknown detector {which!r}")
        if which not in self._extra:
            if which not in self._extra_specs:
                raise models.ModelError(f"these tile models have no {which} detector")
            path, scale, threads = self._extra_specs[which]
            self._extra[which] = _load_detector(path, threads, scale)
        return self._extra[which]

    def _photo_detector(self) -> DetectorModel:
        """The detector for a picture read as one window: the taught set's choice, if any (with
        models that have no general detector, e.g. `--models DIR`, the shipped one)."""
        if self.taught is not None and self.taught.detector == "general" and self.has_general_detector:
            return self.detector_model("general")
        return self.detector_model()

    def detect(self, image: np.ndarray, tile_px: float | None = None, detector: str | None = None,
               threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Tile-face boxes (N, 4) in image pixels and their detection scores.

        `tile_px`: how long a tile face is in this image, when known (a calibrated table view).
        The image is then read in overlapping square windows scaled so that a tile comes out
        `window_tile_px` long at the detector's input (see the model card); without it the whole
        image is one window (a photo of a hand or of a few tiles, framed like the training photos).
        `detector`: "shipped" or "general" for a picture read as one window (default: the taught
        set's choice); windows always use the windows detector, whose window settings they are.
        `threshold`: for a picture read as one window, this detection threshold instead of the
        recogniser's (or its taught set's).
        """
        if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 8:
            raise ImageError("expected a BGR colour image of at least 8x8 pixels")
        h, w = image.shape[:2]
        if tile_px is None:
            det = self._photo_detector() if detector is None else self.detector_model(detector)
            th = self._photo_threshold() if threshold is None else threshold
            boxes, scores = self._detect_photo(image, th, det)  # already suppressed
        else:
            det = self.detector_model("windows")
            side = max(8, int(round(tile_px * det.size / self.window_tile_px)))
            overlap = int(round(WINDOW_OVERLAP_TILES * tile_px))
            boxes, scores = self._suppress(*self._detect_windows(image, side, overlap, det))
        if len(boxes):
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
            boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes, scores

    def _detect_photo(self, image: np.ndarray, threshold: float,
                      det: DetectorModel) -> tuple[np.ndarray, np.ndarray]:
        """A picture read as one window, and read again un-stretched when the detector is unsure.

        Photos in the training set were stretched to a square, so a photo of a long row of tiles
        arrives with every tile stretched two to ten times along one axis, and the detector finds
        few of them, with low scores. Such a photo (the mean of its five highest peaks below
        `unstretch_gate`) is also read squeezed back along x and along y by each of
        `unstretch_factors` (the data set holds photos stretched up to about 16x): first by the
        smallest, then by the others only if one of those two readings has at least
        `unstretch_go_on` times the plain reading's confidence (`_confidence`). The reading the
        detector is most confident of wins, if it beats the plain one by `unstretch_margin`.
        Ordinary photos are read once.
        """
        h, w = image.shape[:2]
        square = self._square(image, det)
        heat, size, offset = self._run(det, square)
        boxes, scores = self._suppress(*decode_detections(heat, size, offset, threshold, w / det.size,
                                                          h / det.size, det.box_scale))
        # a taught set the detector is less sure of has a lower threshold: be unsure relative to it
        sure = self.shipped_threshold
        if self.taught is not None and self.taught.threshold is not None:
            sure = min(sure, self.taught.threshold)
        if self.unstretch_factors and _top_mean(heat) < self.unstretch_gate * sure / self.shipped_threshold:
            plain, readings = _confidence(scores, sure), []

            def squeezed(job: tuple[int, float]):
                return self._suppress(*self._detect_squeezed(image, *job, threshold, det, square))

            def read(factors) -> float:  # two at a time: each is too small to keep two cores busy
                jobs = [(axis, f) for axis in (0, 1) for f in factors]
                for b, sc in self._squeeze_pool().map(squeezed, jobs):
                    readings.append((_confidence(sc, sure), b, sc))
                return max(r[0] for r in readings)

            # an ordinary photo the detector is merely unsure of reads worse squeezed even a little
            if read(self.unstretch_factors[:1]) >= self.unstretch_go_on * plain:
                read(self.unstretch_factors[1:])
            c, b, sc = max(readings, key=lambda r: r[0])
            if c > self.unstretch_margin * plain:
                boxes, scores = b, sc
        return boxes, scores

    def _squeeze_pool(self):
        """Two threads for squeezed readings, started on first use (onnxruntime and OpenCV let
        go of the GIL while they work)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tile-squeeze")
        return self._pool

    def _detect_squeezed(self, image: np.ndarray, axis: int, factor: float, threshold: float,
                         det: DetectorModel, square: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Detections in the image squeezed by `factor` along `axis` (0: x, 1: y) and padded with
        its median colour; boxes in the original image's pixels. A detector of fixed input size
        reads it padded to a square; one of free input size reads only the squeezed picture and a
        border, at the same scale, which costs it about 1/factor of a plain reading. `square`: the
        image already stretched to the detector's input (`_square`): squeezing that is faster,
        and the squeezed picture is no larger than it along either axis."""
        h, w = image.shape[:2]
        size = (max(8, round(w / factor)), h) if axis == 0 else (w, max(8, round(h / factor)))
        if det.free is not None:
            s = det.size / max(size)
            iw, ih = max(8, round(size[0] * s)), max(8, round(size[1] * s))
            small = cv2.resize(image if square is None else square, (iw, ih), interpolation=cv2.INTER_AREA)

            def side(n: int) -> int:  # the long side fills the input as in a square reading
                return n if n >= det.size else min(det.size, _round_up(n + SQUEEZE_BORDER, SIDE_STEP))
            canvas = np.empty((side(ih), side(iw), 3), np.uint8)
            canvas[:] = np.median(small[::4, ::4].reshape(-1, 3), axis=0)
            canvas[:ih, :iw] = small
            x = canvas.transpose(2, 0, 1)[None].astype(np.float32) * np.float32(1 / 255.0)
            heat, sizes, offset = det.free.run(None, {"image": x})
            return decode_detections(heat, sizes, offset, threshold, w / iw, h / ih, det.box_scale)
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        side = max(small.shape[:2])
        canvas = np.empty((side, side, 3), np.uint8)
        canvas[:] = np.median(small[::4, ::4].reshape(-1, 3), axis=0)
        canvas[:small.shape[0], :small.shape[1]] = small
        boxes, scores = self._detect_window(canvas, threshold, det)
        boxes[:, [axis, axis + 2]] *= np.float32(factor)
        return boxes, scores

    def _suppress(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(boxes):
            return boxes, scores
        keep = nms(boxes, scores, contain=self.contain)
        return boxes[keep], scores[keep]

    def _photo_threshold(self) -> float:
        """The threshold for a picture read as one window: a taught set's own, where it has one."""
        if self.taught is not None and self.taught.threshold is not None and not self._threshold_given:
            return min(self.threshold, self.taught.threshold)
        return self.threshold

    @staticmethod
    def _square(window: np.ndarray, det: DetectorModel) -> np.ndarray:
        """One window stretched to the detector's square input (uint8 BGR)."""
        h, w = window.shape[:2]
        n = det.size
        # bilinear as the training views were warped, unless shrinking so far that it would alias
        return cv2.resize(window, (n, n), interpolation=cv2.INTER_AREA if max(h, w) > 2 * n else cv2.INTER_LINEAR)

    @staticmethod
    def _run(det: DetectorModel, x: np.ndarray) -> list[np.ndarray]:
        """The detector's raw outputs (heat, size, offset) for a uint8 BGR input."""
        return det.session.run(None, {"image": x.transpose(2, 0, 1)[None].astype(np.float32) * np.float32(1 / 255.0)})

    def _infer(self, window: np.ndarray, det: DetectorModel) -> list[np.ndarray]:
        """The detector's raw outputs (heat, size, offset) for one window stretched to its square input."""
        return self._run(det, self._square(window, det))

    def _detect_window(self, window: np.ndarray, threshold: float,
                       det: DetectorModel) -> tuple[np.ndarray, np.ndarray]:
        """Detector peaks in one window, stretched to the detector's square input."""
        h, w = window.shape[:2]
        heat, size, offset = self._infer(window, det)
        return decode_detections(heat, size, offset, threshold, w / det.size, h / det.size, det.box_scale)

    def _detect_windows(self, image: np.ndarray, side: int, overlap: int,
                        det: DetectorModel) -> tuple[np.ndarray, np.ndarray]:
        """Detector peaks over square windows of `side` pixels overlapping by `overlap`.

        A box touching a window's inner edge (one shared with a neighbouring window) is a tile
        cut in two: it is dropped there, since the overlap shows that tile whole elsewhere.
        Windows of bare cloth (almost every pixel near the image's commonest colour) are skipped.
        """
        h, w = image.shape[:2]
        boxes, scores = [np.zeros((0, 4), np.float32)], [np.zeros(0, np.float32)]
        small = image[::4, ::4].reshape(-1, 3).astype(np.int16)
        cloth = np.median(small, axis=0)
        busy = (np.abs(image.astype(np.int16) - cloth.astype(np.int16)).max(axis=2) > CLOTH_DIFF).astype(np.uint8)
        counts = cv2.integral(busy)
        edge = max(1.0, 0.03 * side)
        for y0 in _starts(h, side, overlap):
            for x0 in _starts(w, side, overlap):
                y1, x1 = min(h, y0 + side), min(w, x0 + side)
                n_busy = counts[y1, x1] - counts[y0, x1] - counts[y1, x0] + counts[y0, x0]
                if n_busy < BUSY_SHARE * (y1 - y0) * (x1 - x0):
                    continue
                b, s = self._detect_window(image[y0:y1, x0:x1], self.window_threshold, det)
                inner = np.ones(len(b), bool)
                if x0 > 0:
                    inner &= b[:, 0] > edge
                if y0 > 0:
                    inner &= b[:, 1] > edge
                if x1 < w:
                    inner &= b[:, 2] < (x1 - x0) - edge
                if y1 < h:
                    inner &= b[:, 3] < (y1 - y0) - edge
                boxes.append(b[inner] + np.float32([x0, y0, x0, y0]))
                scores.append(s[inner])
        return np.concatenate(boxes), np.concatenate(scores)

    def embed(self, image: np.ndarray, boxes: np.ndarray, taught=SAME) -> tuple[np.ndarray, np.ndarray]:
        """Name probabilities and unit embeddings (N, 128) of the boxed tiles. The names are the
        taught set's when there is one (N, its codes), else the shipped classifier's (N, 42). A
        crop whose best probability is below `quarter_tta_below` is also read turned a quarter
        each way and the three readings averaged (sideways tiles are the most often misnamed).
        `taught`: this set instead of the recogniser's own (None: the shipped classifier)."""
        taught = self.taught if taught is SAME else taught
        head = taught.predict_proba if taught is not None else None
        if len(boxes) == 0:
            k = len(taught.codes) if taught is not None else len(TILE_CODES)
            return np.zeros((0, k), np.float32), np.zeros((0, 128), np.float32)
        crops = crop_tiles(image, boxes, self.cls_size)
        n = len(crops)
        if self.rotate_tta:  # tiles lie either way up: average with the half-turned crop, in one batch
            crops = np.concatenate([crops, crops[:, :, ::-1, ::-1]])
        probs, emb = self.classifier.run(None, {"crops": crops})
        if self.rotate_tta:
            probs = (probs[:n] + probs[n:]) / 2
            emb = emb[:n] + emb[n:]
            emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-9
        if head is not None:
            probs = head(emb)
        unsure = np.flatnonzero(probs.max(1) < self.quarter_tta_below)
        if len(unsure):  # a crop the head is unsure of is read turned both quarter turns too
            turned = crops[unsure]
            both = np.ascontiguousarray(np.concatenate([np.rot90(turned, k, axes=(2, 3)) for k in (1, 3)]))
            p, e = self.classifier.run(None, {"crops": both})
            if head is not None:
                p = head(e)
            probs = probs.copy()
            probs[unsure] = (probs[unsure] + p[:len(unsure)] + p[len(unsure):]) / 3
        return probs, emb

    def recognize(self, image: np.ndarray, tile_px: float | None = None) -> list[Tile]:
        """Every tile face found in a BGR image, named, in reading order (top-left first).
        `tile_px`: a tile face's long side in pixels, when known (see `detect`)."""
        taught = self.taught  # one set for the whole picture, even if a new one is taught meanwhile
        # a photo is also searched down to faint_threshold for the kinds that show the detector
        # little (a white dragon is often a blank face), kept only where the classifier is sure
        faint = tile_px is None and taught is None and bool(self.faint_idx.size) and self.faint_threshold < self.threshold
        boxes, det = self.detect(image, tile_px, threshold=self.faint_threshold if faint else None)
        probs, _ = self.embed(image, boxes, taught)
        if len(boxes) and tile_px is None:
            # in a photo, a box that no tile name fits is half a tile, off the tile, or no tile.
            # Not in a table view's windows: there a tile the models never saw (an untaught set)
            # still counts as a tile on the table, whatever its name.
            floor = TAUGHT_NAME_FLOOR if taught is not None else self.name_floor
            named = self.kept_in_photo(det, probs, self.threshold if faint else 0.0, floor, faint)
            boxes, det, probs = boxes[named], det[named], probs[named]
        cls = probs.argmax(1) if len(boxes) else np.zeros(0, np.int64)
        tiles = [Tile(taught.codes[c] if taught is not None else TILE_CODES[c],
                      tuple(float(v) for v in b), float(s * p[c]))
                 for b, s, p, c in zip(boxes, det, probs, cls)]
        return sorted(tiles, key=lambda t: (round(t.box[1] / max(1.0, t.box[3] - t.box[1])), t.box[0]))

    def kept_in_photo(self, scores: np.ndarray, probs: np.ndarray, threshold: float, name_floor: float,
                      faint: bool = True) -> np.ndarray:
        """Which boxes of a picture read as one window are tiles: detected at `threshold` or above
        with a best name at least `name_floor` sure; with `faint`, also the faint kinds down to
        `faint_threshold` where the classifier names them at least `faint_sure`."""
        best = probs.max(1) if len(probs) else np.zeros(0, np.float32)
        keep = (scores >= threshold) & (best >= name_floor)
        if faint and self.faint_idx.size and len(probs):
            keep |= ((scores >= self.faint_threshold) & np.isin(probs.argmax(1), self.faint_idx)
                     & (best >= max(self.faint_sure, name_floor)))
        return keep

    def recognize_file(self, path: str | os.PathLike, tile_px: float | None = None) -> tuple[list[Tile], float]:
        """Tiles in an image file and the milliseconds spent (decode included)."""
        t0 = time.perf_counter()
        tiles = self.recognize(read_image(path), tile_px)
        return tiles, (time.perf_counter() - t0) * 1000.0
