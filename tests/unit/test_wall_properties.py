"""Properties of every break, over all dice and all variants (hypothesis)."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.variant import builtin_names, load_variant
from companion.rules.wall import LAYERS, Square, TilePlace, break_wall

VARIANTS = {name: load_variant(name) for name in builtin_names()}
die = st.integers(min_value=1, max_value=6)


@st.composite
def variant_and_dice(draw):
    name = draw(st.sampled_from(sorted(VARIANTS)))
    v = VARIANTS[name]
    throws = [draw(st.lists(die, min_size=v.dice.dice, max_size=v.dice.dice)) for _ in v.dice.throws]
    return v, throws


def every_tile(v):
    return {TilePlace(s.seat, s.stack, layer) for s in Square.for_variant(v).all_stacks() for layer in LAYERS}


@settings(max_examples=400, deadline=None)
@given(variant_and_dice())
def test_every_tile_is_dealt_dead_or_live_exactly_once(case):
    v, throws = case
    brk = break_wall(v, throws)
    dealt = [p.tile for p in brk.deal]
    dead = [TilePlace(s.seat, s.stack, layer) for s in brk.dead_wall for layer in LAYERS]
    if brk.style == "lift":  # the lifted stack's two tiles are the loose tiles, part of the kong box (R22)
        dead += [TilePlace(brk.at.seat, brk.at.stack, layer) for layer in LAYERS]
    counts = Counter(dealt + dead + list(brk.live))
    assert set(counts) == every_tile(v)
    assert set(counts.values()) == {1}
    assert len(dead) == brk.kong_box


@settings(max_examples=400, deadline=None)
@given(variant_and_dice())
def test_hands_are_13_and_east_14_and_dead_wall_size_is_constant(case):
    v, throws = case
    brk = break_wall(v, throws)
    assert [len(brk.hands()[w]) for w in "ESWN"] == [v.deal.hand_size + 1] + [v.deal.hand_size] * 3
    assert len(brk.dead_wall) == v.dead_wall.stacks
    assert brk.live_after_deal == v.tiles.total - brk.kong_box - (4 * v.deal.hand_size + 1)


@settings(max_examples=400, deadline=None)
@given(variant_and_dice())
def test_no_position_lies_outside_the_square(case):
    v, throws = case
    brk = break_wall(v, throws)
    n = v.stacks_per_wall
    places = [brk.at, brk.deal_start, *brk.dead_wall]
    places += [p.tile for p in brk.deal] + list(brk.replacement_order) + list(brk.loose)
    for drawn in range(len(brk.replacement_order)):
        places += brk.loose_after(drawn)
    for p in places:
        assert p.seat in "ESWN" and 1 <= p.stack <= n


@settings(max_examples=300, deadline=None)
@given(variant_and_dice())
def test_replacements_never_come_from_tiles_already_dealt(case):
    v, throws = case
    brk = break_wall(v, throws)
    dealt = {p.tile for p in brk.deal}
    assert not dealt & set(brk.replacement_order)
    assert len(set(brk.replacement_order)) == len(brk.replacement_order)


def test_every_total_of_every_variant_breaks_a_wall():
    """Exhaustively, not only by sampling: every combination of faces."""
    import itertools

    for v in VARIANTS.values():
        faces = list(itertools.product(range(1, 7), repeat=v.dice.dice))
        for combo in itertools.product(faces, repeat=len(v.dice.throws)):
            brk = break_wall(v, [list(t) for t in combo])
            assert brk.count == sum(sum(t) for t in combo) or v.dice.stacks_by != "sum"
