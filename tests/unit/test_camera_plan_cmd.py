"""companion camera-plan: exit status, --resolution, the verdict in words, defaults from the configuration."""

import json

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.hardware.camera.geometry import SENSORS, describe, plan


def camera_plan(*args, data):
    return CliRunner().invoke(main, ["camera-plan", "--data-dir", str(data), *map(str, args)])


@pytest.mark.parametrize("args, status", [
    (["--height-cm", "125"], 0),
    (["--height-cm", "125", "--json"], 0),
    (["--height-cm", "110", "--table-cm", "90"], 1),  # the table does not fit
    (["--height-cm", "110", "--table-cm", "90", "--json"], 1),
    (["--height-cm", "160"], 1),  # too high for the tiles
    (["--height-cm", "125", "--sensor", "gopro"], 2),
    (["--height-cm", "125", "--sensor", "imx708", "--focal-mm", "8"], 2),
    (["--height-cm", "nan"], 2),
    (["--height-cm", "125", "--sensor", "imx296", "--resolution", "4000x3000"], 2),
    (["--height-cm", "125", "--table-cm", "big"], 2),
    (["--height-cm", "125", "--svg", "MISSING/side.svg"], 2),  # a folder that does not exist
    (["--table-cm", "80"], 2),  # --height-cm is required
])
def test_exit_status_is_0_works_1_does_not_2_a_mistake(args, status, tmp_path):
    r = camera_plan(*[a.replace("MISSING", str(tmp_path / "gone")) for a in args], data=tmp_path)
    assert r.exit_code == status, r.output


def test_the_help_says_what_the_exit_status_means(tmp_path):
    r = camera_plan("--help", data=tmp_path)
    assert "Exit status: 0 the plan works, 1 it does not" in " ".join(r.output.split())


@pytest.mark.parametrize("text", ["1920x1080", "1920X1080", "1920×1080", "1920 x 1080"])
def test_resolution_is_width_by_height(text, tmp_path):
    r = camera_plan("--height-cm", "125", "--resolution", text, "--json", data=tmp_path)
    assert json.loads(r.output)["frame"] == [1920, 1080]


@pytest.mark.parametrize("text", ["1280", "1280x720x3", "1280.5x720", "wide"])
def test_resolution_without_both_sides_is_refused_showing_the_form(text, tmp_path):
    r = camera_plan("--height-cm", "125", "--resolution", text, data=tmp_path)
    assert r.exit_code == 2
    assert f"Invalid value for '--resolution': give WIDTHxHEIGHT, e.g. 1280x720, not {text!r}" in r.output


@pytest.mark.parametrize("args, verdict", [
    (["--height-cm", "125"], "this works: from 125 cm the camera sees the whole table and enough detail to read "
                             "the tiles and dice"),
    (["--height-cm", "110", "--table-cm", "90"], "this does not work yet: at 110 cm the camera does not see the "
                                                 "whole table; raise the camera to between 136 and 141 cm, or use "
                                                 "a wider lens"),
    (["--height-cm", "118"], "this does not work yet: at 118 cm the table only just fits in the picture; raise the "
                             "camera to between 120 and 141 cm, or use a wider lens"),
    (["--height-cm", "160"], "this does not work yet: at 160 cm the camera is too high to make out the tiles and "
                             "dice; lower it to between 120 and 141 cm, or analyse a larger frame "
                             "(camera.width/height)"),
    (["--height-cm", "150", "--table-cm", "120"], "this camera cannot do it at 1280x720: the table needs it at 181 "
                                                  "cm or higher, the tiles and dice at 141 cm or lower; analyse a "
                                                  "larger frame (camera.width/height)"),
])
def test_the_verdict_says_in_a_sentence_what_works_and_what_to_change(args, verdict, tmp_path):
    r = camera_plan(*args, data=tmp_path)
    assert f"  verdict: {verdict}\n" in r.output


def test_every_figure_is_still_printed(tmp_path):
    r = camera_plan("--height-cm", "110", "--table-cm", "90", data=tmp_path)
    figures = describe(plan(SENSORS["imx708"], (90, 90), 110, (1280, 720), (29, 22), 18)).splitlines()
    assert r.output.splitlines()[:-2] == figures[:-1]  # all but describe()'s "verdict: NOT enough: see above"


CONFIG = """
[vision]
table_size_cm = [90, 75]
tile_cm = [2.6, 3.5, 2.0]
die_cm = 2.2

[camera]
width = 1920
height = 1080
"""


def test_sizes_not_given_come_from_the_configuration(tmp_path):
    (tmp_path / "companion.toml").write_text(CONFIG)
    r = camera_plan("--height-cm", "140", "--json", "--config", tmp_path / "companion.toml", data=tmp_path)
    got = json.loads(r.output)
    px = got["px_per_cm"]
    assert got["table_cm"] == [90, 75] and got["frame"] == [1920, 1080]
    assert got["stack_px"] == pytest.approx(2.6 * px, abs=0.01) and got["die_px"] == pytest.approx(2.2 * px, abs=0.01)
    assert got["tile_face_px"] == pytest.approx([2.6 * px, 3.5 * px], abs=0.01)


def test_options_given_win_over_the_configuration(tmp_path):
    (tmp_path / "companion.toml").write_text(CONFIG)
    r = camera_plan("--height-cm", "125", "--json", "--config", tmp_path / "companion.toml", "--table-cm", "80",
                    "--resolution", "1280x720", "--tile-mm", "30x22", "--die-mm", "16", data=tmp_path)
    expected = plan(SENSORS["imx708"], (80, 80), 125, (1280, 720), (30, 22), 16).to_json()
    assert json.loads(r.output) == json.loads(json.dumps(expected))


def test_a_bad_configuration_is_a_mistake_said_in_words(tmp_path):
    (tmp_path / "companion.toml").write_text("[vision]\ntable_size_cm = [10, 10]\n")
    r = camera_plan("--height-cm", "125", "--config", tmp_path / "companion.toml", data=tmp_path)
    assert r.exit_code == 2 and "table_size_cm must be [width, depth], each at least 30" in r.output
