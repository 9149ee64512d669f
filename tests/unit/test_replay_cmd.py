"""`companion replay`: the players it plays with, what it says about results the scoring leaves out,
the bound on values and how it shows a riichi hand's han and fu."""

import json

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.game.events import SCORE_LIMIT


def replay(tmp_path, *args, results=""):
    """Run `companion replay ARGS FILE` on `results` saved in FILE (tmp_path/results.txt), with its own data dir."""
    f = tmp_path / "results.txt"
    f.write_text(results, encoding="utf-8")
    return CliRunner().invoke(main, ["replay", "--data-dir", str(tmp_path / "data"), *args, str(f)])


def test_players_default_to_the_configured_ones(tmp_path):
    config = tmp_path / "companion.toml"
    config.write_text('[game]\nplayers = ["Ann", "Bob", "Cy", "Di"]\n')
    r = replay(tmp_path, "--config", str(config), "--variant", "classical", "--json", results="win Cy from Bob 24\n")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["players"] == ["Ann", "Bob", "Cy", "Di"] and out["history"][0]["winner"] == "Cy"


def test_players_default_to_east_south_west_north(tmp_path):
    config = tmp_path / "companion.toml"
    config.write_text("")
    r = replay(tmp_path, "--config", str(config), "--variant", "classical", "--json", results="win South\n")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["players"] == ["East", "South", "West", "North"] and out["history"][0]["winner"] == "South"


@pytest.mark.parametrize("players, says", [("A,B,C", "a table has 4 players, not 3"),
                                           ("A,B,C,a", "player names must differ")])
def test_players_given_are_still_four_different_names(tmp_path, players, says):
    r = replay(tmp_path, "--variant", "classical", "--players", players, results="win A\n")
    assert r.exit_code == 1 and f"--players: {says}" in r.stderr


def test_configured_players_that_are_not_four_names_are_a_clear_error(tmp_path):
    config = tmp_path / "companion.toml"
    config.write_text('[game]\nplayers = ["Ann", "Bob", "Cy"]\n')
    r = replay(tmp_path, "--config", str(config), "--variant", "classical", results="win Ann\n")
    assert r.exit_code == 1 and "game.players: a table has 4 players, not 3" in r.stderr


def test_hand_scores_without_the_winners_value_are_kept_with_a_note(tmp_path):
    r = replay(tmp_path, "--variant", "classical", "--players", "A,B,C,D", "--json",
               results="# a game\ndraw\nwin A B=8 C=4\n")
    assert r.exit_code == 0, r.output
    note = "line 3: hand scores need the winner's hand value to be settled; no scores moved"
    assert f"{tmp_path / 'results.txt'}, {note}" in r.stderr
    out = json.loads(r.stdout)
    assert out["history"][-1]["winner"] == "A" and set(out["scores"].values()) == {0}
    # with the winner's value the losers settle among themselves, and nothing is said
    r = replay(tmp_path, "--variant", "classical", "--players", "A,B,C,D", results="win A 32 B=8 C=4\n")
    assert r.exit_code == 0 and r.stderr == ""


def test_riichi_and_ready_outside_riichi_scoring_are_kept_with_a_note(tmp_path):
    r = replay(tmp_path, "--variant", "classical", "--players", "A,B,C,D", "--json",
               results="win A 8\ndraw\nwin B riichi=C\ndraw\ndraw ready=A,C riichi=A\n")
    assert r.exit_code == 0, r.output
    notes = [n.removeprefix(f"{tmp_path / 'results.txt'}, ") for n in r.stderr.splitlines()]
    assert notes == ["line 3: riichi= counts only in riichi scoring; ignored here",
                     "line 5: riichi= and ready= count only in riichi scoring; ignored here"]
    assert len(json.loads(r.stdout)["history"]) == 5  # all kept, as the players said
    # in riichi they count, and nothing is said
    r = replay(tmp_path, "--variant", "riichi", "--players", "A,B,C,D", results="draw ready=A,C riichi=A\n")
    assert r.exit_code == 0 and r.stderr == ""


@pytest.mark.parametrize("line, what", [("win A 99999999999999999999", "hand value 99999999999999999999"),
                                        (f"win A -{SCORE_LIMIT + 1}", f"hand value -{SCORE_LIMIT + 1}"),
                                        (f"win A 32 B={SCORE_LIMIT + 1}", f"B's hand score {SCORE_LIMIT + 1}"),
                                        (f"win A 3/{SCORE_LIMIT + 1}", f"fu {SCORE_LIMIT + 1}")])
