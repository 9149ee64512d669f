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
