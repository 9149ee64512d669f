"""Teach your set: the layout is read row by row, the head fits, the set is saved and found."""

from pathlib import Path

import numpy as np
import pytest

from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.sheet import layout_sheet_svg
from companion.vision.tiles.teach import (
    LAYOUT_ROWS,
    TAUGHT_THRESHOLD_FLOOR,
    TaughtSet,
    TeachError,
    assign_layout,
    familiar_share,
    fit_head,
    row_angle,
    slot_scores,
    taught_threshold,
)


def grid_boxes(rows, rng):
    boxes, codes = [], []
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            x, y = 10 + c * 50 + rng.uniform(-3, 3), 10 + r * 90 + rng.uniform(-8, 8)
            boxes.append([x, y, x + 40, y + 55])
            codes.append(code)
    return np.float32(boxes), codes


def test_layout_rows_cover_every_code_once():
    assert sorted(c for row in LAYOUT_ROWS for c in row) == sorted(TILE_CODES)


@pytest.mark.parametrize("rows", [LAYOUT_ROWS, LAYOUT_ROWS[:4]])
def test_assign_layout_names_tiles_by_place_in_any_order(rows):
    rng = np.random.default_rng(0)
    boxes, codes = grid_boxes(rows, rng)
    perm = rng.permutation(len(boxes))
    pairs = assign_layout(boxes[perm])
    assert [c for _, c in pairs] == [c for row in rows for c in row]
    for box, code in pairs:
        np.testing.assert_allclose(box, boxes[codes.index(code)])


def test_assign_layout_repairs_a_missed_tile_and_a_double_detection():
    boxes, codes = grid_boxes(LAYOUT_ROWS, np.random.default_rng(3))
    white = codes.index("5z")
    twin = boxes[codes.index("4s")] + np.float32([2, 25, -2, 0])  # a second, half-tile box on 4s
    damaged = np.vstack([np.delete(boxes, white, axis=0), twin])
    scores = np.r_[np.ones(len(boxes) - 1), 0.2].astype(np.float32)
    pairs = dict((c, b) for b, c in assign_layout(damaged, scores))
    assert len(pairs) == 42
    np.testing.assert_allclose(pairs["5z"], boxes[white], atol=6)  # put back in the gap
    np.testing.assert_allclose(pairs["4s"], boxes[codes.index("4s")])


def test_assign_layout_says_what_it_saw_when_it_cannot_match():
    boxes, codes = grid_boxes(LAYOUT_ROWS, np.random.default_rng(1))
    with pytest.raises(TeachError, match=r"found rows of \[9, 9, 8, 7, 8\]"):
        assign_layout(np.delete(boxes, codes.index("9s"), axis=0))  # the end of a row: no gap shows it
    with pytest.raises(TeachError):
        assign_layout(np.zeros((0, 4), np.float32))
    with pytest.raises(TeachError):
        assign_layout(boxes[:20])


