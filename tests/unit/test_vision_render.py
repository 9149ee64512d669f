"""The renderer is deterministic and its ground truth follows the rules of the break."""

import numpy as np
import pytest

from companion.rules.variant import load_variant
from companion.rules.wall import Square, Stack, break_wall
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, wall_state


def test_same_seed_same_image_and_truth():
    a, b = random_scene(7, "medium"), random_scene(7, "medium")
    ia, ta = render(a)
    ib, tb = render(b)
    assert np.array_equal(ia, ib) and a.truth == b.truth and ta == tb
    assert ia.shape == (720, 1280, 3) and ia.dtype == np.uint8


def test_different_seeds_differ():
    assert not np.array_equal(render(random_scene(1, "easy"))[0], render(random_scene(2, "easy"))[0])


@pytest.mark.parametrize("name", ["classical", "german", "riichi", "mcr"])
def test_wall_state_matches_the_break_rules(name):
    v = load_variant(name)
    brk = break_wall(v, [[3, 4]] * len(v.dice.throws))
    sq = Square.for_variant(v)
    ws = wall_state(v, sq.index(brk.wall, brk.stack))
    # every live tile, dealt or not, is still standing before the deal (R20, R24)
    assert ws.live_left == len(brk.live) + len(brk.deal)
    if v.break_.style == "lift":  # R19: the lifted stack leaves a gap, its tiles lie on the dead wall
        assert ws.heights[sq.index(brk.wall, brk.stack)] == 0
        assert sorted(sq.stack_at(i) for i in ws.loose) == sorted(Stack(t.seat, t.stack) for t in brk.loose)
    else:
        assert 0 not in ws.heights


def test_truth_lists_what_was_drawn():
    sc = random_scene(3, "easy", stage="broken", variant_name="classical")
    image, pixels = render(sc)
    assert len(pixels["dice"]) == len(sc.dice) and len(pixels["markers"]) == 4
    for d in pixels["dice"]:
        x1, y1, x2, y2 = d["box"]
        assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 720
    assert sc.truth["break"] is not None
