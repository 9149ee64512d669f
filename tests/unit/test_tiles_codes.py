"""The tile-code mapping is exhaustive and one-to-one."""

import pytest

from companion.rules.tiles import tile_set
from companion.vision.tiles.codes import (
    CODE_INDEX,
    DATASET_NAMES,
    DATASET_TO_CLASS,
    PEER_NAMES,
    TILE_CODES,
    dataset_name_to_code,
    describe,
)


def test_every_kind_has_exactly_one_code():
    assert len(TILE_CODES) == len(set(TILE_CODES)) == 42
    expected = {f"{n}{s}" for s in "mps" for n in range(1, 10)} | {f"{n}z" for n in range(1, 8)} | {f"{n}f" for n in range(1, 9)}
    assert set(TILE_CODES) == expected
    assert all(TILE_CODES[i] == c for c, i in CODE_INDEX.items())


def test_dataset_labels_map_one_to_one_onto_codes():
    assert len(DATASET_NAMES) == 42
    assert sorted(DATASET_TO_CLASS) == list(range(42))


@pytest.mark.parametrize("name,code", [
    ("sc1", "1m"), ("sc9", "9m"), ("sd5", "5p"), ("sb9", "9s"), ("hwe", "1z"), ("hws", "2z"), ("hww", "3z"),
    ("hwn", "4z"), ("hdw", "5z"), ("hdg", "6z"), ("hdr", "7z"), ("bf1", "1f"), ("bf4", "4f"), ("bs1", "5f"), ("bs4", "8f"),
])
def test_dataset_names(name, code):
    assert dataset_name_to_code(name) == code


def test_unknown_dataset_name_is_rejected():
    with pytest.raises(KeyError):
        dataset_name_to_code("xx1")


def test_peer_covers_the_34_riichi_kinds_and_no_bonus_tiles():
    assert len(PEER_NAMES) == 34
    assert set(PEER_NAMES.values()) == {c for c in TILE_CODES if not c.endswith("f")}


def test_describe_names_every_code():
    names = {describe(c) for c in TILE_CODES}
    assert len(names) == 42
    assert describe("7z") == "Red dragon" and describe("1f") == "Flower 1 (Plum)" and describe("8f") == "Season 4 (Winter)"
    with pytest.raises(KeyError):
        describe("0m")


def test_the_model_classes_are_exactly_the_kinds_of_a_chinese_set_in_frozen_order():
    # the shipped models' class index is the position in TILE_CODES: the order must never change
    assert TILE_CODES[:9] == tuple(f"{n}m" for n in range(1, 10)) and TILE_CODES[27:34] == tuple(f"{n}z" for n in range(1, 8))
    assert TILE_CODES[34:] == tuple(f"{n}f" for n in range(1, 9))
    assert set(TILE_CODES) == set(tile_set(flowers=True, seasons=True))
