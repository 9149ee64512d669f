"""The incremental fold equals the full fold of the log after every event (hypothesis), undo and
correction included, however far back they reach."""

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.game.events import (
    Adjustment,
    AlsoWon,
    Corrected,
    DiceAssigned,
    DiceThrown,
    GameEnded,
    GameStarted,
    HandDrawn,
    HandWon,
    Penalty,
    Recorded,
    Redeal,
    SeatsChosen,
    Undone,
    WallBroken,
)
from companion.game.fold import LiveFold, _resolve, fold
from companion.rules.variant import builtin_names, load_variant

VARIANTS = {name: load_variant(name) for name in builtin_names()}
AT = datetime(2026, 1, 1, tzinfo=UTC)
player = st.integers(min_value=0, max_value=3)


def dice(draw):
    n = draw(st.sampled_from([2, 2, 2, 3, 1]))  # mostly the two dice thrown; sometimes a wrong count
    faces = draw(st.lists(st.integers(min_value=0, max_value=6), min_size=n, max_size=n))
    cocked = [i for i, f in enumerate(faces) if f == 0]  # R18: a cocked die reads 0
    return DiceThrown(faces=faces, cocked=cocked, source=draw(st.sampled_from(["phone", "serial", "camera"])))


def result(draw):
    if draw(st.booleans()):
        return HandDrawn(ready=sorted(draw(st.sets(player, max_size=4))))
    winner = draw(player)
    discarder = draw(st.none() | player)
    also = []
    if discarder is not None and draw(st.integers(0, 5)) == 0:  # several winners (seed 002)
        also = [AlsoWon(winner=w, value=8) for w in {0, 1, 2, 3} - {winner, discarder}][:1]
    return HandWon(winner=winner, discarder=discarder, value=draw(st.none() | st.integers(0, 64)), also=also)


@st.composite
def game_log(draw):
    """A game's log: a start, then throws, breaks, results, assignments, undos and corrections of
    any earlier event (as the table lets through, and some it would refuse)."""
    variant = VARIANTS[draw(st.sampled_from(sorted(VARIANTS)))]
    next_id = draw(st.integers(1, 50))
    records = [Recorded(id=next_id, game=next_id, at=AT, event=GameStarted(variant=variant, players=["A", "B", "C", "D"]))]
    for _ in range(draw(st.integers(0, 60))):
        next_id += draw(st.sampled_from([1, 1, 1, 2]))  # ids of other games may lie between
        earlier = draw(st.sampled_from([r.id for r in records]))
        kind = draw(st.sampled_from(["dice"] * 6 + ["result"] * 3 + ["break", "assign", "undo", "undo", "correct"]
                                    + ["redeal", "penalty", "adjust", "end", "seats"]))
        if kind == "dice":
            event = dice(draw)
        elif kind == "result":
            event = result(draw)
        elif kind == "break":
            event = WallBroken(seat=draw(st.sampled_from("ESWN")), stack=draw(st.integers(1, 18)))
        elif kind == "assign":
            event = DiceAssigned(roll=earlier)
        elif kind == "redeal":  # a misdeal, the whole game's ways of moving scores, its end and its seats
            event = Redeal()
        elif kind == "penalty":
            event = Penalty(player=draw(player), points=draw(st.sampled_from([3, 30, 31])))
        elif kind == "adjust":
            a, b = draw(player), draw(player)
            event = Adjustment(deltas={a: -10, b: draw(st.sampled_from([10, 9]))})
        elif kind == "end":
            event = GameEnded(how=draw(st.sampled_from(["time", "agreement"])))
        elif kind == "seats":
            event = SeatsChosen(order=draw(st.permutations([0, 1, 2, 3])))
        elif kind == "undo":
            event = Undone(target=earlier)
        else:
            event = Corrected(target=earlier, event=draw(st.sampled_from([dice, result]))(draw))
        records.append(Recorded(id=next_id, game=records[0].id, at=AT, event=event))
    return records


def same(live, full):
    """Everything the state says, to phones and to the table (what was applied, what set aside and why)."""
    assert live.to_json() == full.to_json()
    assert live.applied == full.applied
    assert {k: (type(e), str(e)) for k, e in live.rejections.items()} == \
        {k: (type(e), str(e)) for k, e in full.rejections.items()}
    assert (live.pending, live.observed_break, live.rotation) == (full.pending, full.observed_break, full.rotation)


@pytest.fixture
def small_checkpoints(monkeypatch):
    monkeypatch.setattr(LiveFold, "CHECKPOINT_EVERY", 4)  # short logs cross many checkpoints


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game_log())
def test_the_live_fold_equals_the_full_fold_after_every_event(small_checkpoints, records):
    live = LiveFold(records[:1])
    for i in range(1, len(records)):
        before = live
        before_json = before.state.to_json()
        live = live.then(records[i])
        same(live.state, fold(records[: i + 1]))
        assert live._resolution == _resolve(records[: i + 1])  # kept up to date, not read again
        assert before.state.to_json() == before_json  # persistent: the fold before is as it was
        same(before.state, fold(records[:i]))
    # the seats of an old hand, as the game now stands (a correction names players by them)
    for r in records[1:]:
        same(live.state_before(r.id), fold(records, before=r.id))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game_log())
def test_a_fold_started_from_a_whole_log_equals_the_full_fold(small_checkpoints, records):
    same(LiveFold(records).state, fold(records))


def test_an_undo_of_an_old_hand_derives_again_only_from_the_checkpoint_before_it(monkeypatch):
    variant = VARIANTS["classical"]
    records = [Recorded(id=1, game=1, at=AT, event=GameStarted(variant=variant, players=["A", "B", "C", "D"]))]
    for i in range(2, 400):
        records.append(Recorded(id=i, game=1, at=AT, event=HandWon(winner=0, value=i)))  # East keeps the seat (R11)
    live = LiveFold(records)
    applied = []
    import companion.game.fold as fold_module
    real = fold_module.apply
    monkeypatch.setattr(fold_module, "apply", lambda s, i, e: (applied.append(i), real(s, i, e)))
    undone = live.then(Recorded(id=400, game=1, at=AT, event=Undone(target=390)))
    assert applied and min(applied) > 390 - LiveFold.CHECKPOINT_EVERY and 390 not in applied
    assert undone.state.to_json() == fold([*records, undone.records[-1]]).to_json()


def test_a_record_older_than_the_log_is_refused():
    variant = VARIANTS["classical"]
    live = LiveFold([Recorded(id=5, game=5, at=AT, event=GameStarted(variant=variant, players=["A", "B", "C", "D"]))])
    with pytest.raises(ValueError):
        live.then(Recorded(id=5, game=5, at=AT, event=HandDrawn()))


def test_a_copy_shares_no_list_or_dict_with_its_original():
    # the live fold applies events to copies: a list or dict shared with the state before would
    # change that state (and the checkpoints) behind its back
    from dataclasses import fields

    variant = VARIANTS["classical"]
    state = LiveFold([Recorded(id=1, game=1, at=AT, event=GameStarted(variant=variant, players=["A", "B", "C", "D"]))]).state
    copy = state.copy()
    shared = [f.name for f in fields(state)
              if isinstance(getattr(state, f.name), (list, dict, set)) and getattr(copy, f.name) is getattr(state, f.name)]
    assert shared == []
