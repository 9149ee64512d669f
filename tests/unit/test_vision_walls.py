"""Reading the walls and finding the break on rendered tables."""

import numpy as np
import pytest

from companion.rules.variant import load_variant
from companion.rules.wall import Square, WallShape, break_wall
from companion.vision.calibrate import from_markers
from companion.vision.geometry import SIDES, TableLayout
from companion.vision.render.draw import FELT, render
from companion.vision.render.scenes import random_scene, resting_hand, scene_variant, wall_state
from companion.vision.scene import SceneSettings, analyse, find_break
from companion.vision.wall_cover import FOREIGN_SHARE, _shade
from companion.vision.wall_strips import back_colour, felt_colour, felt_hue, sample
from companion.vision.walls import _arcs, _gap_readings


def observe(seed: int, level: str = "easy", hand: bool | str = False, **kw):
    """Analyse a rendered scene; `hand`: a hand resting on a wall, "felt" for one the felt's colour."""
    sc = random_scene(seed, level, **kw)
    t = sc.truth
    if hand:
        sc = resting_hand(sc, seed, FELT[sc.look.felt % len(FELT)] if hand == "felt" else None)
    obs = analyse(render(sc)[0], SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"]),
                  with_tiles=False).to_json()
    return obs, t


def standing(obs) -> dict:
    return {s: w["standing"] for s, w in obs["walls"]["seats"].items()}


@pytest.mark.parametrize("seed,stage", [(1, "built"), (2, "broken"), (3, "dealt"), (5, "broken")])
def test_stacks_standing_per_wall_are_read_exactly(seed, stage):
    obs, t = observe(seed, stage=stage, variant_name="classical")
    assert standing(obs) == t["walls"]
    assert obs["walls"]["break"] == t["break"]


def test_a_lifted_stack_and_the_loose_tiles_on_the_dead_wall():
    # R19: the counted stack is lifted out and its tiles laid on the 3rd and 5th stacks of the dead wall (R20)
    obs, t = observe(35)
    assert t["variant"] == "classical" and t["stage"] == "broken"
    assert standing(obs) == t["walls"] and obs["walls"]["break"] == t["break"]
    assert sorted(obs["walls"]["loose"]) == sorted(t["loose"])
    assert obs["walls"]["live_tiles"] == t["live_tiles"] == 144 - 2 - 14  # all but the lifted stack and the kong box


def test_a_split_wall_breaks_where_it_is_split():
    # riichi: no stack is lifted; the wall is split after the counted stack (here a miscounted one)
    obs, t = observe(193)
    assert t["variant"] == "riichi" and t["break"] != t["expected_break"]
    assert standing(obs) == t["walls"]  # every stack still stands
    assert obs["walls"]["break"] == t["break"]
    assert obs["walls"]["live_tiles"] == t["live_tiles"] == 136 - 14


def test_walls_split_for_the_break_still_tell_they_are_shorter_than_the_variant_builds():
    """A split takes no stack (riichi), so four whole walls of 17 read as classical (18) say so;
    a stack lifted for the break (classical) shortens its wall, and nothing is said."""
    def length_seen(seed: int, as_variant: str):
        sc = random_scene(seed, "easy")
        t = sc.truth
        obs = analyse(render(sc)[0], SceneSettings(scene_variant(as_variant), t["first_east_side"], t["dealer"]),
                      with_tiles=False).to_json()
        return t, obs["walls"].get("stacks_seen")

    t, seen = length_seen(193, "classical")
    assert (t["variant"], t["stage"], seen) == ("riichi", "broken", 17)
    t, seen = length_seen(35, "classical-19")
    assert (t["variant"], t["stage"], seen) == ("classical", "broken", None)


def test_half_a_stack_at_the_open_end_of_the_live_wall():
    # R23/R24: play takes the live wall from its open end (R24 deals whole stacks; a draw in play takes one tile)
    obs, t = observe(37)
    assert t["stage"] == "dealt" and t["live_tiles"] % 2 == 1
    assert standing(obs) == t["walls"]
    assert obs["walls"]["live_tiles"] == t["live_tiles"]
    assert sum(len(w["half"]) for w in obs["walls"]["seats"].values()) == 1


