"""The dice models' training scripts: the photo split keeps its parts apart; rendering in
parallel gives the same pictures as rendering in one process."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

DICE = Path(__file__).resolve().parents[2] / "models" / "dice"
_spec = importlib.util.spec_from_file_location("dice_realdata", DICE / "realdata.py")
realdata = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(realdata)


def _names() -> list[str]:
    """A photo name for every ten seconds of the session's half hour."""
    return [f"IMG_20191208_{11 * 10000 + m * 100 + s:06d}.jpg" for m in range(10, 32) for s in range(0, 60, 10)]


def test_fit_and_tune_split_the_training_photos_and_val_is_apart_from_all_of_them():
    names = _names()
    part = {p: {n for n in names if realdata.in_part(n, p)} for p in realdata.PARTS}
    assert part["all"] == set(names)
    assert part["train"] | part["val"] == part["all"] and not part["train"] & part["val"]
    assert part["fit"] | part["tune"] == part["train"] and not part["fit"] & part["tune"]
    assert part["tune"] and part["fit"] and part["val"]
    assert realdata.in_part("IMG_20191208_111800.jpg", "tune")  # inside TUNE_BLOCKS
    assert realdata.in_part("IMG_20191208_111300.jpg", "val") and not realdata.in_part("IMG_20191208_111300.jpg", "tune")


def test_an_unknown_part_is_refused():
    with pytest.raises(ValueError, match="unknown part 'test'"):
        realdata.in_part("IMG_20191208_111800.jpg", "test")


def test_rendering_in_parallel_gives_the_same_pictures(tmp_path: Path):
    for folder, jobs in (("one", "1"), ("two", "2")):
        subprocess.run([sys.executable, str(DICE / "make_data.py"), "--tray", "3", "--table", "3",
                        "--out", str(tmp_path / folder), "--jobs", jobs], check=True, capture_output=True)
    for kind in ("tray", "table"):
        one, two = tmp_path / "one" / kind, tmp_path / "two" / kind
        labels = json.loads((one / "labels.json").read_text())
        assert labels and labels == json.loads((two / "labels.json").read_text())
        for name in labels:
            assert (one / name).read_bytes() == (two / name).read_bytes(), (kind, name)


def test_robustness_counts_each_kind_of_mistake_once_and_scales_the_truth_with_the_photo():
    """robustness.score: a wrong face is one false positive and one false negative, a die read
    where none lies a false positive, a die not found a false negative; a change that resizes
    the photo resizes the labelled boxes with it."""
    sys.path.insert(0, str(DICE))
    try:
        import robustness
    finally:
        sys.path.remove(str(DICE))
    from types import SimpleNamespace

    truth = [{"face": 3, "box": [10, 10, 30, 30]}, {"face": 5, "box": [50, 10, 70, 30]},
             {"face": 1, "box": [90, 10, 110, 30]}]
    read = [SimpleNamespace(face=3, score=0.9, box=[20, 20, 60, 60]),   # right (boxes twice as large)
            SimpleNamespace(face=6, score=0.8, box=[100, 20, 140, 60]),  # the 5 read as a 6
            SimpleNamespace(face=2, score=0.7, box=[300, 300, 340, 340])]  # nothing lies there
    reader = SimpleNamespace(read=lambda img: read)
    twice = (lambda img: img, 2.0)
    got = robustness.score(reader, [(None, truth)], twice)
    assert got == {"tp": 1, "fp": 2, "fn": 2, "f1": 0.3333, "wrong_face": 1, "spurious": 1, "missed": 1}


def _make_data():
    spec = importlib.util.spec_from_file_location("dice_make_data", DICE / "make_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tile_art(monkeypatch):
    """The riichi art's designs drawn by a stand-in painter (no cairo needed), and the art's
    "is it installed" cache cleared before and after."""
    import numpy as np

    from companion.vision.render import tiles as tile_look
    from companion.vision.tiles import render as art

    def paint(code: str, w: int, h: int):
        design = np.zeros((h, w, 4), np.uint8)
        design[h // 4: 3 * h // 4, w // 4: 3 * w // 4] = (30 * len(code), 90, 160, 255)
        return design

    monkeypatch.setattr(art, "_riichi_design", paint)
    tile_look._tile_art.cache_clear()
    yield art
    tile_look._tile_art.cache_clear()


def test_recorded_tile_art_draws_the_same_table_views_without_the_art(tile_art, tmp_path: Path, monkeypatch):
    """`--record-art` keeps the designs the art drew; `--replay-art` draws the same pictures from
    them on a machine without the art (a lent GPU machine), so hard negatives mined elsewhere fit."""
    from companion.vision.render import tiles as tile_look

    make_data = _make_data()
    make_data.record_art(tmp_path / "art")
    make_data.make("table", 4, tmp_path / "recorded")
    recorded = sorted((tmp_path / "art").iterdir())
    assert recorded and all(p.suffix == ".png" and p.stem.count("_") == 2 for p in recorded)

    def no_art(code, w, h):
        raise OSError("no cairo here")

    monkeypatch.setattr(tile_art, "_riichi_design", no_art)
    tile_look._tile_art.cache_clear()
    make_data.replay_art(tmp_path / "art")
    make_data.make("table", 4, tmp_path / "replayed")
    one, two = tmp_path / "recorded" / "table", tmp_path / "replayed" / "table"
    labels = json.loads((one / "labels.json").read_text())
    assert any(lab["look"] == "art" for lab in labels.values())  # the art was drawn, not only the stand-in
    assert labels == json.loads((two / "labels.json").read_text())
    for name in labels:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name

    next(p for p in recorded if p.stem.startswith("1p_")).unlink()  # a design never recorded
    with pytest.raises(RuntimeError, match="tile design 1p at .* was not recorded"):
        tile_art.render_tile_face("1p", (24, 32))
