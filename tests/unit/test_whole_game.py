"""A whole game at the table: choosing the first East, a misdeal, penalties and adjustments, ending
early, the final standings (companion/game/fold.py, companion/game/standings.py)."""

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import DiceError, GameRuleError, VariantError
from companion.game.events import (
    Adjustment,
    DiceThrown,
    GameEnded,
    GameStarted,
    HandDrawn,
    HandWon,
    Penalty,
    Recorded,
    Redeal,
    SeatsChosen,
)
from companion.game.fold import fold
from companion.game.standings import ranks, standings
from companion.hub import Hub
from companion.rules.variant import load_variant, parse_variant
from companion.storage import EventStore
from companion.table import Table

A, B, C, D = 0, 1, 2, 3
AT = datetime(2026, 1, 1, tzinfo=UTC)


def table(variant: str = "classical") -> Table:
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant(variant), ["A", "B", "C", "D"])
    return t


def dice(t, *faces):
    t.record(DiceThrown(faces=list(faces), source="serial"))
    return t.state


# --- sitting down ------------------------------------------------------------------------------

def test_seed003_the_highest_throw_is_the_first_east_and_never_a_break_throw():
    # seed 003: "Vor Spielbeginn wird durch Würfeln (höchste Augenzahl mit beiden Würfeln) derjenige
    # Spieler ermittelt, der zuerst als Ostwind spielt"
    t = table("german")
    assert t.state.phase == "seating" and t.state.expected_throw()["for"] == "seats"
    for faces in ([1, 2], [6, 5], [2, 2], [3, 3]):
        s = dice(t, *faces)
    assert s.east == "B" and s.phase == "throw"
    assert s.throws == [] and s.brk is None  # none of the four throws breaks the wall
    assert [x["total"] for x in s.seat_throws] == [3, 11, 4, 6]
    # "Für die anderen Spieler ergibt sich damit der Wind aus der Reihenfolge am Tisch"
    assert s.players == ["B", "C", "D", "A"]
    assert s.to_json()["seating"]["decided"]["east"] == "B"
    s = dice(t, 3, 4)
    assert len(s.throws) == 1  # the first break throw comes after the seats


def test_seed003_a_tie_for_the_highest_throw_is_thrown_again_by_those_tied():
    t = table("german")
    for faces in ([6, 6], [1, 1], [6, 6], [2, 2]):
        s = dice(t, *faces)
    assert s.phase == "seating" and s.seating.contenders == (A, C)
    assert s.expected_throw()["by"] == "A"
    dice(t, 2, 3)
    s = dice(t, 4, 4)
    assert s.east == "C" and s.players == ["C", "D", "A", "B"] and s.throws == []


def test_a_cocked_die_while_throwing_for_the_seats_is_thrown_again():
    t = table("german")
    with pytest.raises(DiceError):
        t.record(DiceThrown(faces=[3, 0], cocked=[1]))
    assert t.state.seat_throws == []


def test_a_counted_throw_counts_round_the_table_from_the_thrower():
    # R17 counts walls from the thrower's own as 1: a 6 lands on the second player round the table
    v = parse_variant({**load_variant("classical").to_dict(), "seating": {"first_east": "counted_throw"}})
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(v, ["A", "B", "C", "D"])
    s = dice(t, 2, 4)
    assert s.east == "B" and s.throws == []


def test_seed004_seats_drawn_with_wind_tiles_are_recorded_before_hand_1():
    # seed 004: seats are assigned at random (clubs draw wind tiles); the draw is typed in
    t = table("mcr")
    t.record(SeatsChosen(order=[C, A, D, B], how="drawn"))
    s = t.state
    assert s.players == ["C", "A", "D", "B"] and s.east == "C"
    assert s.to_json()["seats"] == {"E": "C", "S": "A", "W": "D", "N": "B"}


def test_a_table_that_records_no_seating_sits_as_the_names_were_entered():
    t = table("mcr")
    s = dice(t, 3, 4)  # no draw recorded: the throw is East's break throw
    assert s.east == "A" and len(s.throws) == 1
    t = table("german")
    t.record(HandWon(winner=B))  # no throws for the seats either
    assert t.state.history[0]["east"] == "A"


def test_a_hand_cannot_be_recorded_while_the_throws_for_the_seats_are_unfinished():
    t = table("german")
    dice(t, 3, 4)
    with pytest.raises(GameRuleError, match="first East is not chosen"):
        t.record(HandWon(winner=B))


def test_seats_are_chosen_before_the_first_hand_only():
    t = table()
    t.record(HandDrawn())
    with pytest.raises(GameRuleError, match="before the first hand"):
        t.record(SeatsChosen(order=[1, 2, 3, 0]))
    with pytest.raises(GameRuleError, match="each of the four"):
        table().record(SeatsChosen(order=[0, 0, 1, 2]))