def test_fit_head_separates_classes_and_set_roundtrips(tmp_path, monkeypatch):
    rng = np.random.default_rng(2)
    centres = rng.normal(size=(5, 128)).astype(np.float32)
    y = np.repeat(np.arange(5), 20)
    emb = centres[y] + rng.normal(scale=0.3, size=(100, 128)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    w, b = fit_head(emb, y, 5)
    ts = TaughtSet(w, b, ["1m", "2m", "3m", "4m", "5m"])
    assert (ts.predict_proba(emb).argmax(1) == y).mean() == 1.0
    monkeypatch.setenv("COMPANION_TAUGHT_SET", str(tmp_path / "set.npz"))
    assert TaughtSet.load() is None
    ts.save()
    back = TaughtSet.load()
    np.testing.assert_allclose(back.predict_proba(emb), ts.predict_proba(emb), rtol=1e-5)
    assert back.codes == ts.codes


def test_taught_set_keeps_its_threshold_and_old_files_load_without_one(tmp_path):
    ts = TaughtSet(np.eye(128, 2, dtype=np.float32), np.float32([0, 0]), ["1m", "2m"], threshold=0.22)
    assert TaughtSet.load(ts.save(tmp_path / "new.npz")).threshold == pytest.approx(0.22)
    np.savez(tmp_path / "old.npz", weights=ts.weights, bias=ts.bias, codes=np.array(ts.codes), info=np.array("{}"))
    old = TaughtSet.load(tmp_path / "old.npz")
    assert old.threshold is None and old.codes == ["1m", "2m"]


def test_taught_set_keeps_its_detector_and_old_files_read_with_the_shipped_one(tmp_path):
    ts = TaughtSet(np.eye(128, 2, dtype=np.float32), np.float32([0, 0]), ["1m", "2m"], detector="general")
    assert TaughtSet.load(ts.save(tmp_path / "new.npz")).detector == "general"
    np.savez(tmp_path / "old.npz", weights=ts.weights, bias=ts.bias, codes=np.array(ts.codes), info=np.array("{}"))
    assert TaughtSet.load(tmp_path / "old.npz").detector == "shipped"
    np.savez(tmp_path / "odd.npz", weights=ts.weights, bias=ts.bias, codes=np.array(ts.codes), info=np.array("{}"),
             detector=np.array("telepathy"))
    with pytest.raises(Exception, match="damaged"):
        TaughtSet.load(tmp_path / "odd.npz")


def test_familiar_share_counts_the_layout_tiles_the_shipped_classifier_names_right():
    class Named:  # names every box 1m
        def embed(self, img, boxes):
            probs = np.zeros((len(boxes), len(TILE_CODES)), np.float32)
            probs[:, TILE_CODES.index("1m")] = 1
            return probs, np.zeros((len(boxes), 128), np.float32)

    boxes = [np.float32([0, 0, 10, 10])] * 4
    assert familiar_share(Named(), [(None, boxes, ["1m", "1m", "1m", "2m"])]) == 0.75
    assert familiar_share(Named(), [(None, boxes[:2], ["1m", "1m"]), (None, boxes[:2], ["5z", "6z"])]) == 0.5


@pytest.mark.parametrize("degrees", [0, 12, -25, 80])
def test_row_angle_is_the_slope_of_the_rows_folded_onto_a_quarter_turn(degrees):
    boxes, _ = grid_boxes(LAYOUT_ROWS, np.random.default_rng(0))
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    t = np.radians(degrees)
    turned = c @ np.float32([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])  # y down: +degrees slopes down
    half = (boxes[:, 2:] - boxes[:, :2]) / 2
    got = row_angle(np.hstack([turned - half, turned + half]))
    assert got == pytest.approx((degrees + 45) % 90 - 45, abs=3)
    assert row_angle(boxes[:3]) is None  # too few tiles to tell


def test_slot_scores_take_the_best_detection_centred_in_each_slot():
    boxes = np.float32([[0, 0, 10, 10], [2, 2, 8, 8], [100, 0, 110, 10]])
    scores = np.float32([0.3, 0.7, 0.5])
    slots = [np.float32([0, 0, 12, 12]), np.float32([50, 0, 60, 10]), np.float32([98, 0, 112, 12])]
    np.testing.assert_allclose(slot_scores(boxes, scores, slots), [0.7, 0.0, 0.5])


def test_taught_threshold_is_lower_for_a_design_the_detector_is_unsure_of():
    certain, sure, unsure, lost = np.full(42, 1.0), np.full(42, 0.9), np.full(42, 0.5), np.full(42, 0.1)
    assert taught_threshold(certain, 0.4) == 0.4        # never above the shipped threshold
    assert taught_threshold(unsure, 0.4) < taught_threshold(sure, 0.4) <= 0.4  # a new design: look harder
    assert taught_threshold(lost, 0.4) == TAUGHT_THRESHOLD_FLOOR


@pytest.mark.parametrize("content", [b"not a zip", b"PK\x03\x04cut short"])
def test_damaged_set_gives_a_clear_error(tmp_path, content):
    p = tmp_path / "set.npz"
    p.write_bytes(content)
    with pytest.raises(Exception, match="damaged") as got:
        TaughtSet.load(p)
    # in words, not numpy's advice about pickles
    assert "cut short or was overwritten" in str(got.value) and "pickle" not in str(got.value)


def test_a_set_missing_an_array_names_it(tmp_path):
    np.savez(tmp_path / "set.npz", bias=np.zeros(2, np.float32), codes=np.array(["1m", "2m"]))
    with pytest.raises(Exception, match="it has no 'weights'"):
        TaughtSet.load(tmp_path / "set.npz")


def test_a_damaged_set_gives_way_to_the_shipped_models_with_the_reason(tmp_path):
    from companion.vision.tiles.teach import load_or_shipped

    assert load_or_shipped(tmp_path / "none.npz") == (None, None)
    (tmp_path / "set.npz").write_bytes(b"garbage")
    taught, why = load_or_shipped(tmp_path / "set.npz")
    assert taught is None and "damaged" in why and "shipped tile models name the tiles" in why
    ts = TaughtSet(np.eye(128, 2, dtype=np.float32), np.float32([0, 0]), ["1m", "2m"])
    taught, why = load_or_shipped(ts.save(tmp_path / "good.npz"))
    assert taught.codes == ["1m", "2m"] and why is None


def test_layout_sheet_has_a_box_for_every_tile():
    svg = layout_sheet_svg()
    assert svg.startswith("<svg") and svg.count("<rect ") == 43  # background + 42 boxes
    for code in TILE_CODES:
        assert f">{code}</text>" in svg


def test_the_taught_set_lives_in_the_configured_data_folder(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from companion.cli import main
    from companion.config import load_settings
    from companion.services import build_services
    from companion.vision.tiles import teach

    data = tmp_path / "data"
    services = build_services(load_settings(env={}, overrides={"data_dir": str(data)}))
    services.stop()
    assert teach.taught_path() == data / "tiles" / "taught_set.npz"  # where `companion run` looks
    ts = TaughtSet(np.eye(128, 2, dtype=np.float32), np.float32([0, 0]), ["1m", "2m"])
    ts.save(data / "tiles" / "taught_set.npz")
    photo = str(Path(__file__).parents[1] / "fixtures" / "tiles" / "real" / "images" / "real_1.jpg")
    r = CliRunner().invoke(main, ["recognize", "--data-dir", str(data), photo])
    assert r.exit_code == 0 and "using the taught tile set" in r.output
    r = CliRunner().invoke(main, ["teach", "--forget", "--data-dir", str(data)])
    assert r.exit_code == 0 and str(data / "tiles" / "taught_set.npz") in r.output
    r = CliRunner().invoke(main, ["teach", "--sheet", str(tmp_path / "s.svg"), "--forget"])
    assert r.exit_code == 2 and "give one of them" in r.output and not (tmp_path / "s.svg").exists()
