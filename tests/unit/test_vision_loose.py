"""The loose-tile model's input and its use: a tile lying on a stack near the break (R19)."""

import logging

import numpy as np
import pytest

from companion.vision import loose
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, scene_variant
from companion.vision.scene import SceneSettings, analyse


def _strip(cols: int = 200, rows: int = 60) -> np.ndarray:
    lab = np.full((rows, cols, 3), 128.0, np.float32)
    lab[..., 0] = 100.0
    return lab


def test_each_wanted_stack_gets_its_patch_its_neighbours_and_the_shift():
    lab = _strip()
    lab[:, 95:105, 0] = 200.0  # stack 5 (columns 90..110) is lighter than the rest
    spans = {k: (k * 20 - 10.0, k * 20 + 10.0) for k in range(1, 10)}
    got = loose.inputs(lab, spans, [5, 12], (5, 55), 20.0, 1.5)
    assert list(got) == [5]  # stack 12 does not stand: nothing to read
    x = got[5]
    assert x.shape == (loose.CHANNELS, loose.PATCH_ROWS, loose.PATCH_COLS) and x.dtype == np.float32
    mid = loose.PATCH_COLS // 2
    assert x[0, :, mid].min() > x[0, :, 0].max()  # its own light middle
    assert np.allclose(x[3], (100.0 - 128) / 64)  # the neighbours' median: a plain stack's
    assert np.allclose(x[6], 1.5 / loose.SHIFT_UNIT_CM)


def test_the_patch_is_turned_so_that_parallax_moves_tops_down():
    lab = _strip()
    lab[5:15, :, 0] = 220.0  # something light near the inner end of the band (rows from inside outwards)
    spans = {k: (k * 20 - 10.0, k * 20 + 10.0) for k in range(1, 10)}
    outwards = loose.inputs(lab, spans, [4], (5, 55), 20.0, 1.0)[4][0]
    inwards = loose.inputs(lab, spans, [4], (5, 55), 20.0, -1.0)[4][0]
    assert outwards[:5].mean() > outwards[-5:].mean()
    assert np.allclose(inwards, outwards[::-1])


def test_a_missing_or_damaged_model_says_so(tmp_path, monkeypatch, caplog):
    with pytest.raises(loose.LooseModelError, match="missing"):
        loose.LooseReader(tmp_path / "nope.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(loose.LooseModelError, match="cannot be loaded"):
        loose.LooseReader(bad)
    monkeypatch.setattr(loose, "MODEL_FILE", tmp_path / "nope.onnx")
    loose.reader.cache_clear()
    try:
        with caplog.at_level(logging.WARNING):
            assert loose.reader() is None
        assert "parallax alone" in caplog.text
    finally:
        loose.reader.cache_clear()


def _observe(seed: int, level: str):
    sc = random_scene(seed, level)
    t = sc.truth
    settings = SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])
    return analyse(render(sc)[0], settings, with_tiles=False).to_json(), t


def test_a_loose_tile_laid_inwards_is_found_by_the_model(monkeypatch):
    # R19: the lifted stack's tiles lie on the 3rd and 5th stacks of the dead wall (R20). In this
    # scene West's 10th stack carries one laid a little inwards: its top edge is not raised
    # beyond the stack's, so parallax alone misses it.
    obs, t = _observe(13, "easy")
    assert obs["walls"]["break"] == t["break"]
    assert sorted(obs["walls"]["loose"]) == sorted(t["loose"]) == [["W", 10], ["W", 12]]
    monkeypatch.setattr(loose, "reader", lambda: None)
    alone, _ = _observe(13, "easy")
    assert alone["walls"]["loose"] == [["W", 12]]


def test_at_most_two_loose_tiles_are_reported(monkeypatch):
    # R21: two loose tiles lie on the dead wall at a time; a third stack that looks loaded is the
    # least sure one. Here every stack near the gaps is made to look loaded.
    obs, t = _observe(35, "easy")
    assert sorted(obs["walls"]["loose"]) == sorted(t["loose"])

    class Sure:
        def __call__(self, batch):
            return np.full(len(batch), 0.9, np.float32)

    monkeypatch.setattr(loose, "reader", lambda: Sure())
    loaded, _ = _observe(35, "easy")
    assert len(loaded["walls"]["loose"]) == 2
