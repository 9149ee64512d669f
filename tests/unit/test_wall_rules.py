"""The wall, the break and the deal, sentence by sentence from R16–R24 (seeds 000/001), seed 003 and riichi."""

import pytest

from companion.errors import DiceError
from companion.rules.variant import load_variant
from companion.rules.wall import Square, Stack, TilePlace, break_wall, chosen_wall

CLASSICAL = load_variant("classical")
GERMAN = load_variant("german")
RIICHI = load_variant("riichi")
MCR = load_variant("mcr")


def test_r16_each_wall_is_18_stacks_two_high():
    # R16: "Each player builds a wall 18 stacks long, 2 high; the four walls join into a square."
    assert CLASSICAL.stacks_per_wall == 18
    assert CLASSICAL.tiles.total == 4 * 18 * 2
    assert len(Square.for_variant(CLASSICAL).all_stacks()) == 72


@pytest.mark.parametrize(
    "total, wall",
    [(2, "S"), (6, "S"), (10, "S"), (3, "W"), (7, "W"), (11, "W"), (4, "N"), (8, "N"), (12, "N"), (5, "E"), (9, "E")],
)
def test_r17_east_counts_walls_anticlockwise_from_his_own(total, wall):
    # R17: "totals 2, 6, 10 → South's wall; 3, 7, 11 → West's; 4, 8, 12 → North's; 5, 9 → East's own."
    assert chosen_wall(CLASSICAL, total) == wall


def test_r19_breaker_counts_the_sum_from_the_right_end_of_his_own_wall():
    # R19: "The player whose wall was chosen throws both dice, adds his total to East's total, and counts that
    # many stacks along his own wall starting from its right end."
    brk = break_wall(CLASSICAL, [[1, 2], [2, 3]])  # 3 → West; 3 + 5 = 8
    assert brk.chosen_wall == "W"
    assert brk.count == 8
    assert (brk.wall, brk.stack) == ("W", 8)


def test_r19_past_18_the_count_continues_on_the_left_neighbours_wall():
    # R19: "Past 18 he continues onto the wall of the neighbour on his left." South sits on East's right (R11),
    # so East sits on South's left: a count of 21 on South's wall ends on East's 3rd stack.
    brk = break_wall(CLASSICAL, [[4, 6], [5, 6]])  # 10 → South; 10 + 11 = 21
    assert brk.chosen_wall == "S"
    assert (brk.wall, brk.stack) == ("E", 3)
    assert Square.for_variant(CLASSICAL).left_neighbour("S") == "E"


def test_r19_the_lifted_stacks_tiles_lie_right_of_the_break_top_tile_farther():
    # R19: "its two tiles are laid on top of the wall to the right of the break, the former top tile farther
    # from the break. These are the two loose tiles."
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])  # 7 → West, 18 → West's 18th stack
    assert brk.style == "lift"
    by_layer = {t.layer: t for t in brk.loose}
    right = [Stack("W", 18 - k) for k in range(1, 8)]  # right of the break = towards West's stack 1
    top, bottom = by_layer["top"], by_layer["bottom"]
    assert Stack(top.seat, top.stack) in right and Stack(bottom.seat, bottom.stack) in right
    assert right.index(Stack(top.seat, top.stack)) > right.index(Stack(bottom.seat, bottom.stack))


def test_r20_seven_stacks_right_of_the_break_are_the_dead_wall_and_the_live_wall_starts_left_of_it():
    # R20: "The 7 stacks to the right of the break (loose tiles not counted) are the dead wall / kong box; the
    # live wall begins at the stack immediately left of the break."
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])
    assert list(brk.dead_wall) == [Stack("W", k) for k in range(17, 10, -1)]
    # left of West's 18th stack (his left end) is the next wall clockwise: South's 1st stack (R19 direction)
    assert brk.deal_start == Stack("S", 1)


