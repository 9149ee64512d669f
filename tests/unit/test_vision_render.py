"""The renderer is deterministic and its ground truth follows the rules of the break."""

import numpy as np
import pytest

from companion.rules.variant import load_variant
from companion.rules.wall import Square, Stack, break_wall
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, scene_variant, wall_state


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


@pytest.mark.parametrize("name", ["riichi", "mcr"])
@pytest.mark.parametrize("stack", [5, 17])
def test_a_split_opens_the_wall_without_pushing_stacks_into_one_another(name, stack):
    v = load_variant(name)
    sq = Square.for_variant(v)
    at = sq.index("N", min(stack, sq.n))
    ws = wall_state(v, at, split_cm=0.8)
    for i in range(sq.size):
        j = (i + 1) % sq.size
        if i // sq.n == j // sq.n:  # neighbours in one wall never come closer than built
            assert ws.offsets[j] - ws.offsets[i] >= -1e-9
    opened = ws.offsets[(at + 1) % sq.size] - ws.offsets[at]
    if (at + 1) // sq.n == at // sq.n:
        assert opened == pytest.approx(0.8)  # the split itself
    assert sum(1 for i in range(sq.size) if (i + 1) // sq.n == i // sq.n
               and ws.offsets[(i + 1) % sq.size] - ws.offsets[i] > 1e-9) <= 1


def test_the_dead_wall_is_pushed_as_a_block_towards_the_lifted_stack():
    v = load_variant("classical")
    sq = Square.for_variant(v)
    at = sq.index("W", 12)
    ws = wall_state(v, at)
    dead = [(at - k) % sq.size for k in range(1, 8)]
    assert {ws.offsets[i] for i in dead} == {0.3} and ws.heights[at] == 0
    assert all(ws.offsets[i] == 0 for i in range(sq.size) if i not in dead)


def test_during_the_deal_whole_stacks_are_gone():
    # R24: blocks of two stacks; a scene in the middle of the deal has no half stack
    seen = 0
    for seed in range(40):
        sc = random_scene(seed, "easy", stage="dealt")
        v = scene_variant(sc.truth["variant"])
        sq = Square.for_variant(v)
        before = wall_state(v, sq.index(*sc.truth["break"])).live_left
        drawn = before - sc.truth["live_tiles"]
        assert drawn >= 4
        if drawn < sum(v.deal.blocks) * 4 + sum(v.deal.final):
            seen += 1
            assert drawn % 4 == 0 and not any(1 in h for h in sc.walls.values())
    assert seen >= 3


def test_truth_says_when_a_hand_hides_the_east_marker():
    sc = random_scene(14, "hard")
    _, pixels = render(sc)
    assert pixels["hidden"]["east_marker"] > 0.5 and pixels["hidden"]["wind"] == 0.0
    sc.hands = []
    assert render(sc)[1]["hidden"] == {"east_marker": 0.0, "wind": 0.0}
