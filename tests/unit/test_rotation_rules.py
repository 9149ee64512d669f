"""Who is East, the prevalent wind and the end of the game: R11–R14 (seed 000), seed 003, seed 004, riichi."""

import pytest

from companion.game.events import HandDrawn, HandWon
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

A, B, C, D = 0, 1, 2, 3


def table(variant: str) -> Table:
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant(variant), ["A", "B", "C", "D"])
    return t


def win(t, player, discarder=None, value=None, **kw):
    t.record(HandWon(winner=player, discarder=discarder, value=value, **kw))
    return t.state


def draw(t, **kw):
    t.record(HandDrawn(**kw))
    return t.state


def test_r11_east_keeps_the_title_while_he_wins():
    # R11: "East keeps the title while he wins hands"
    t = table("classical")
    for _ in range(3):
        s = win(t, A)
    assert s.east == "A" and s.hand == 4


def test_r11_east_keeps_the_title_on_a_draw():
    # R11: "and also when a hand ends with no mahjong (a draw)"
    t = table("classical")
    s = draw(t)
    assert s.east == "A"


def test_r11_when_another_wins_the_title_passes_to_south_and_every_wind_moves():
    # R11: "When any of the other three wins, the title passes to the player on East's right (South): old South
    # becomes East, West becomes South, North becomes West, East becomes North."
    t = table("classical")
    s = win(t, C, discarder=B)
    assert s.east == "B"
    assert {p: s.seat_wind(i) for i, p in enumerate(s.players)} == {"B": "E", "C": "S", "D": "W", "A": "N"}


def test_r12_a_round_ends_when_the_player_who_began_as_north_loses_the_title():
    # R12: "A round ends when every player has been East and the fourth player (who began as North) loses the
    # title. A round therefore has at least four hands, plus drawn hands and hands won by East."
    t = table("classical")
    win(t, B)  # A loses the title
    draw(t)  # B keeps on a draw (R11)
    win(t, B)  # B keeps on a win
    win(t, D)  # B → C
    s = win(t, A)  # C → D
    assert s.prevalent == "E" and s.east == "D"
    assert s.hand == 6  # more than four hands so far and still the East round
    s = win(t, A)  # D, who began as North, loses the title
    assert s.prevalent == "S" and s.east == "A"
    assert s.to_json()["round"] == 2


def test_r13_four_rounds_with_prevalent_wind_east_south_west_north():
    # R13: "A game has four rounds, with prevalent wind East, South, West, North in turn."
    t = table("classical")
    seen = []
    for _ in range(16):
        seen.append(t.state.prevalent)
        win(t, (t.state.dealer + 1) % 4)  # someone other than East wins every hand
    assert seen == ["E"] * 4 + ["S"] * 4 + ["W"] * 4 + ["N"] * 4


def test_r14_the_game_ends_when_in_the_north_round_the_player_who_began_as_north_loses_the_title():
    # R14: "The game ends when, in the fourth (North) round, the player who began as North loses the East title."
    t = table("classical")
    for _ in range(15):
        win(t, (t.state.dealer + 1) % 4)
    s = t.state
    assert not s.game_over and s.prevalent == "N" and s.east == "D"
    s = draw(t)  # R11: D keeps the title on a draw: the game goes on
    assert not s.game_over
    s = win(t, A)
    assert s.game_over and s.to_json()["game_over"] is True


def test_a_result_after_the_game_is_over_is_refused_and_not_recorded():
    t = table("classical")
    for _ in range(16):
        win(t, (t.state.dealer + 1) % 4)
    before = len(t.records())
    with pytest.raises(Exception, match="game is over"):
        win(t, A)
    assert len(t.records()) == before


def test_seed003_east_moves_on_after_every_game_and_pays_double():
    # Seed 003: "Beim nächsten Spiel wandert der Ostwind ... weiter" (East moves on after every game, also when
    # East wins); "er bekommt und zahlt alles doppelt" (East receives and pays double).
    t = table("german")
    s = win(t, A, value=10)
    assert s.east == "B"
    assert s.scores[A] == 3 * 20  # East receives double from each
    s = draw(t)
    assert s.east == "C"


def test_seed003_a_full_round_is_four_games():
    # Seed 003: "Eine volle Runde ist nach vier Spielen geschafft."
    t = table("german")
    for _ in range(4):
        assert t.state.prevalent == "E"
        draw(t)
    assert t.state.prevalent == "S"


def test_seed004_seats_rotate_after_every_hand_even_a_washout():
    # Seed 004: "After every hand, even a washout, and regardless of who won, the seating positions rotate one
    # step counterclockwise: the East player now becomes North, the South player becomes East, and so on."
    t = table("mcr")
    s = win(t, A, value=8)
    assert s.east == "B" and s.seat_wind(A) == "N"
    s = draw(t)
    assert s.east == "C"


def test_seed004_sixteen_hands_in_a_game():
    # Seed 004: "during the first round (the first four hands), the Prevailing Wind will be East; then ... South;
    # then West, and finally North, after which sixteen hands (= four rounds) have been played and the game is over"
    t = table("mcr")
    winds = []
    for _ in range(16):
        winds.append(t.state.prevalent)
        draw(t)
    assert winds == ["E"] * 4 + ["S"] * 4 + ["W"] * 4 + ["N"] * 4
    assert t.state.game_over


def test_riichi_renchan_honba_and_two_rounds():
    # RULES.md riichi: "Dealer repeats on a win, and at an exhaustive draw when tenpai. Honba +1 on a dealer repeat
    # or a draw, reset when a non-dealer wins. A game is the East and South rounds."
    t = table("riichi")
    s = win(t, A, discarder=B, value=1, fu=30)
    assert s.east == "A" and s.rotation.counter == 1
    s = draw(t, ready=[A])
    assert s.east == "A" and s.rotation.counter == 2
    s = draw(t, ready=[B])  # dealer not tenpai: the deal passes, but the honba still grows
    assert s.east == "B" and s.rotation.counter == 3
    s = win(t, C, discarder=D, value=2, fu=30)
    assert s.east == "C" and s.rotation.counter == 0
    for _ in range(6):
        win(t, (t.state.dealer + 1) % 4, value=1, fu=30)
    assert t.state.game_over


def test_french_seed002_two_round_game_is_a_house_rule(tmp_path):
    # Seed 002: "Une partie complète consiste en deux rounds : le round Est et le round Sud."
    f = tmp_path / "french.toml"
    f.write_text('extends = "classical"\nname = "french"\ntitle = "French"\n[rounds]\nwinds = ["E", "S"]\n')
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant(str(f)), ["A", "B", "C", "D"])
    for _ in range(8):
        win(t, (t.state.dealer + 1) % 4)
    assert t.state.game_over
