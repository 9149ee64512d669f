"""Teach your set: the layout is read row by row, the head fits, the set is saved and found."""

import numpy as np
import pytest

from companion.vision.tiles.sheet import layout_sheet_svg
from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.teach import LAYOUT_ROWS, TaughtSet, TeachError, assign_layout, fit_head


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


def test_damaged_set_gives_a_clear_error(tmp_path):
    p = tmp_path / "set.npz"
    p.write_bytes(b"not a zip")
    with pytest.raises(Exception, match="damaged"):
        TaughtSet.load(p)


def test_layout_sheet_has_a_box_for_every_tile():
    svg = layout_sheet_svg()
    assert svg.startswith("<svg") and svg.count("<rect ") == 43  # background + 42 boxes
    for code in TILE_CODES:
        assert f">{code}</text>" in svg