def test_a_wall_with_one_stack_left_at_a_corner():
    # the stack that is left stands next to the neighbouring wall's last stack; it is still read
    obs, t = observe(215)
    assert [s for s, v in t["walls"].items() if len(v) == 1]
    assert standing(obs) == t["walls"]
    assert obs["walls"]["break"] == t["break"] and obs["walls"]["live_tiles"] == t["live_tiles"]


def test_a_wall_in_the_middle_of_the_deal():
    obs, t = observe(4)
    assert t["stage"] == "dealt" and t["live_tiles"] > 136 - 14 - 53  # not all hands dealt yet
    assert standing(obs) == t["walls"] and obs["walls"]["break"] == t["break"]
    assert obs["walls"]["live_tiles"] == t["live_tiles"]


def test_a_split_at_a_corner_is_not_taken_for_a_break_elsewhere():
    # MCR, 18 counted: the split falls between two walls, where they stand apart anyway
    obs, t = observe(175)
    assert t["break_at_corner"]
    assert standing(obs) == t["walls"]
    assert obs["walls"]["break"] is None


def test_a_gap_a_little_under_a_pitch_is_read_both_ways():
    assert [k for k, _ in _gap_readings(0.1, 2.3)] == [0]  # a seam or a push
    split = dict(_gap_readings(0.8, 2.3))  # a split: a missing stack would be far-fetched
    assert split[0] == 0 and split.get(1, 99) > 4
    both = dict(_gap_readings(1.35, 2.3))  # a lifted stack's gap narrowed by a loose tile lying over it
    assert set(both) == {0, 1} and max(both.values()) < 4
    assert [k for k, _ in _gap_readings(2.2, 2.3)] == [1]
    assert 2 in dict(_gap_readings(4.5, 2.3))


def test_missing_stacks_are_counted_as_runs_round_the_square():
    ring = [True] * 72
    assert _arcs(ring) == 0
    ring[70:72] = [False, False]
    ring[0:3] = [False] * 3  # the run goes on past the end of the ring
    assert _arcs(ring) == 1
    ring[30] = False
    assert _arcs(ring) == 2


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
    assert find_break(WallShape.of(v), ws.heights, splits, set(ws.loose)) == at
    # after the deal the gap runs along the live wall; the break is still found at the dead wall
    dealt = wall_state(v, at, drawn=53)
    assert find_break(WallShape.of(v), dealt.heights, set(), set(dealt.loose)) == at


def test_the_widest_split_is_the_break():
    v = load_variant("riichi")
    sq = Square.for_variant(v)
    assert find_break(WallShape.of(v), [2] * sq.size, {sq.index("W", 3): 0.35, sq.index("W", 9): 0.8}, set()) == sq.index("W", 9)


def test_the_loose_tiles_where_r20_lays_them_tell_the_break_from_a_hand():
    """A hand over a wall makes a gap too, and the stacks beside it may look as if tiles lay on
    them, here nearer that gap than the true loose tiles are to the break: the break is the gap
    whose dead wall carries them on its 3rd and 5th stacks (R20)."""
    v = load_variant("classical")
    sq = Square.for_variant(v)
    at = sq.index("E", 17)
    ws = wall_state(v, at)
    ring = list(ws.heights)
    ring[sq.index("N", 5)] = ring[sq.index("N", 6)] = 0  # under the hand
    looks_raised = {sq.index("N", 3), sq.index("N", 1)}
    assert find_break(WallShape.of(v), ring, set(), set(ws.loose) | looks_raised) == at
    # with the true loose tiles unseen, the hand's gap and its raised-looking neighbours are all
    # there is to go by (what the rule cannot tell)
    assert find_break(WallShape.of(v), ring, set(), looks_raised) == sq.index("N", 5)