def test_r20_custom_bottom_loose_tile_on_the_3rd_and_top_on_the_5th_stack():
    # R20: "Custom: bottom loose tile on the 3rd stack right of the break, top loose tile on the 5th."
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])
    lying = {t.layer: (t.seat, t.stack) for t in brk.loose}
    assert lying == {"bottom": ("W", 15), "top": ("W", 13)}


def test_r20_dead_wall_turns_the_corner_onto_the_right_neighbours_wall():
    # R20 with a break near the right end: 1+1 → South, count 4: lifted S4, dead wall S3, S2, S1 then
    # the wall of the player on South's right (West) from its left end.
    brk = break_wall(CLASSICAL, [[1, 1], [1, 1]])
    assert (brk.wall, brk.stack) == ("S", 4)
    assert Square.for_variant(CLASSICAL).right_neighbour("S") == "W"
    assert list(brk.dead_wall) == [Stack("S", 3), Stack("S", 2), Stack("S", 1)] + [
        Stack("W", k) for k in (18, 17, 16, 15)
    ]


def test_r21_the_loose_tile_farther_from_the_break_is_taken_first():
    # R21: "A player owed a loose tile takes first the one farther from the break (the former top tile)."
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])
    first = min(brk.loose, key=lambda t: t.draw_order)
    assert first.layer == "top" and (first.seat, first.stack) == ("W", 13)
    assert brk.replacement_order[:2] == (TilePlace("W", 18, "top"), TilePlace("W", 18, "bottom"))


def test_r21_when_both_are_used_the_leftmost_kong_box_stack_is_lifted_and_laid_as_before():
    # R21: "When both are used, the player in whose wall the kong box stands lifts the leftmost stack of the kong
    # box and lays its tiles on the remaining dead-wall stacks as before (top tile right of the bottom one)."
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])
    assert brk.replacement_order[2:4] == (TilePlace("W", 17, "top"), TilePlace("W", 17, "bottom"))
    after = {t.layer: (t.seat, t.stack) for t in brk.loose_after(2)}
    # the gap is now at W17: the 3rd and 5th stacks right of it are W14 and W12; the top tile farther out
    assert after == {"bottom": ("W", 14), "top": ("W", 12)}
    assert [t.draw_order for t in sorted(brk.loose_after(2), key=lambda t: t.draw_order)] == [3, 4]


def test_r22_the_kong_box_starts_with_16_tiles_and_nothing_moves_from_the_live_wall():
    # R22: "The kong box starts with 16 tiles including the 2 loose tiles; each loose tile drawn lowers this by 1.
    # No tiles move from the live wall to the dead wall."
    brk = break_wall(CLASSICAL, [[2, 2], [3, 3]])
    assert brk.kong_box == 16
    assert len(brk.replacement_order) == 16
    assert CLASSICAL.dead_wall.keep_size is False
    assert not set(brk.replacement_order) & set(brk.live)
    # sixteen replacements: loose tiles drawn one by one until the box is used up
    assert brk.loose_after(16) == []
    assert len(brk.loose_after(15)) == 1


def test_r23_the_live_wall_disappears_clockwise():
    # R23: "East starts; play goes anticlockwise; the live wall disappears clockwise." Clockwise from above is
    # the direction of rising stack numbers (each wall counted from its right end), on to the left neighbour.
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])
    sq = Square.for_variant(CLASSICAL)
    order = [sq.index(t.seat, t.stack) for t in brk.live[::2]]
    steps = {(b - a) % sq.size for a, b in zip(order, order[1:])}
    assert steps == {1}


