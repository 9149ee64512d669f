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


def test_each_image_is_timed_repeat_times_and_its_median_kept(monkeypatch):
    answers = iter([{"ms": 0.0, "boxes": [], "codes": [], "scores": []},  # warm-up, untimed
                    {"ms": 5.0, "boxes": [[1, 2, 3, 4]], "codes": ["1m"], "scores": [0.9]},
                    {"ms": 1.0, "boxes": [], "codes": [], "scores": []},
                    {"ms": 9.0, "boxes": [], "codes": [], "scores": []},
                    {"peak_rss_mib": 7.0}])
    asked = []

    class FakeChild:
        def __init__(self, which, threads):
            self.proc = type("P", (), {"wait": lambda self: 0})()

        def ask(self, line):
            asked.append(line)
            return next(answers)

    monkeypatch.setattr(bench, "_Child", FakeChild)
    monkeypatch.setattr(bench.time, "sleep", lambda s: None)
    out = bench._measure(["ours"], ["a.jpg"], 0, repeat=3)
    row = out["ours"]["rows"][0]
    assert asked == ["a.jpg"] * 4 + ["END"]
    assert row["ms"] == 5.0 and row["codes"] == ["1m"]  # the median time, the first answer
    assert out["ours"]["peak_rss_mib"] == 7.0