@pytest.mark.parametrize("name", ["classical", "german"])
def test_a_gap_with_no_loose_tile_beside_it_is_no_break(name):
    """R19–R21: from the break to the end of the hand, loose tiles lie on the dead wall (when both
    are drawn the next stack is lifted and laid there), so a gap without one is a hand's; but the
    one stack missing from the whole ring, with no loose tile seen anywhere, is the lifted stack
    (R19) whose two tiles were missed on top (seed 180000's hard 180128): a hand leaves more."""
    v = load_variant(name)
    sq = Square.for_variant(v)
    ring = [2] * sq.size
    ring[sq.index("N", 7)] = ring[sq.index("N", 8)] = 0
    assert find_break(WallShape.of(v), ring, set(), set()) is None
    ring[sq.index("N", 8)] = 2
    assert find_break(WallShape.of(v), ring, set(), set()) == sq.index("N", 7)
    assert find_break(WallShape.of(v), ring, set(), {sq.index("E", 3)}) is None  # a loose tile seen, not beside it
    ring[sq.index("S", 2)] = 0  # two lone stacks missing: which one is a hand's cannot be told
    assert find_break(WallShape.of(v), ring, set(), set()) is None
    ring[sq.index("S", 2)] = 2
    ws = wall_state(v, sq.index("N", 7))
    assert find_break(WallShape.of(v), ws.heights, set(), set(ws.loose)) == sq.index("N", 7)
    one_left = set(ws.loose[:1])  # one drawn for a kong (R21)
    assert find_break(WallShape.of(v), ws.heights, set(), one_left) == sq.index("N", 7)
    # the loose tiles not seen after the deal: a gap wider than a hand is stacks taken all the same
    dealt = wall_state(v, sq.index("N", 7), drawn=53)
    assert find_break(WallShape.of(v), dealt.heights, set(), set()) == sq.index("N", 7)


@pytest.mark.parametrize("name", ["riichi", "mcr"])
def test_in_a_split_wall_a_gap_the_deal_could_not_leave_is_no_break(name):
    """R24: the deal takes two stacks at a time, from the split. A gap of one or three stacks is a
    hand's; and until a whole pass is dealt, a split apart from every gap is still the break."""
    v = load_variant(name)
    sq = Square.for_variant(v)
    ring = [2] * sq.size
    ring[sq.index("S", 8)] = 0
    assert find_break(WallShape.of(v), ring, set(), set()) is None
    ring[sq.index("S", 9)] = ring[sq.index("S", 10)] = 0  # three: no whole number of takes either
    assert find_break(WallShape.of(v), ring, set(), set()) is None
    ring[sq.index("S", 11)] = 0  # four: two takes of the deal
    assert find_break(WallShape.of(v), ring, set(), set()) is not None
    ring[sq.index("S", 10)] = ring[sq.index("S", 11)] = 2
    split = {sq.index("N", 6): 0.8}  # a hand two stacks wide, and the split made for the break
    assert find_break(WallShape.of(v), ring, split, set()) == find_break(WallShape.of(v), [2] * sq.size, split, set())
    # the deal under way: the gap runs from the break, and a stray split elsewhere does not move it
    at = sq.index("W", 12)
    dealt = wall_state(v, at, drawn=53)
    assert find_break(WallShape.of(v), dealt.heights, {sq.index("E", 4): 0.8}, set()) == at


@pytest.mark.parametrize("seed,level,variant,brk", [
    (30053, "easy", "classical-19", ["E", 17]),  # no loose tiles where R20 lays them (read before: North's 5th)
    (30027, "medium", "riichi", ["N", 6]),  # two stacks hidden, apart from the split (South's 14th)
    (30050, "hard", "hongkong", None),  # three stacks hidden: no number of the deal's takes (North's 15th)
])
def test_a_felt_hand_left_unseen_on_a_wall_does_not_make_a_break(seed, level, variant, brk):
    """These hands, the felt's colour, cast too faint a shadow to be seen, and the stacks under
    them look taken; the gap they leave is none the rules could leave (R20, R24), and the break
    is read where it is, or none before it (in brackets: what was read when any gap would do)."""
    obs, t = observe(seed, level, hand="felt")
    assert t["variant"] == variant and t["break"] == brk
    assert obs["walls"]["break"] == brk


@pytest.mark.parametrize("name", ["classical", "german", "riichi", "mcr"])
def test_dead_wall_follows_the_variant(name):
    # R20: the dead wall lies on the variant's side of the break; lifted: beside the gap, split: from the break on
    v = load_variant(name)
    brk = break_wall(v, [[3, 4]] * len(v.dice.throws))
    sq = Square.for_variant(v)
    dead = WallShape.of(v).dead_wall(sq.index(brk.wall, brk.stack))
    assert [sq.stack_at(i) for i in dead] == list(brk.dead_wall)