def test_values_beyond_the_web_apis_bound_are_refused_naming_the_line(tmp_path, line, what):
    r = replay(tmp_path, "--variant", "classical", "--players", "A,B,C,D", results=f"draw\n{line}\n")
    assert r.exit_code == 1
    bound = f"it must be between {-SCORE_LIMIT} and {SCORE_LIMIT}"
    assert f"results.txt, line 2: {what} is out of range: {bound}" in r.stderr
    r = replay(tmp_path, "--variant", "classical", "--players", "A,B,C,D", results=f"win A {SCORE_LIMIT}\n")
    assert r.exit_code == 0, r.output


def test_a_riichi_hand_is_shown_in_han_and_fu(tmp_path):
    r = replay(tmp_path, "--variant", "riichi", "--players", "A,B,C,D",
               results="win B from A 3han30fu\nwin C mangan\n")
    assert r.exit_code == 0, r.output
    assert "B wins from A 3 han 30 fu\n" in r.stdout and "C wins (self-drawn) 5 han\n" in r.stdout
    assert "value" not in r.stdout
    r = replay(tmp_path, "--variant", "classical", "--players", "A,B,C,D", results="win C from B 24\n")
    assert "C wins from B value 24\n" in r.stdout


HOUSE = """extends = "classical"
name = "club"
title = "Club"

[rotation]
keep_on_draw = "if_dealer_ready"

[settlement]
method = "classical"
losers_settle = false
"""


@pytest.mark.parametrize("variant, line, note", [
    ("mcr", "win A 8 B=8", "losers' hand scores count only in classical scoring; ignored here"),
    ("classical", "win A 3/30", "fu counts only in riichi scoring; ignored here"),
    ("house", "win A 32 B=8", "these rules do not settle the losers' hand scores among themselves; ignored here"),
    # ready= decides who keeps the deal here, so only riichi= goes unused
    ("house", "draw ready=A riichi=A", "riichi= counts only in riichi scoring; ignored here"),
])
def test_what_the_scoring_leaves_out_is_noted_whatever_the_variant(tmp_path, variant, line, note):
    if variant == "house":
        variant = str(tmp_path / "club.toml")
        (tmp_path / "club.toml").write_text(HOUSE)
    r = replay(tmp_path, "--variant", variant, "--players", "A,B,C,D", results=f"{line}\n")
    assert r.exit_code == 0, r.output
    assert r.stderr == f"{tmp_path / 'results.txt'}, line 1: {note}\n"


def test_the_bound_holds_for_the_others_who_won_on_the_same_discard(tmp_path):
    (tmp_path / "club.toml").write_text('extends = "classical"\nname = "club"\ntitle = "Club"\n'
                                        "[claims]\nseveral_winners = true\n")
    args = ["--variant", str(tmp_path / "club.toml"), "--players", "A,B,C,D"]
    r = replay(tmp_path, *args, results=f"win C from B 24 also=D:{SCORE_LIMIT + 1}\n")
    assert r.exit_code == 1 and f"line 1: D's hand value {SCORE_LIMIT + 1} is out of range" in r.stderr
    r = replay(tmp_path, *args, results="win C from B 24 also=D:16\n")
    assert r.exit_code == 0, r.output


def test_several_winners_on_one_discard_are_replayed_and_shown(tmp_path):
    """Seed 002 under a club's house rules: `also=` names the others who won on the discard."""
    house = tmp_path / "general.toml"
    house.write_text('extends = "classical"\nname = "general"\ntitle = "General"\n[claims]\nseveral_winners = true\n')
    r = replay(tmp_path, "--variant", str(house), "--players", "Ann,Bob,Cat,Dan",
               results="win Bob from Ann 16 also=Cat:8\n")
    assert r.exit_code == 0, r.output
    assert "Bob, Cat win from Ann value 16; Cat value 8" in r.stdout
    assert "scores Ann -48 Bob +48 Cat +24 Dan -24" in r.stdout
    r = replay(tmp_path, "--variant", "classical", "--players", "Ann,Bob,Cat,Dan",
               results="win Bob from Ann 16 also=Cat:8\n")
    assert r.exit_code == 1 and "line 1: only one player can win on a discard under these rules" in r.output


def test_riichi_scores_are_points_held_without_a_sign(tmp_path):
    r = replay(tmp_path, "--variant", "riichi", "--players", "A,B,C,D", results="win B from A 3han30fu\n")
    assert r.exit_code == 0, r.output
    assert "scores A 21100 B 28900 C 25000 D 25000" in r.stdout
