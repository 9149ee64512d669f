"""The error breakdown sorts each mistake into the right bin (detection vs naming, kinds of misses)."""

import numpy as np
import pytest

from companion.vision.tiles.diagnose import Breakdown, family, shape_class, size_class

TRUTH = np.float32([[0, 0, 40, 60], [50, 0, 90, 60], [100, 0, 140, 60], [150, 0, 190, 60]])
CODES = ["1m", "5p", "7z", "6f"]


def test_families_cover_every_kind():
    assert [family(c) for c in ("9m", "1p", "5s", "4z", "5z", "4f", "5f")] == [
        "characters", "circles", "bamboo", "winds", "dragons", "flowers", "seasons"]


def test_size_and_shape_classes():
    assert size_class([0, 0, 25, 60]) == "short side < 30 px" and size_class([0, 0, 40, 60]) == "short side 30-50 px"
    assert shape_class([0, 0, 40, 60]) == "upright (h >= w)" and shape_class([0, 0, 60, 40]) == "sideways (w > h)"
    assert shape_class([0, 0, 300, 40]) == "stretched (aspect > 2)"


def test_a_perfect_photo():
    bd = Breakdown()
    bd.add(TRUTH, CODES, [0.9] * 4, TRUTH, CODES, CODES, "a.jpg")
    s = bd.summary()
    assert s["end_to_end"]["f1"] == 1.0 and s["detection"]["f1"] == 1.0 and s["photos"] == {"fully right": 1}
    assert s["naming_on_true_boxes"] == 1.0 and s["false_positives"] == {} and s["misses"] == {}


def test_each_error_lands_in_its_bin():
    pred = np.float32([
        TRUTH[0],                      # right
        [50, 0, 90, 60],               # found, but named wrong (5p -> 3p)
        [50, 35, 90, 60],              # a part-tile second box on the found 5p (IoU 0.42)
        [110, 20, 125, 40],            # centre inside the 7z, IoU < 0.5: badly placed
        [300, 0, 340, 60],             # on nothing labelled
    ])
    codes = ["1m", "3p", "5p", "7z", "1s"]
    bd = Breakdown()
    bd.add(pred, codes, [0.9, 0.8, 0.7, 0.6, 0.5], TRUTH, CODES, ["1m", "5p", "7z", "5f"], "b.jpg")
    s = bd.summary()
    assert s["detection"]["precision"] == pytest.approx(2 / 5) and s["detection"]["recall"] == pytest.approx(2 / 4)
    assert s["end_to_end"]["recall"] == pytest.approx(1 / 4)
    assert s["naming_on_detections"] == pytest.approx(1 / 2)
    assert s["false_positives"] == {"second box on a found tile (duplicate or part)": 1,
                                    "on a missed tile, badly placed (centre inside, IoU < 0.5)": 1,
                                    "on no labelled tile (unlabelled tile or background)": 1}
    assert s["misses"] == {"found only badly placed (IoU 0.1-0.5)": 1, "missed outright (best IoU < 0.1)": 1}
    assert s["photos"] == {"detection and names wrong": 1}
    assert s["families"]["seasons"] == {"tiles": 1, "detection_recall": 0.0, "naming_on_true_boxes": 0.0}
    assert s["families"]["characters"]["naming_on_true_boxes"] == 1.0
    assert s["confusions"] == [{"true": "6f", "named": "5f", "count": 1}]
    assert "second box on a found tile" in bd.report()


def test_photos_labelled_all_one_kind_are_flagged():
    bd = Breakdown()
    boxes = np.float32([[i * 50, 0, i * 50 + 40, 60] for i in range(6)])
    bd.add(boxes, ["1m"] * 6, [0.9] * 6, boxes, ["1p"] * 6, None, "defaults.jpg")
    bd.add(TRUTH, CODES, [0.9] * 4, TRUTH, CODES, None, "fine.jpg")
    s = bd.summary()
    assert s["one_kind_photos"] == [{"image": "defaults.jpg", "tiles": 6, "kind": "1p"}]
    assert "naming_on_true_boxes" not in s  # no names for the true boxes were given
    assert s["photos"] == {"detection right, a name wrong": 1, "fully right": 1}
    assert "suspect labels: 1 photos (6 tiles)" in bd.report()
