"""Reading the walls and finding the break on rendered tables."""

import pytest

from companion.rules.variant import load_variant
from companion.rules.wall import Square
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, scene_variant, wall_state
from companion.vision.scene import SceneSettings, analyse, find_break


@pytest.mark.parametrize("seed,stage", [(1, "built"), (2, "broken"), (3, "dealt"), (5, "broken")])
def test_stacks_standing_per_wall_are_read_exactly(seed, stage):
    sc = random_scene(seed, "easy", stage=stage, variant_name="classical")
    t = sc.truth
    obs = analyse(render(sc)[0], SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"]),
                  with_tiles=False)
    assert {s: w["standing"] for s, w in obs["walls"]["seats"].items()} == t["walls"]
    assert obs["walls"]["break"] == t["break"]


@pytest.mark.parametrize("name", ["classical", "german", "riichi"])
def test_find_break_on_the_ring(name):
    v = load_variant(name)
    sq = Square.for_variant(v)
    at = sq.index("S", 9)
    ws = wall_state(v, at)
    splits = set()
    if v.break_.style == "split":  # the camera sees the split as a narrow gap after the break stack
        back = -1 if v.dead_wall.side == "right" else 1
        splits = {at if back == -1 else (at - 1) % sq.size}
    assert find_break(v, ws.heights, splits, set(ws.loose)) == at
    # after the deal the gap runs along the live wall; the break is still found at the dead wall
    dealt = wall_state(v, at, drawn=53)
    assert find_break(v, dealt.heights, set(), set(dealt.loose)) == at


def test_no_break_on_a_built_wall():
    v = load_variant("classical")
    assert find_break(v, [2] * 72, set(), set()) is None
