"""Detection post-processing: twins and half tiles go, neighbours stay; peaks decode to pixel boxes."""

import numpy as np

from companion.vision.tiles.recognizer import decode_detections, nms


def test_containment_drops_a_half_tile_but_keeps_neighbours():
    whole, half, neighbour = [0, 0, 40, 60], [2, 30, 38, 60], [42, 0, 82, 60]
    boxes = np.float32([whole, half, neighbour])
    scores = np.float32([0.9, 0.8, 0.7])
    assert list(nms(boxes, scores)) == [0, 1, 2]             # IoU 0.45: plain NMS keeps the half
    assert list(nms(boxes, scores, contain=0.8)) == [0, 2]   # all of it lies inside the whole tile
    # the whole tile scored lower than its half: the better-scored half suppresses it only if
    # the whole lies mostly inside the half, which it does not
    assert sorted(nms(boxes, np.float32([0.5, 0.9, 0.7]), contain=0.8)) == [0, 1, 2]


def test_iou_twins_are_suppressed():
    boxes = np.float32([[0, 0, 40, 60], [1, 1, 41, 61]])
    assert list(nms(boxes, np.float32([0.6, 0.9]))) == [1]


def test_decode_places_a_peak_in_image_pixels():
    heat = np.zeros((1, 1, 20, 20), np.float32)
    size = np.zeros((1, 2, 20, 20), np.float32)
    offset = np.zeros((1, 2, 20, 20), np.float32)
    heat[0, 0, 5, 10] = 0.9
    size[0, :, 5, 10] = np.log([10, 15])      # in output cells (stride 4): 40 x 60 pixels
    offset[0, :, 5, 10] = [0.5, 0.25]
    boxes, scores = decode_detections(heat, size, offset, 0.5, scale_x=2.0, scale_y=1.0)
    cx, cy = (10.5 * 4) * 2.0, (5.25 * 4) * 1.0
    np.testing.assert_allclose(boxes, [[cx - 40, cy - 30, cx + 40, cy + 30]], rtol=1e-5)
    assert scores.tolist() == [np.float32(0.9)]
