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


def test_a_loose_tile_taken_leaves_the_other_and_the_rest_of_the_scene_as_it_was():
    # R21: a player owed a loose tile takes first the one farther from the break (the former top tile)
    both = random_scene(13, "easy")
    one = random_scene(13, "easy", loose_taken=1)
    assert both.truth["variant"] == "classical-19" and both.truth["break"] == ["W", 15]
    # the dead wall runs W14, W13, …: the former top tile lies on its 5th stack, the bottom one on its 3rd (R20)
    assert sorted(both.truth["loose"]) == [["W", 10], ["W", 12]] and one.truth["loose"] == [["W", 12]]
    # the standing stacks (a loose tile is not one), the dice, the markers: all as they were
    assert {k: v for k, v in one.truth.items() if k != "loose"} == {k: v for k, v in both.truth.items() if k != "loose"}
    (drawn_one, seen_one), (drawn_both, seen_both) = render(one), render(both)
    assert seen_one == seen_both and not np.array_equal(drawn_one, drawn_both)
    with pytest.raises(ValueError, match="loose_taken"):
        random_scene(13, "easy", loose_taken=3)


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


def test_a_cocked_die_leans_on_the_nearest_wall_or_die():
    """R18: a die rests cocked only against something; the scenes draw it so, its raised edge
    on the support and its top tipped towards it."""
    import math

    from companion.vision.geometry import TableLayout
    from companion.vision.render.scene import Die
    from companion.vision.render.scenes import lean

    layout = TableLayout((90.0, 90.0), 18)
    cx, cy = layout.centre
    r = layout.inner
    die = Die(face=2, x=cx + 3, y=cy + r - 4, cocked=True, tilt=35)
    reach = die.size / 2 * (math.cos(math.radians(35)) + math.sin(math.radians(35)))
    by_wall = lean(die, layout, [Die(face=5, x=cx - 10, y=cy)])
    assert by_wall.x == die.x and by_wall.y == pytest.approx(cy + r - reach, abs=0.1)
    # its local −y axis, where it falls, points at the wall (+y)
    a = math.radians(by_wall.angle)
    assert (math.sin(a), -math.cos(a)) == pytest.approx((0.0, 1.0), abs=1e-9)
    other = Die(face=5, x=cx + 3, y=cy + r - 7)
    by_die = lean(die, layout, [other])  # the other die is nearer than the wall
    assert by_die.y == pytest.approx(other.y + other.size / 2 + reach, abs=0.1) and by_die.x == pytest.approx(die.x)
    far = Die(face=5, x=cx - 10, y=cy)  # the wall is nearer, but a die is asked for
    on_die = lean(die, layout, [far], dice_only=True)
    assert math.hypot(on_die.x - far.x, on_die.y - far.y) == pytest.approx(far.size / 2 + reach, abs=0.1)
    assert lean(die, layout, [], dice_only=True) is None  # no die to lean on
    # no room beside anything: nothing to lean on
    blocked = [(die.x, cy + r - 1.5, 1.9), (die.x, cy - r + 1.5, 1.9), (cx + r - 1.5, die.y, 1.9), (cx - r + 1.5, die.y, 1.9)]
    assert lean(die, layout, [], taken=blocked) is None
    assert lean(die, layout, [], taken=blocked[1:]).y == by_wall.y
    # never against a wall where no stack stands (taken for the deal, R24)
    from companion.vision.geometry import SIDES
    from companion.vision.render.scenes import drawn_wall_face

    walls = {side: [2] * 18 for side in SIDES}
    walls[layout.side_of_point(die.x, die.y)] = [2] * 9 + [0] * 9
    face = drawn_wall_face(layout, walls, {side: [0.0] * 18 for side in SIDES}, {})
    left_standing = lean(die, layout, [], wall_face=face)
    assert (left_standing.x, left_standing.y) == (by_wall.x, by_wall.y)  # the stack behind it stands
    walls[layout.side_of_point(die.x, die.y)] = [0] * 9 + [2] * 9
    gone = lean(die, layout, [], wall_face=drawn_wall_face(layout, walls, {side: [0.0] * 18 for side in SIDES}, {}))
    assert gone.y < by_wall.y - 1 or gone.x != by_wall.x
    # the bench's scenes draw every cocked die so
    seen = 0
    for seed in range(40):
        sc = random_scene(seed, "medium")
        own = TableLayout(sc.table_size, sc.stacks)
        for d in (d for d in sc.dice if d.cocked):
            to_wall = own.inner - max(abs(d.x - own.centre[0]), abs(d.y - own.centre[1]))
            to_die = min((math.hypot(d.x - o.x, d.y - o.y) - o.size / 2 for o in sc.dice if o is not d), default=99)
            assert min(to_wall - 0.6, to_die) < d.size, (seed, d)  # walls are shifted by up to 0.6 cm
            seen += 1
    assert seen >= 3


def test_training_dice_include_pips_that_differ_only_in_colour_and_the_table_dice_do_not():
    """Real sets have dice whose pips stand out by colour more than by lightness (red pips on a
    blue die); the dice reader's training pictures draw some, the simulated table keeps its look."""
    from types import SimpleNamespace

    from companion.vision.render.dice import HUE_PIPS, DieLook, _colour_distance

    def luma(c):
        return 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2]

    rng = np.random.default_rng(7)
    looks = [DieLook.random(rng) for _ in range(2000)]
    def by_colour(lk):  # coloured pips of about the body's grey
        return lk.pip in HUE_PIPS and abs(luma(lk.pip) - luma(lk.body)) < 70

    drawn = [lk for lk in looks if by_colour(lk)]
    assert len(drawn) > 40
    assert all(_colour_distance(lk.pip, lk.body) >= 60 for lk in drawn)
    table = [DieLook.of(SimpleNamespace(colour=c, turn=t, face=f, x=x, y=0.0))
             for c in range(7) for t in range(4) for f in range(1, 7) for x in range(5)]
    assert not any(by_colour(lk) for lk in table)


def test_another_frame_of_the_same_scene_differs_by_its_sensor_noise_alone():
    import numpy as np

    from companion.vision.render.draw import render
    from companion.vision.render.scenes import random_scene

    sc = random_scene(3, "hard")
    first, truth = render(sc)
    assert np.array_equal(render(sc, frame=0)[0], first)  # the bench's picture stays as it was
    second, truth2 = render(sc, frame=1)
    assert truth2 == truth
    diff = second.astype(float) - first.astype(float)
    assert 0 < np.abs(diff).mean() < 3 * sc.look.noise  # noise, not a moved scene
    assert abs(diff.mean()) < 0.5
