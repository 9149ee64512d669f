"""`companion replay` reads the whole game's lines (redeal, penalty, adjust, end, seats, first-east)
and prints a line for every line it reads."""

import json

from click.testing import CliRunner

from companion.cli import main


def replay(tmp_path, *args, results=""):
    f = tmp_path / "results.txt"
    f.write_text(results, encoding="utf-8")
    return CliRunner().invoke(main, ["replay", "--data-dir", str(tmp_path / "data"), "--players", "A,B,C,D",
                                     *args, str(f)])


def test_every_line_read_gets_a_line(tmp_path):
    lines = "dice 3,4\ndice 5,6\nundo\ndice 2,2\ndice 1,1\nredeal wrong count\npenalty B 30 false mahjong\n" \
            "adjust C=-10 D=+10 paid twice\nwin A\nend time\n"
    r = replay(tmp_path, "--variant", "classical", results=lines)
    assert r.exit_code == 0, r.output
    out = r.stdout.splitlines()
    said = [line for line in out if not line.startswith("  ")]
    assert len(said) == len(lines.splitlines()) + 1  # and the standings at the end
    assert said[2] == "undone: event 3 (dice)"  # an undo said nothing before
    assert said[4].startswith("dice 1+1: no throw is due now")  # a third throw showed only in --json
    assert said[5] == "redeal of hand 1 (R25/R26): new throws are due (wrong count)"
    assert said[6] == "penalty: A +10, B -30, C +10, D +10 (false mahjong)"
    assert said[7] == "adjustment: C -10, D +10 (paid twice)"
    assert said[9] == "game ended by time before hand 2; that hand is not scored"
    assert said[10] == "standings: 1. D 20; 2. A 10; 3. C 0; 4. B -30"


def test_the_json_has_the_standings_and_the_end(tmp_path):
    r = replay(tmp_path, "--variant", "mcr", "--json", results="seats C=E A=S D=W B=N\nwin B from C 8\nend\n")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["players"] == ["C", "A", "D", "B"] and out["game_over"] and out["ended"]["how"] == "agreement"
    assert out["standings"][0] == {"player": "B", "score": 32, "rank": 1}


def test_throws_for_the_seats_are_said_as_such(tmp_path):
    # seed 003: "höchste Augenzahl mit beiden Würfeln … zuerst als Ostwind"
    r = replay(tmp_path, "--variant", "german", results="dice 1,1\ndice 6,6\ndice 2,2\ndice 3,3\ndice 3,4\n")
    assert r.exit_code == 0, r.output
    assert "dice 6+6: B throws 12 for the seats" in r.stdout
    assert "dice 3+3: D throws 6 for the seats; first East: B" in r.stdout
    assert "dice 3+4: throw 1 of 2" in r.stdout


def test_first_east_and_bad_lines(tmp_path):
    r = replay(tmp_path, "--variant", "classical", "--json", results="first-east C\n")
    assert json.loads(r.stdout)["east"] == "C"
    for bad, says in [("adjust A=-10 B=+5", "sum to zero"), ("penalty A", "needs the player and the points"),
                      ("seats A=E B=S C=W", "all four"), ("adjust A=x", "whole number")]:
        r = replay(tmp_path, "--variant", "classical", results=bad + "\n")
        assert r.exit_code != 0 and says in r.output, (bad, r.output)
