"""The benchmark command scores ours on labelled photos and explains a missing peer."""

import importlib.util
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from companion.cli import main
from companion.vision.tiles import bench
from companion.vision.tiles.dataset import load_split
from companion.vision.tiles.synth import table_scene

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tiles" / "real"


def test_perfect_rows_score_one():
    truth = load_split(FIXTURES)
    from companion.vision.tiles.codes import TILE_CODES

    rows = [{"ms": 1.0, "boxes": t.boxes.tolist(), "codes": [TILE_CODES[c] for c in t.classes],
             "scores": [1.0] * len(t.classes)} for t in truth]
    s = bench.score(rows, truth)
    assert s.f1 == 1.0 and s.perfect == len(truth)
    text = bench.table({"x": {"rows": rows, "peak_rss_mib": 1.0}}, truth)
    assert "1.000" in text and f"{len(truth)}/{len(truth)}" in text


def test_missing_peer_is_explained(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mahjong_detector" else real(name, *a))
    res = CliRunner().invoke(main, ["bench", "recognition", "--data", str(FIXTURES), "--limit", "2"])
    assert res.exit_code == 0, res.output
    assert "mahjong-detector is not installed" in res.output
    assert "ours (companion)" in res.output and "peer (" not in res.output


def test_synthetic_scene_boxes_match_codes():
    rng = np.random.default_rng(0)
    img, boxes, codes = table_scene(rng, art="procedural", codes=[f"{n}f" for n in range(1, 9)])
    assert img.shape == (640, 640, 3) and len(boxes) == len(codes) > 0
    assert (boxes >= 0).all() and (boxes <= 640).all() and ((boxes[:, 2:] - boxes[:, :2]) > 10).all()