def test_a_hand_resting_on_a_wall_is_not_taken_for_the_break():
    """The tops under a hand do not show: the wall looks broken there. Those stacks are reported
    hidden and no break is read from them; nor are live tiles counted that cannot be seen."""
    obs, t = observe(1, hand=True)  # MCR, broken at South's 14th; the hand lies on South's 7th and 8th
    assert t["break"] == ["S", 14] and ["S", 7] in obs["walls"]["hidden"]
    assert obs["walls"]["break"] is None and obs["walls"]["live_tiles"] is None
    assert "the break cannot be read" in obs["walls"]["note"]
    obs, t = observe(12, hand=True)  # riichi, walls built: the hand's edge cuts the tops like a split
    assert t["break"] is None and obs["walls"]["hidden"]
    assert obs["walls"]["break"] is None
    # on another wall than the break's, the break is still read
    obs, t = observe(7, hand=True)
    assert obs["walls"]["hidden"] and {s for s, _ in obs["walls"]["hidden"]} != {t["break"][0]}
    assert obs["walls"]["break"] == t["break"] and obs["walls"]["live_tiles"] is None
    # and without a hand nothing is hidden
    obs, t = observe(7)
    assert "hidden" not in obs["walls"] and obs["walls"]["live_tiles"] == t["live_tiles"]


def test_a_hand_the_colour_of_the_felt_is_seen_by_its_shadow():
    """A sleeve the felt's colour is not told from the felt by hue; the shadow it casts on the
    wall and the felt beside it marks the stacks there hidden, so its edge is not read as the
    break (before: East's 5th read for South's 5th, and South's 14th on walls not yet broken)."""
    obs, t = observe(0, hand="felt")
    assert t["break"] == ["S", 5] and obs["walls"]["hidden"]
    assert obs["walls"]["break"] in (None, t["break"])
    obs, t = observe(2, hand="felt")
    assert t["break"] is None and obs["walls"]["hidden"]
    assert obs["walls"]["break"] is None
    # its shadow falls along the arm, outside the wall, where no hand at the table's edge casts it
    obs, t = observe(16, hand="felt")
    assert t["break"] == ["E", 5] and obs["walls"]["hidden"]
    assert obs["walls"]["break"] in (None, t["break"])


def test_a_shadow_along_the_whole_wall_is_the_norm_but_one_a_hand_wide_is_a_hand():
    """A lamp off to one side lays each wall's own shadow on the felt beside it, along the whole
    wall: in those rows that is how the felt looks, not a hand (`wall_cover._shade` takes the felt's
    lightness row by row). The same shade over 8 cm of the wall only is a hand's shadow."""
    image, _ = render(random_scene(2, "easy", stage="built", variant_name="classical"))
    cal = from_markers(image)
    layout = TableLayout(cal.table_size, 18)
    strips = [sample(image, cal, layout, side) for side in SIDES]
    back = back_colour(strips, [felt_colour(s) for s in strips])
    strip = strips[0]
    rows = strip.lab.shape[0]
    none_cast = lambda: np.zeros(strip.lab.shape[1], bool)  # noqa: E731  (no hand at the table's edge)
    assert _shade(strip, felt_hue(strip), back, rows - 28, none_cast).max() < 0.05
    strip.lab[-16:, :, 0] *= 0.7  # the outermost 2 cm of felt in the wall's shadow, all along it
    assert _shade(strip, felt_hue(strip), back, rows - 28, none_cast).max() < FOREIGN_SHARE
    strip.lab[-20:, 200:264, 0] *= 0.7  # and a shadow a hand wide over the outermost 2.5 cm
    shade = _shade(strip, felt_hue(strip), back, rows - 28, none_cast)
    assert shade[232] > FOREIGN_SHARE and shade[100] < FOREIGN_SHARE


def test_a_shadow_from_a_hand_at_the_tables_edge_is_no_hand_on_the_wall():
    """A hand at the table's edge, seen there, shades the felt outside the wall beside the split
    at East's 5th: the stacks are not hidden and the break is read."""
    obs, t = observe(14, "hard")
    assert t["break"] == ["E", 5] and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


@pytest.mark.parametrize("seed", [140152, 180113, 190117])
def test_an_arms_shadow_where_stacks_were_taken_is_the_arms_not_a_hand_on_them(seed):
    """A hand at the table's edge shades the felt where a few stacks were taken, inside the band
    where tops can lie, as a hand the felt's colour lying there would (140152: East's 13th to
    18th; 180113: the shadow falls past the wall's end; 190117: two arms, skin on a wooden felt,
    seen in pieces). The shadow is the seen arm's shape moved by the light
    (`wall_cover._arm_shadows`), so it hides nothing and the break is read."""
    obs, t = observe(seed, "hard")
    assert t["break"] is not None and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