def test_old_logs_fold_as_before_a_throw_before_hand_1_is_easts_break_throw():
    # a log from before `first_east` (typed): its first throw is still East's break throw
    v = load_variant("classical")
    records = [Recorded(id=1, game=1, at=AT, event=GameStarted(variant=v, players=["A", "B", "C", "D"])),
               Recorded(id=2, game=1, at=AT, event=DiceThrown(faces=[3, 4]))]
    s = fold(records)
    assert s.throws == [[3, 4]] and s.seating is None and s.phase == "throw"


# --- a misdeal ---------------------------------------------------------------------------------

def test_r25_r26_a_redeal_clears_the_throws_and_keeps_east_and_the_counter():
    # R25: "všechny vylosované kameny se vrátí doprostřed stolu, znova zamíchají … a zeď se probourá
    # na jiném místě"; R26: a misdeal may be declared before East's first discard
    t = table()
    t.record(HandWon(winner=A))  # East keeps the seat: repeat 1
    dice(t, 3, 4)
    dice(t, 5, 6)
    t.record(DiceThrown(faces=[2, 2]))  # a stray third throw waits as unassigned
    before = t.state
    t.record(Redeal(reason="13 tiles"))
    s = t.state
    assert s.throws == [] and s.brk is None and s.phase == "throw"
    assert (s.east, s.rotation.counter, s.hand, s.scores) == (before.east, 1, 2, before.scores)
    assert s.expected_throw()["index"] == 1
    assert s.redeals == [{"event": s.last_event, "hand": 2, "reason": "13 tiles"}]
    s = dice(t, 1, 2)
    assert s.throws == [[1, 2]]


def test_a_redeal_needs_a_throw_to_clear_and_is_undone_like_any_event():
    t = table()
    with pytest.raises(GameRuleError, match="nothing to redeal"):
        t.record(Redeal())
    dice(t, 3, 4)
    t.record(Redeal())
    t.undo()
    assert t.state.throws == [[3, 4]]


# --- penalties and adjustments -----------------------------------------------------------------

def test_seed004_a_penalty_is_paid_to_the_other_three_equally():
    # seed 004: "penalties for having the wrong number of tiles in hand or trying to go out with a
    # non-correct hand"
    t = table("mcr")
    t.record(Penalty(player=B, points=30, reason="false mahjong"))
    s = t.state
    assert s.scores == [10, -30, 10, 10]
    assert s.adjustments[-1]["kind"] == "penalty" and s.adjustments[-1]["reason"] == "false mahjong"
    with pytest.raises(GameRuleError, match="multiple of 3"):
        t.record(Penalty(player=A, points=10))


def test_an_adjustment_must_sum_to_zero():
    t = table()
    t.record(Adjustment(deltas={A: -10, C: 10}, reason="paid twice"))
    assert t.state.scores == [-10, 0, 10, 0]
    with pytest.raises(GameRuleError, match="sum to zero"):
        t.record(Adjustment(deltas={A: -10, C: 8}))
    with pytest.raises(GameRuleError, match="no player"):
        t.record(Adjustment(deltas={7: -10, C: 10}))
    assert t.state.scores == [-10, 0, 10, 0]  # refused: nothing moved


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["classical", "german", "mcr", "riichi", "riichi-wrc", "french", "hongkong"]),
       st.lists(st.tuples(st.integers(0, 3), st.none() | st.integers(0, 3), st.integers(0, 40),
                          st.sampled_from(["win", "draw", "penalty"])), max_size=30))
def test_every_hand_and_adjustment_sums_to_zero(name, results):
    t = table(name)
    for winner, discarder, value, kind in results:
        if t.state.game_over:
            break
        value = value if name not in ("riichi", "riichi-wrc") else max(1, value % 6)
        event = {"win": HandWon(winner=winner, discarder=None if discarder == winner else discarder, value=value,
                                fu=30 if name.startswith("riichi") else None),
                 "draw": HandDrawn(ready=[winner]), "penalty": Penalty(player=winner, points=3 * (value + 1))}[kind]
        try:
            t.record(event)
        except GameRuleError:
            pass  # a value below a variant's minimum, say
    assert t.state.zero_sum_problems() == []


def test_the_zero_sum_check_finds_a_hand_that_does_not_balance():
    t = table()
    t.record(HandWon(winner=A, value=10))
    s = t.state.copy()
    s.scores[0] += 5
    assert any("more than the start" in p for p in s.zero_sum_problems())


# --- ending early ------------------------------------------------------------------------------

