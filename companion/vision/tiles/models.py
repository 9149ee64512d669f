"""Where the recogniser's ONNX files are, and loading them into onnxruntime once.

Lookup order: an explicit folder argument, then $COMPANION_TILE_MODELS, then the files
shipped inside the package (`companion/vision/tiles/weights/`, installed as package data,
so a wheel and a source checkout both find them).
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.errors import CompanionError

DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
SETTINGS_FILE = "tile_models.json"
PACKAGED = Path(__file__).resolve().parent / "weights"
ENV_VAR = "COMPANION_TILE_MODELS"


class ModelError(CompanionError, FileNotFoundError):
    """The tile models are missing or cannot be loaded."""


def model_dir(folder: str | os.PathLike | None = None) -> Path:
    """The folder holding tile_detector.onnx and tile_classifier.onnx (first found wins:
    `folder`, then $COMPANION_TILE_MODELS, then the packaged weights)."""
    where = folder or os.environ.get(ENV_VAR) or PACKAGED
    p = Path(where)
    if (p / DETECTOR_FILE).is_file() and (p / CLASSIFIER_FILE).is_file():
        return p
    raise ModelError(f"tile models not found in {p} (need {DETECTOR_FILE} and {CLASSIFIER_FILE})")


def settings(folder: Path) -> dict:
    """Run-time settings that belong to a model pair: detection threshold, box-size factor,
    half-turn test-time averaging, the containment suppression (see recognizer.nms), and how
    windows of a view with tiles of known size are read (`window_tile_px`: the tile length
    they are scaled to at the detector's input; `window_threshold`; see recognizer.detect),
    `name_floor`: a box whose best class probability is below it is dropped, when a photo
    is read again un-stretched (`unstretch_*`, see recognizer.TileRecognizer._detect_photo), and
    `quarter_tta_below`: a crop named less surely than this is also read turned a quarter
    either way, the three readings averaged (see recognizer.TileRecognizer.embed), and the
    detectors besides the shipped one (`general_detector`, `window_detector`: file and box-size
    factor; see recognizer.EXTRA_DETECTORS), and the kinds a photo is also searched for down to
    `faint_threshold`, kept where the classifier names them at least `faint_sure`
    (`faint_kinds`; see recognizer.TileRecognizer.recognize)."""
    import json

    p = Path(folder) / SETTINGS_FILE
    defaults = {"threshold": 0.3, "box_scale": [1.0, 1.0], "rotate_tta": False, "contain": 1.01,
                "window_tile_px": 50.0, "window_threshold": 0.3, "name_floor": 0.0,
                "unstretch_factors": [], "unstretch_gate": 0.0, "unstretch_margin": 1.0,
                "unstretch_go_on": 0.0, "faint_kinds": [], "faint_threshold": 1.0, "faint_sure": 1.0,
                "quarter_tta_below": 0.0}
    if p.is_file():
        defaults.update(json.loads(p.read_text()))
    return defaults


def session(path: Path, threads: int | None = None, fixed: dict[str, int] | None = None):
    """An onnxruntime CPU session for one model file; `fixed`: sizes for named free input axes."""
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - core dependency
        raise ModelError("onnxruntime is not installed") from exc
    from companion.vision.onnx_options import session_options

    opts = session_options(threads)
    for name, value in (fixed or {}).items():
        opts.add_free_dimension_override_by_name(name, value)
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"cannot load tile model {path}: {exc}") from exc