@pytest.mark.parametrize("seed", [140069, 140109])
def test_a_felt_coloured_hand_beside_an_arm_at_the_tables_edge_still_casts_its_own_shadow(seed):
    """A hand the felt's colour rests on East's wall near a skin arm at the table's edge. Its
    shadow is not the arm's moved by the light, so it still counts: no break is read from the
    hand's edge (140069: none before the break; 140109: not East's 16th for the 15th). Letting
    every shadow near an arm pass read both wrong."""
    obs, t = observe(seed, "hard", hand="felt")
    assert obs["walls"]["hidden"]
    assert obs["walls"]["break"] in (None, t["break"])


@pytest.mark.parametrize("seed,level,wall", [
    (100, "easy", "E"),  # dealt down to East's 5th, the hand on the 3rd to 5th: read East's 2nd
    (32, "medium", "W"),  # read West's 5th for the 7th
    (170049, "hard", "W"),  # read West's 10th for the 12th
])
def test_a_felt_coloured_hand_on_the_last_stacks_before_those_taken_is_no_shorter_wall(seed, level, wall):
    """A hand the felt's colour lies on the last stacks standing beside many taken away (dealt,
    or the dead wall's side of the break): the run of stacks not seen is longer than a hand, so
    its shadow there was taken for an arm's at the table's edge, and the break was read where the
    hand's edge is. The deep shadow at the run's end beside a standing stack
    (`wall_cover.END_SHADE`) marks a hand's width of the run hidden: the break is not read."""
    obs, t = observe(seed, level, hand="felt")
    assert t["break"][0] == wall and obs["walls"]["break"] is None
    assert any(w == wall for w, _ in obs["walls"]["hidden"]) and obs["walls"]["live_tiles"] is None
    obs, t = observe(seed, level)  # without the hand the break is read
    assert obs["walls"]["break"] == t["break"] and "hidden" not in obs["walls"]


@pytest.mark.parametrize("seed,level", [(5028, "hard"), (5084, "medium")])
def test_an_arm_is_seen_reaching_in_not_joined_up_from_what_lies_near_the_edge(seed, level):
    """A hand the felt's colour rests on a wall. Closing the gaps of what is neither felt nor tile
    beyond the wall joins a wind box or a marker lying there to the few pieces of the hand seen,
    and that blob reached the table's edge like an arm: its shape, moved, fitted the hand's own
    shadow, which then hid nothing and the live tiles were counted over the hand. An arm must be
    seen reaching the edge before its gaps are closed (`wall_cover._arms`)."""
    obs, t = observe(seed, level, hand="felt")
    assert obs["walls"].get("hidden") and obs["walls"]["live_tiles"] is None
    assert obs["walls"]["break"] == t["break"]


def test_a_wind_box_beyond_the_wall_is_no_arm():
    """Easy 5060: a hand the felt's colour rests on North's wall and over the wind box beside
    it. The box reaches as far out as an arm would, and its shape, moved, fitted the hand's
    shadow. The East marker and the wind disc are read before the walls now and left out of what
    may be an arm (`wall_cover._arms`), so the hand's shadow still hides the stacks under it."""
    obs, t = observe(5060, "easy", hand="felt")
    assert obs["east_marker_at"]["kind"] == "box"
    assert obs["walls"].get("hidden") and obs["walls"]["live_tiles"] is None
    assert obs["walls"]["break"] == t["break"]


def test_a_shadow_an_arm_casts_only_part_of_is_still_a_hands():
    """Hard 140087: a sleeve the felt's colour lies on North's wall between two skin arms at the
    table's edge. One arm's shape, moved 8 cm, lands on most of the sleeve's shadow, but not on
    all of it: a shadow counts as an arm's only where the arms cast nearly all of it
    (`wall_cover.CAST_WHOLE`), so the stacks under the sleeve are still hidden."""
    obs, t = observe(140087, "hard", hand="felt")
    assert obs["walls"].get("hidden") and obs["walls"]["live_tiles"] is None
    assert obs["walls"]["break"] == t["break"]


@pytest.mark.parametrize("seed", [90134, 90031])
def test_the_felt_in_a_gap_shaded_by_its_stacks_is_no_hands_shadow(seed):
    """A lifted stack's gap under a lamp off to one side: the stacks beside it shade the felt
    there, and in the rows across the wall no felt shows anywhere else near, so its lightness
    was compared with the felt beyond the wall's end, under other light, and the gap was taken
    for a hand's shadow (no break read). There is no norm for a colour in a row where it
    hardly shows (`wall_cover.ALONG_SEEN`)."""
    obs, t = observe(seed, "hard")
    assert t["stage"] == "broken" and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


