"""Tile faces render for every code; flowers and seasons are distinct from each other."""

import numpy as np
import pytest

from companion.vision.tiles.render import available_art, render_tile_face


@pytest.mark.parametrize("code", [f"{n}f" for n in range(1, 9)])
def test_bonus_faces_render_and_are_deterministic(code):
    a = render_tile_face(code, (60, 80), np.random.default_rng(0))
    b = render_tile_face(code, (60, 80), np.random.default_rng(0))
    assert a.shape == (80, 60, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert a.std() > 20  # a design, not a blank face


def test_bonus_faces_differ_from_each_other():
    faces = [render_tile_face(f"{n}f", (60, 80), np.random.default_rng(0)).astype(np.float32) for n in range(1, 9)]
    for i in range(8):
        for j in range(i + 1, 8):
            assert np.abs(faces[i] - faces[j]).mean() > 3, (i + 1, j + 1)


def test_unknown_code_is_rejected():
    with pytest.raises(KeyError):
        render_tile_face("0z")


@pytest.mark.skipif("riichi" not in available_art(), reason="riichi art needs the render extra")
def test_riichi_faces_cover_the_34_kinds():
    faces = {f"{n}{s}": render_tile_face(f"{n}{s}", (45, 60)) for s in "mps" for n in range(1, 10)}
    faces.update({f"{n}z": render_tile_face(f"{n}z", (45, 60)) for n in range(1, 8)})
    assert all(f.shape == (60, 45, 3) for f in faces.values())
    assert faces["5z"].std() < faces["1m"].std()  # the white dragon is (nearly) blank in this art