def test_r24_deal_two_stacks_each_three_times_then_east_one_stack_and_the_others_one_tile():
    # R24: "East takes the first two stacks from the open end of the live wall (immediately left of the break),
    # then S, W, N two stacks each; this goes round three times (12 tiles each); then East takes one more stack
    # (2 tiles) and S, W, N one tile each: East 14, others 13."
    brk = break_wall(CLASSICAL, [[3, 4], [5, 6]])
    picks = list(brk.deal)
    first_four = picks[:4]
    assert {p.to for p in first_four} == {"E"}
    assert [(p.tile.seat, p.tile.stack) for p in first_four] == [("S", 1), ("S", 1), ("S", 2), ("S", 2)]
    assert [p.to for p in picks[:48:4]] == ["E", "S", "W", "N"] * 3
    assert [p.to for p in picks[48:]] == ["E", "E", "S", "W", "N"]
    # 24 stacks dealt (S1–S18, then E1–E6 on South's left-hand neighbour's wall); East's extra stack is E7
    assert [(p.tile.seat, p.tile.stack) for p in picks[48:50]] == [("E", 7)] * 2
    hands = brk.hands()
    assert [len(hands[w]) for w in "ESWN"] == [14, 13, 13, 13]
    assert brk.live_after_deal == 144 - 16 - 53


def test_seed003_german_table_is_the_mirror_image():
    # Seed 003: East throws, the total counted from East in E, S, W, N order (5 or 9 → East, 4 or 8 → North);
    # the chosen player adds both totals and counts along his own wall from left to right; lifts the stack; lays the
    # bottom tile on the first stack left of the gap and the top tile left of that; 6 stacks left of the gap (now 14
    # tiles) are the replacement wall; the deal proceeds from the right of the gap.
    assert chosen_wall(GERMAN, 5) == chosen_wall(GERMAN, 9) == "E"
    assert chosen_wall(GERMAN, 4) == chosen_wall(GERMAN, 8) == "N"
    brk = break_wall(GERMAN, [[1, 1], [1, 2]])  # 2 → South; 2 + 3 = 5 from the LEFT end: South's stack 14
    assert (brk.wall, brk.stack) == ("S", 14)
    assert list(brk.dead_wall) == [Stack("S", k) for k in range(15, 19)] + [
        Stack(Square.for_variant(GERMAN).left_neighbour("S"), k) for k in (1, 2)
    ]
    lying = {t.layer: (t.seat, t.stack) for t in brk.loose}
    assert lying == {"bottom": ("S", 15), "top": ("S", 16)}
    assert brk.kong_box == 14
    assert brk.deal_start == Stack("S", 13)
    assert [len(h) for h in brk.hands().values()] == [14, 13, 13, 13]


def test_seed003_overflow_goes_onto_the_previous_seats_wall():
    # RULES.md on seed 003: "the count still overflows onto the previous seat's wall in E→S→W→N order".
    brk = break_wall(GERMAN, [[6, 6], [6, 6]])  # 12 → North; 24 from North's left end → 6 more on West's wall
    assert brk.chosen_wall == "N"
    assert (brk.wall, brk.stack) == ("W", 18 - 5)


def test_riichi_single_throw_split_after_the_tth_stack_dead_wall_round_the_corner():
    # Riichi: "the total T selects the wall ... and the wall is split after the T-th stack from that wall's right
    # end (no stack is lifted). Dead wall: the 7 stacks to the right of the split (the T-th stack and the six beyond
    # it, continuing onto the right neighbour's wall when T < 7)."
    brk = break_wall(RIICHI, [[2, 3]])  # 5 → East's own wall
    assert (brk.wall, brk.stack) == ("E", 5)
    assert list(brk.dead_wall) == [Stack("E", k) for k in (5, 4, 3, 2, 1)] + [Stack("S", 17), Stack("S", 16)]
    assert brk.kong_box == 14
    # "Kong replacement (rinshan) tiles: the 2 stacks nearest the split; dora indicator: the top tile of the 3rd"
    assert {(t.seat, t.stack) for t in brk.loose} == {("E", 5), ("E", 4)}
    assert brk.dora_indicator == TilePlace("E", 3, "top")
    # the dead wall keeps 14 tiles (keep_size): the last live tile joins it after each kong, so the four
    # rinshan tiles are every replacement there is, and the indicator is never drawn as one
    assert brk.replacement_order == (TilePlace("E", 5, "top"), TilePlace("E", 5, "bottom"),
                                     TilePlace("E", 4, "top"), TilePlace("E", 4, "bottom"))
    # "Deal: from the stack left of the split, 2 stacks (4 tiles) each ×3, then the dealer takes 2 tiles, others 1."
    assert brk.deal_start == Stack("E", 6)
    assert [len(h) for h in brk.hands().values()] == [14, 13, 13, 13]
    assert brk.live_after_deal == 136 - 14 - 53


