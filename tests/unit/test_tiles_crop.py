"""Crops for the classifier: a tile stretched across a photo keeps its detail on both axes,
and the model pair's own input sizes are used."""

import numpy as np

from companion.vision.tiles.recognizer import TileRecognizer, crop_tiles


def _stripes(period: int, width: int, height: int) -> np.ndarray:
    """Horizontal stripes (they change along y only), as a BGR image."""
    rows = ((np.arange(height) // period) % 2 * 255).astype(np.uint8)
    return np.repeat(np.repeat(rows[:, None, None], width, 1), 3, 2)


def test_a_wide_flat_tile_keeps_its_height_detail():
    # a face 600 px wide but 48 px tall (a photo stretched to a square): its vertical stripes
    # must survive; shrinking both axes by the width's factor would average them to grey
    img = _stripes(4, 640, 64)
    crop = crop_tiles(img, np.float32([[20, 8, 620, 56]]), size=48)[0, 0]
    profile = crop.mean(1)  # one value per crop row
    assert profile.max() - profile.min() > 0.8


def test_a_large_tile_is_shrunk_without_aliasing():
    # fine stripes (2 px) on a 400 px tall face: the 48-px crop should be a smooth mid-grey,
    # not a moire of full black and white rows
    img = _stripes(2, 400, 420)
    crop = crop_tiles(img, np.float32([[10, 10, 390, 410]]), size=48)[0, 0]
    assert 0.3 < crop.mean() < 0.7 and crop.std() < 0.15


def test_input_sizes_come_from_the_model_files():
    rec = TileRecognizer(taught=None)
    det = rec.detector.get_inputs()[0].shape
    assert rec.det_size == det[-1] == det[-2]
    assert rec.cls_size == rec.classifier.get_inputs()[0].shape[-1]
    assert len(rec.recognize(np.full((300, 500, 3), 90, np.uint8))) == 0  # a blank table: nothing found
