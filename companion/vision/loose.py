"""Is a tile lying on this stack? The loose tiles (R19) told by a small network.

Parallax alone (`walls._Tops.rise(lead=True)`) finds a loose tile only where its top reaches
past the stack's outer edge. Laid by hand, a loose tile often lies a few millimetres inwards or
askew, and then its top edge does not show beyond the stack's: what shows is its own outline
on the stack's top, a sliver of its side, a corner turned off the line of the wall. A small
convolutional network (`loose_weights/loose.onnx`, trained on rendered tables by
`models/walls/train_loose.py`) reads each stack where the dead wall may stand, beside the
stacks around it.

The input is built here, for training and run time alike, so that the two cannot drift apart:
the stack's patch of the wall strip (`wall_strips.Strip`, Lab), the per-pixel median of its
neighbours' patches (what a plain stack looks like there: light, colour, parallax), and how far
parallax moves a full stack's top on that side. The patch is turned so that parallax always
moves tops down it.
"""

from __future__ import annotations

import logging
import os
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError

MODEL_FILE = Path(__file__).resolve().parent / "loose_weights" / "loose.onnx"
#: a patch: pixels along the wall × across it; it spans `ALONG` stack pitches around the stack
PATCH_COLS, PATCH_ROWS = 32, 48
ALONG = 1.6
#: channels: the patch (Lab), its neighbours' median (Lab), the parallax shift of a full top
CHANNELS = 7
#: neighbours within this many stacks make the reference
REACH = 3
#: a full stack's top moved this far by parallax (cm) is 1.0 in the shift channel
SHIFT_UNIT_CM = 3.0

log = logging.getLogger(__name__)


class LooseModelError(CompanionError, RuntimeError):
    """The loose-tile model file is missing or damaged."""


def patch(lab: np.ndarray, col: float, half_cols: float, rows: tuple[int, int], flip: bool) -> np.ndarray:
    """The strip around column `col` (± `half_cols`), rows `rows`, resampled to PATCH_ROWS × PATCH_COLS."""
    r0, r1 = rows
    src = np.float32([[col - half_cols, r0], [col + half_cols, r0], [col - half_cols, r1]])
    dst = np.float32([[0, 0], [PATCH_COLS, 0], [0, PATCH_ROWS]])
    out = cv2.warpAffine(lab, cv2.getAffineTransform(src, dst), (PATCH_COLS, PATCH_ROWS),
                         flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out[::-1] if flip else out


def inputs(lab: np.ndarray, spans: dict[int, tuple[float, float]], wanted: list[int], rows: tuple[int, int],
           pitch_cols: float, shift_cm: float) -> dict[int, np.ndarray]:
    """The network's input (CHANNELS × PATCH_ROWS × PATCH_COLS, float32) for each stack in `wanted`.

    `spans`: every standing stack of the wall, its columns in the strip; `rows`: the band of
    rows where the tops may lie; `pitch_cols`: the stack pitch in columns; `shift_cm`: how far
    parallax moves a full stack's top outwards (negative: inwards, the patch is turned over).
    """
    flip = shift_cm < 0
    half = ALONG * pitch_cols / 2
    cache: dict[int, np.ndarray] = {}

    def get(k: int) -> np.ndarray:
        if k not in cache:
            c0, c1 = spans[k]
            cache[k] = (patch(lab, (c0 + c1) / 2, half, rows, flip) - 128.0) / 64.0
        return cache[k]

    out = {}
    shift = np.full((1, PATCH_ROWS, PATCH_COLS), abs(shift_cm) / SHIFT_UNIT_CM, np.float32)
    for k in wanted:
        if k not in spans:
            continue
        around = [j for j in spans if j != k and abs(j - k) <= REACH]
        mine = get(k)
        ref = _median(np.stack([get(j) for j in around])) if around else mine
        out[k] = np.concatenate([mine.transpose(2, 0, 1), ref.transpose(2, 0, 1), shift]).astype(np.float32)
    return out


def _median(stack: np.ndarray) -> np.ndarray:
    """np.median over the first axis, in half its time for a handful of patches."""
    s = np.sort(stack, axis=0)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


class LooseReader:
    """The model, loaded once: P(a tile lies on the stack) for a batch of inputs."""

    def __init__(self, path: Path | str | None = None) -> None:
        from companion.vision.onnx_options import open_model, session_options

        self.session = open_model(Path(path) if path is not None else MODEL_FILE, "loose-tile model",
                                  "models/walls/train_loose.py", LooseModelError,
                                  session_options(min(2, os.cpu_count() or 1)))

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if not len(batch):
            return np.zeros(0, np.float32)
        logits = self.session.run(None, {"patch": np.ascontiguousarray(batch, np.float32)})[0].reshape(-1)
        return 1.0 / (1.0 + np.exp(-logits))


@lru_cache(maxsize=1)
def reader() -> LooseReader | None:
    """The shipped model, or None where it is missing (the walls are then read by parallax alone)."""
    try:
        return LooseReader()
    except LooseModelError as e:
        log.warning("%s: loose tiles are told by parallax alone", e)
        return None