def test_seed004_a_game_ended_by_time_keeps_the_scores_before_the_hand_in_play():
    # seed 004: "The current hand is then not played to a finish, and the players will score the
    # points they have so far accumulated before the current hand started."
    t = table("mcr")
    t.record(HandWon(winner=B, discarder=A, value=8))
    dice(t, 3, 4)
    scores = list(t.state.scores)
    t.record(GameEnded(how="time"))
    s = t.state
    assert s.game_over and s.phase == "over" and s.scores == scores and s.throws == []
    assert s.ended["how"] == "time" and s.hand == 1
    with pytest.raises(GameRuleError, match="over"):
        t.record(HandWon(winner=C))
    t.undo()  # the end undone: play on
    assert not t.state.game_over


# --- standings ---------------------------------------------------------------------------------

def test_seed002_the_accumulated_score_decides_the_winner():
    # seed 002: "le score accumulé détermine le vainqueur"
    t = table("french")
    t.record(HandWon(winner=C, value=20))
    rows = t.state.to_json()["standings"]
    assert rows[0]["player"] == "C" and rows[0]["rank"] == 1
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_ties_share_a_rank_or_go_by_seat_order():
    assert ranks([10, 30, 10, -50]) == [2, 1, 2, 4]
    assert ranks([10, 30, 10, -50], "seat_order") == [2, 1, 3, 4]


def test_wrc_final_results_with_uma_and_ties_averaged():
    # WRC: "Session score = ((points – 30,000) / 1,000) + uma", uma +15/+5/-5/-15, averaged for ties
    v = load_variant("riichi-wrc")
    rows = standings(["A", "B", "C", "D"], [45000, 30000, 30000, 15000], v)
    assert [(r["player"], r["rank"], r["final"]) for r in rows] == [("A", 1, 30.0), ("B", 2, 0.0), ("C", 2, 0.0),
                                                                     ("D", 4, -30.0)]
    assert sum(r["final"] for r in rows) == 0


def test_oka_goes_to_the_first_and_must_balance_the_return():
    base = load_variant("riichi").to_dict()
    v = parse_variant({**base, "standings": {"uma": [15, 5, -5, -15], "return_score": 30000, "oka": 20}})
    rows = standings(["A", "B", "C", "D"], [40000, 30000, 20000, 10000], v)
    assert [r["final"] for r in rows] == [45.0, 5.0, -15.0, -35.0] and sum(r["final"] for r in rows) == 0
    with pytest.raises(VariantError, match="standings.oka"):
        parse_variant({**base, "standings": {"uma": [15, 5, -5, -15], "return_score": 30000, "oka": 10}})
    with pytest.raises(VariantError, match="standings.uma"):
        parse_variant({**base, "standings": {"uma": [15, 5, -5]}})
    with pytest.raises(VariantError, match="standings.uma"):
        parse_variant({**base, "standings": {"uma": [15, 5, -5, -5]}})


def test_standings_are_in_the_state_on_request_and_without_uma_have_no_final():
    rows = table().state.to_json()["standings"]
    assert [r["rank"] for r in rows] == [1, 1, 1, 1] and all("final" not in r for r in rows)


# --- variants ----------------------------------------------------------------------------------

def test_seed002_french_is_the_east_and_south_rounds_and_several_may_win_on_a_discard():
    # seed 002: "Une partie complète consiste en deux rounds : le round Est et le round Sud";
    # "Il est possible pour plusieurs joueurs de gagner avec le même écart"
    v = load_variant("french")
    assert v.rounds.winds == ["E", "S"] and v.claims.several_winners
    assert v.seating.direction == "anticlockwise"  # "dans le sens inverse des aiguilles d'une montre"
    t = table("french")
    for _ in range(8):  # East passes eight times: two rounds
        t.record(HandWon(winner=(t.state.dealer + 1) % 4))
    assert t.state.game_over and t.state.hand == 8


def test_the_riichi_presets_carry_their_rule_books_numbers():
    for name in ("riichi-ema", "riichi-wrc"):
        v = load_variant(name)
        assert v.settlement.start_score == 30000 and v.standings.uma == [15, 5, -5, -15]
        assert v.standings.return_score == 30000 and v.standings.oka == 0
        assert v.scoring_rules["red_fives"] is False and v.scoring_rules["open_tanyao"] is True
        assert v.settlement.abortive_draws is False
        assert table(name).state.scores == [30000] * 4


def test_a_bad_first_east_or_ties_setting_names_its_field():
    base = load_variant("classical").to_dict()
    with pytest.raises(VariantError, match="seating.first_east"):
        parse_variant({**base, "seating": {"first_east": "coin"}})
    with pytest.raises(VariantError, match="standings.ties"):
        parse_variant({**base, "standings": {"ties": "coin"}})


def test_variants_show_lists_the_choices_made_where_the_seed_is_silent():
    from click.testing import CliRunner

    from companion.cli import main

    r = CliRunner().invoke(main, ["variants", "show", "french"])
    assert r.exit_code == 0, r.output
    head = r.output.split("\n\n", 1)[0]
    assert "french: not in the seed: the scoring and payments" in head
    assert "classical: not in the seed: how the first East is chosen" in head
