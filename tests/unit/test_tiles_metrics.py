"""Scoring: same tile and IoU >= 0.5, each true tile matched once."""

import numpy as np

from companion.vision.tiles.dataset import parse_labels
from companion.vision.tiles.metrics import Score, iou_matrix, match

T = np.float32([[0, 0, 10, 10], [20, 0, 30, 10]])


def test_iou():
    m = iou_matrix(np.float32([[0, 0, 10, 10], [5, 0, 15, 10]]), T[:1])
    assert m[0, 0] == 1.0 and abs(m[1, 0] - 1 / 3) < 1e-6


def test_match_requires_same_tile_and_overlap():
    assert match(T, ["1m", "2p"], [0.9, 0.9], T, ["1m", "2p"]) == 2
    assert match(T, ["1m", "9p"], [0.9, 0.9], T, ["1m", "2p"]) == 1
    assert match(T + [6, 0, 6, 0], ["1m", "2p"], [0.9, 0.9], T, ["1m", "2p"]) == 0  # IoU 0.25


def test_duplicates_count_once():
    s = Score()
    s.add(np.vstack([T[:1], T[:1]]), ["1m", "1m"], [0.9, 0.8], T[:1], ["1m"])
    assert (s.tp, s.predicted, s.truth, s.perfect) == (1, 2, 1, 0)
    assert s.precision == 0.5 and s.recall == 1.0


def test_perfect_image():
    s = Score()
    s.add(T, ["1m", "2p"], [0.9, 0.9], T, ["1m", "2p"])
    assert s.perfect == 1 and s.f1 == 1.0


def test_label_lines_boxes_and_polygons():
    boxes, classes, polygon = parse_labels(["1 0.5 0.5 0.2 0.4", "4 0.1 0.1 0.3 0.1 0.3 0.2 0.1 0.2"], 100, 200)
    np.testing.assert_allclose(boxes, [[40, 60, 60, 140], [10, 20, 30, 40]], atol=1e-4)
    assert list(classes) == [0, 27]  # sc1 -> 1m, hwe -> 1z
    assert list(polygon) == [False, True]


def test_f1_interval_brackets_the_f1_and_narrows_with_more_photos():
    few, many = Score(), Score()
    box = [[0, 0, 10, 10]]
    for i in range(40):  # one photo in four has its tile misnamed
        for score in (few, many) if i < 8 else (many,):
            score.add(box, ["2m" if i % 4 else "3m"], [0.9], box, ["2m"])
    for score in (few, many):
        lo, hi = score.f1_interval()
        assert lo < score.f1 < hi <= 1.0
    assert many.f1_interval()[1] - many.f1_interval()[0] < few.f1_interval()[1] - few.f1_interval()[0]
    assert Score().f1_interval() == (0.0, 0.0)
