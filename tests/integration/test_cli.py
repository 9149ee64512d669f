"""`companion break` and `companion replay` as a user runs them."""

import json
import subprocess
import sys

import pytest


def companion(*args, input=None):
    return subprocess.run([sys.executable, "-m", "companion", *args], input=input, capture_output=True, text=True,
                          timeout=60)


def test_break_json_answers_the_question_from_the_issue():
    # "East threw 3+4, North threw 5+6 — where do we break?" (the second throw is the breaker's)
    r = companion("break", "--variant", "classical", "--dice", "3,4", "--dice", "5,6", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["wall"] == "W" and out["stack"] == 18
    assert out["dead_wall"][0] == ["W", 17] and len(out["dead_wall"]) == 7
    assert {(t["layer"], t["draw_order"]) for t in out["loose"]} == {("top", 1), ("bottom", 2)}
    assert out["deal_start"] == ["S", 1]


def test_break_text_has_the_picture_of_the_square():
    r = companion("break", "--variant", "riichi", "--dice", "2,3")
    assert r.returncode == 0, r.stderr
    assert "East's wall" in r.stdout and "West's wall" in r.stdout
    assert "Split the wall after East's stack 5" in r.stdout


def test_break_text_counts_as_the_variant_counts():
    """German players count the break from the left end (seed 003): the stack to lift is said their way too."""
    r = companion("break", "--variant", "german", "--dice", "3,4", "--dice", "5,6")
    assert r.returncode == 0, r.stderr
    assert "count 18 stacks from the left end of West's wall" in r.stdout
    assert "Lift out West's stack 1 (the 18th from the left end): its two tiles are the loose tiles." in r.stdout
    classical = companion("break", "--variant", "classical", "--dice", "3,4", "--dice", "5,6").stdout
    assert "Lift out West's stack 18: its two tiles" in classical


@pytest.mark.parametrize("dice", [["0,4", "5,6"], ["3,7", "5,6"], ["3", "5,6"], ["3,4,5", "5,6"], ["three,four", "5,6"],
                                  ["3,4"]])
def test_break_refuses_invalid_dice_with_a_message(dice):
    args = ["break", "--variant", "classical"]
    for d in dice:
        args += ["--dice", d]
    r = companion(*args)
    assert r.returncode != 0
    assert r.stderr.startswith("Error: ") and "Traceback" not in r.stderr


def test_single_throw_variant_takes_one_dice():
    assert companion("break", "--variant", "riichi", "--dice", "3,4").returncode == 0
    assert companion("break", "--variant", "riichi", "--dice", "3,4", "--dice", "1,1").returncode != 0


def test_replay_from_stdin_json_final_state():
    r = companion("replay", "--variant", "classical", "--players", "A,B,C,D", "--json", "-",
                  input="win A\nwin C from B\ndraw\n")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["east"] == "B"
    assert s["seat_winds"] == {"A": "N", "B": "E", "C": "S", "D": "W"}
    assert s["prevalent"] == "E" and s["hand"] == 4 and s["game_over"] is False


def test_replay_mcr_game_ends_after_16_hands_with_scores(tmp_path):
    f = tmp_path / "results.txt"
    f.write_text("# a whole MCR game\n" + "win A 8\n" * 16)
    r = companion("replay", "--variant", "mcr", "--players", "A,B,C,D", "--json", str(f))
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["game_over"] is True and s["hand"] == 16
    assert s["scores"]["A"] == 16 * 48


def test_replay_text_prints_the_state_after_each_hand():
    r = companion("replay", "--variant", "classical", "--players", "A,B,C,D", "-", input="win B\ndraw\n")
    assert r.returncode == 0
    lines = [line for line in r.stdout.splitlines() if line.startswith("hand")]
    assert len(lines) == 2 and "B wins" in lines[0]


def test_replay_names_riichi_counter_honba_and_classical_repeats():
    # riichi: a draw raises honba though the dealer changes; classical: East's repeats (R11)
    r = companion("replay", "--variant", "riichi", "--players", "A,B,C,D", "-",
                  input="draw ready=A riichi=A\nwin A from B 3han30fu\ndraw ready=B\n")
    assert r.returncode == 0, r.stderr
    assert "East B (honba 3)" in r.stdout.splitlines()[-1]
    r = companion("replay", "--variant", "classical", "--players", "A,B,C,D", "-", input="win A\nwin A\n")
    assert "East A (repeat 2)" in r.stdout.splitlines()[-1]


def test_replay_bad_line_names_the_line():
    r = companion("replay", "--variant", "classical", "--players", "A,B,C,D", "-", input="win A\nwin Zed\n")
    assert r.returncode != 0
    assert "line 2" in r.stderr and "Zed" in r.stderr


@pytest.mark.parametrize("name", ["classical", "german", "mcr", "riichi", "hongkong"])
def test_variants_show_prints_a_file_that_loads_back_as_the_same_variant(tmp_path, name):
    from companion.rules.variant import load_variant

    r = companion("variants", "show", name)
    assert r.returncode == 0, r.stderr
    f = tmp_path / f"{name}.toml"
    f.write_text(r.stdout)
    assert load_variant(str(f)) == load_variant(name)


def test_variants_check_names_the_bad_field(tmp_path):
    f = tmp_path / "club.toml"
    f.write_text('extends = "classical"\nname = "club"\ntitle = "Club"\n[dead_wall]\nstacks = "six"\n')
    r = companion("variants", "check", str(f))
    assert r.returncode != 0 and "dead_wall.stacks" in r.stderr


def bytes_run(*args, input: bytes):
    return subprocess.run([sys.executable, "-m", "companion", *args], input=input, capture_output=True,
                          timeout=60)


def test_results_or_settings_that_are_not_utf8_are_a_clear_error_and_a_bom_is_no_word(tmp_path):
    r = bytes_run("replay", "--players", "A,B,C,D", "-", input=b"win A\n\xff\xfe win B\n")
    assert r.returncode == 1 and b"Traceback" not in r.stderr
    assert b"stdin: not UTF-8 text" in r.stderr
    r = bytes_run("replay", "--players", "A,B,C,D", "-", input=b"\xef\xbb\xbfwin A\n")  # saved by Notepad
    assert r.returncode == 0 and b"A wins" in r.stdout
    bad = tmp_path / "companion.toml"
    bad.write_bytes(b"\xff\xfe[server]\n")
    for args in (["config", "check", str(bad)], ["variants", "check", str(bad)],
                 ["break", "--config", str(bad), "--dice", "1,1", "--dice", "1,1"]):
        r = bytes_run(*args, input=b"")
        assert r.returncode == 1 and b"Traceback" not in r.stderr, args
        assert b"not UTF-8 text" in r.stderr, args


def test_variants_list_explains_a_broken_config_like_every_command(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("x = [")
    r = companion("variants", "list", "--config", str(cfg))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"Error: {cfg}: not valid TOML")
    assert "classical" in companion("variants", "list").stdout


@pytest.mark.parametrize("args, said", [
    (["camera", "--seconds", "-1"], "'--seconds': -1.0 is not in the range"),
    (["scenes", "--count", "3", "--levels", ","], "name at least one level"),
    (["web", "--interval", "-1"], "'--interval': -1.0 is not in the range"),
    (["teach", "--photos", "0"], "'--photos': 0 is not in the range"),
    (["recognition", "--data", "."], "has no images/ folder"),
])
def test_a_benchmark_refuses_a_bad_option_before_it_starts(args, said):
    r = companion("bench", *args)
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr
