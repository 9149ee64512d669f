"""Tournament rules of the house (companion/club/tournament.py): seatings, clock, scores, ranking."""

from datetime import UTC, datetime, timedelta

import pytest

from companion.club import tournament as tm

PLAYERS = [f"P{i:02d}" for i in range(16)]
TABLES = ["1", "2", "3", "4"]
T0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)


def everyone_once(seating):
    flat = [p for g in seating.values() for p in g]
    return sorted(flat) == sorted(PLAYERS) and all(len(g) == 4 for g in seating.values())


def test_random_seating_seats_everyone_once_and_follows_its_seed():
    a = tm.random_seating(PLAYERS, TABLES, seed=1)
    assert everyone_once(a)
    assert a == tm.random_seating(PLAYERS, TABLES, seed=1) != tm.random_seating(PLAYERS, TABLES, seed=2)


@pytest.mark.parametrize("players, words", [(PLAYERS[:14], "add 2 substitute"), (PLAYERS[:15] + ["P00"], "twice")])
def test_seatings_refuse_what_cannot_be_seated(players, words):
    with pytest.raises(tm.TournamentError, match=words):
        tm.random_seating(players, TABLES, seed=1)


def test_fixed_seating_names_who_is_missing():
    groups = [PLAYERS[i:i + 4] for i in range(0, 16, 4)]
    assert tm.fixed_seating(groups, TABLES, PLAYERS)["2"] == PLAYERS[4:8]
    groups[3] = ["P12", "P13", "P14", "X"]
    with pytest.raises(tm.TournamentError, match="missing: P15; not in the tournament: X"):
        tm.fixed_seating(groups, TABLES, PLAYERS)


def test_swiss_avoids_repeat_opponents_where_it_can():
    """16 players, 4 sessions: a schedule with no pair meeting twice exists (a resolvable design);
    Swiss-style seating by standing must avoid every repeat the first three sessions allow."""
    history = []
    ranked = list(PLAYERS)
    for session in range(3):
        before = tm.met(history)
        seating = tm.swiss_seating(ranked, TABLES, before) if history else tm.random_seating(PLAYERS, TABLES, 7)
        assert everyone_once(seating)
        assert tm.repeats(seating, before) == 0, f"session {session + 1} seats players who met"
        history.append(seating)
        ranked = ranked[1:] + ranked[:1]  # standings move


def test_swiss_is_never_stuck_when_repeats_cannot_be_avoided():
    players, tables = PLAYERS[:8], TABLES[:2]
    history = [{"1": players[:4], "2": players[4:]}, {"1": players[0:2] + players[4:6], "2": players[2:4] + players[6:]}]
    seating = tm.swiss_seating(players, tables, tm.met(history))  # 8 players: every table meets someone again
    assert sorted(p for g in seating.values() for p in g) == sorted(players)
    assert tm.repeats(seating, tm.met(history)) > 0


def test_the_clock():
    c = tm.Clock(started=T0, minutes=90, warning_minutes=10)
    assert c.at(T0 + timedelta(minutes=30))["state"] == "running"
    assert c.at(T0 + timedelta(minutes=85)) == {"state": "warning", "remaining_s": 300, "ends": c.ends.isoformat()}
    assert c.at(T0 + timedelta(minutes=91))["state"] == "over"
    assert tm.Clock(None, 90, 10).at(T0)["state"] == "waiting"


def test_the_hand_in_play_at_the_end_of_time_is_not_scored():
    """seed 004: at the time limit the players score what they had before the current hand."""
    ends = T0 + timedelta(minutes=90)
    hands = [(T0 + timedelta(minutes=20), {"A": 30, "B": -10, "C": -10, "D": -10}),
             (T0 + timedelta(minutes=89), {"A": -8, "B": 24, "C": -8, "D": -8}),
             (T0 + timedelta(minutes=95), {"A": -40, "B": -40, "C": 120, "D": -40})]  # finished after time
    assert tm.session_scores("ABCD", hands, ends) == {"A": 22, "B": 14, "C": -18, "D": -18}


def test_placement_points_share_ties():
    assert tm.placement_points({"A": 30, "B": 10, "C": 10, "D": -50}) == {"A": 4, "B": 1.5, "C": 1.5, "D": 0}


def test_ranking_with_penalties_and_the_ema_csv():
    sessions = [{"1": {"A": 40, "B": 10, "C": -20, "D": -30}},
                {"1": {"A": -30, "B": 50, "C": 0, "D": -20}}]
    standings = tm.rank("ABCD", sessions, {"B": 30})
    assert [(r.player, r.table_points, r.score - r.penalties) for r in standings] == \
        [("B", 6.0, 30), ("A", 4.0, 10), ("C", 3.0, -20), ("D", 1.0, -50)]
    text = tm.ema_csv(standings, ema_ids={"B": "04290012"})
    assert text.splitlines()[0] == "rank,name,ema_id,country,table_points,score,penalties,sessions"
    assert text.splitlines()[1] == "1,B,04290012,,6,30,30,2"