@pytest.mark.parametrize("seed", [90000, 90033, 20061])
def test_a_sliver_of_mixed_colour_at_a_gap_is_no_hand(seed):
    """Where a gap or a split meets the stacks beside it, the felt shaded by them and the tiles'
    ends blend into colours that are neither felt, nor back, nor ivory: a patch inside the band
    of tops. It was taken for a hand's edge and the break left unread; a hand lying over the wall
    reaches it from beyond, so only blobs touching the band's inner or outer edge count
    (`wall_cover._foreign`)."""
    obs, t = observe(seed, "hard")
    assert t["break"] is not None and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


def test_a_die_leaning_on_a_wall_at_the_split_is_no_hand():
    """Easy 100027 (MCR, split at West's 11th): a yellow die cocked against the wall right at the
    split. It is neither felt nor tile and touches the band of tops, so it was taken for a hand
    over the split and the break left unread; the dice found are left out of that test
    (`wall_cover._foreign`), and a die hides nothing."""
    obs, t = observe(100027, "easy")
    assert any(d["cocked"] for d in obs["dice"])
    assert t["break"] == ["W", 11] and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


def test_a_marker_beyond_the_wall_is_no_arm_casting_the_shadow_there():
    """A felt-coloured hand rests on East's wall beside the dealer button lying beyond it: the
    button reaches in from nowhere, so the hand's shadow on the felt there still counts (before,
    the button was taken for what cast it and the hand's edge was read as the break at East's 3rd)."""
    obs, t = observe(25, "medium", hand="felt")
    assert t["break"] is None and obs["walls"]["hidden"]
    assert obs["walls"]["break"] is None


def test_a_shadow_where_many_stacks_were_taken_is_no_hand_on_them():
    """A hand at the table's edge shades the felt where eleven stacks were taken away: more than
    a hand lying there could hide, so they are taken, and the break is read."""
    obs, t = observe(20011, "hard")
    assert t["break"] == ["W", 7] and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


def test_a_hands_shadow_on_a_grey_felt_is_no_hand():
    """Hard 140070: two hands at the table's edge shade the grey felt where South's first eight
    stacks were taken. On a grey felt the shadow's hue is the felt's but darker, and by that
    darkness it was taken for something lying there, so the stacks were reported hidden and the
    break left unread. The felt a hand's shadow falls on is still felt (`wall_cover.SHADOW_DEPTH`)."""
    obs, t = observe(140070, "hard")
    assert t["break"] == ["S", 8] and "hidden" not in obs["walls"]
    assert obs["walls"]["break"] == t["break"]


def test_the_felt_in_a_lifted_stacks_gap_on_a_grey_felt_is_no_hands_shadow():
    """Hard 170148, classical rules, the stack lifted at South's 16th (R19) on a grey felt. There
    the tiles' sides have the felt's chromaticity too, and in the rows where they show all along
    the wall they set the felt's norm, which the felt in the gap's mouth falls far short of: it
    was taken for a hand's shadow and the break left unread. Felt is no brighter than
    `wall_cover.FELT_BRIGHTEST` times the felt's median."""
    obs, t = observe(170148, "hard")
    assert t["variant"] == "classical-19" and t["break"] == ["S", 16]
    assert "hidden" not in obs["walls"] and obs["walls"]["break"] == t["break"]


def test_no_break_on_a_built_wall():
    v = load_variant("classical")
    assert find_break(WallShape.of(v), [2] * 72, set(), set()) is None


def test_a_blank_table_has_no_walls():
    from companion.vision.calibrate import manual

    cal = manual([[280, 0], [1000, 0], [1000, 720], [280, 720]])
    felt = np.zeros((720, 1280, 3), np.uint8)
    felt[:] = (60, 110, 40)  # a green cloth (a grey picture is one the walls cannot be read from at all)
    obs = analyse(felt, SceneSettings(load_variant("classical")), calibration=cal, with_tiles=False).to_json()
    assert all(w["count"] == 0 for w in obs["walls"]["seats"].values())
    assert obs["walls"]["break"] is None and obs["walls"]["live_tiles"] is None