def test_riichi_dealer_jump_takes_the_top_tiles_of_the_first_and_third_stacks():
    brk = break_wall(RIICHI, [[2, 3]])
    last = list(brk.deal)[48:]
    assert [p.to for p in last] == ["E", "E", "S", "W", "N"]
    assert last[0].tile.layer == last[1].tile.layer == "top"
    assert last[1].tile.stack - last[0].tile.stack == 2


def test_seed004_mcr_no_dead_wall_replacements_from_the_back_end():
    # Seed 004: "you during the game will be drawing “normal” tiles from the Wall in clockwise fashion, but drawing
    # any replacement tiles from the back end of the Wall". RULES.md: "MCR dead wall (none in seed 004, replacements
    # from the back end)".
    brk = break_wall(MCR, [[3, 4], [5, 6]])
    assert brk.dead_wall == ()
    assert brk.live_after_deal == 144 - 53
    sq = Square.for_variant(MCR)
    # the back end of the live wall is the counted stack, just behind where the deal started
    assert (brk.replacement_order[0].seat, brk.replacement_order[0].stack) == (brk.wall, brk.stack)
    assert sq.index(brk.deal_start.seat, brk.deal_start.stack) == (sq.index(brk.wall, brk.stack) + 1) % sq.size
    assert brk.replacement_order[0] == brk.live[-2]


@pytest.mark.parametrize("throws", [[[0, 4], [5, 6]], [[3, 7], [5, 6]], [[3], [5, 6]], [[3, 4, 5], [5, 6]], [[3, 4]]])
def test_impossible_dice_are_refused_with_a_reason(throws):
    with pytest.raises(DiceError):
        break_wall(CLASSICAL, throws)


@pytest.mark.parametrize(("variant", "throws", "words"), [
    (CLASSICAL, [(3, 4), (5, 6)], "count 18 stacks from the right end of West's wall"),  # R19
    (GERMAN, [(4, 5), (6, 6)], "count 21 stacks from the left end of East's wall"),  # seed 003: "von links"
    (RIICHI, [(1, 2)], "count 3 stacks from its right end"),
])
def test_the_break_in_words_names_the_end_the_count_starts_from(variant, throws, words):
    from companion.rules.diagram import describe

    assert words in describe(break_wall(variant, throws)).splitlines()[0]


def test_the_wall_shape_puts_the_dead_wall_where_r20_says():
    from companion.rules.wall import WallShape

    # classical: the counted stack is lifted (R19); the dead wall is the 7 stacks to its right,
    # the loose tiles on its 5th and 3rd (R20), and it turns the corner onto the next wall
    classical = load_variant("classical")
    shape, sq = WallShape.of(classical), Square.for_variant(classical)
    assert shape.lift and shape.loose_on_top and shape.loose_laid == (5, 3)
    assert [str(sq.stack_at(i)) for i in shape.dead_wall(sq.index("E", 10))] == ["E9", "E8", "E7", "E6", "E5", "E4", "E3"]
    assert [str(sq.stack_at(i)) for i in shape.dead_wall(sq.index("S", 2))][:3] == ["S1", "W18", "W17"]  # on to the right neighbour's wall
    # riichi: the wall is split after the counted stack, which is the dead wall's first
    riichi = load_variant("riichi")
    shape, sq = WallShape.of(riichi), Square.for_variant(riichi)
    assert not shape.lift and not shape.loose_on_top
    assert [str(sq.stack_at(i)) for i in shape.dead_wall(sq.index("E", 10))] == ["E10", "E9", "E8", "E7", "E6", "E5", "E4"]
