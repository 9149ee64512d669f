"""companion config check / show: every problem in a file named and explained; the settings in effect."""

import os
import subprocess
import sys
import tomllib

import msgspec

from companion.config import Settings

BAD = """\
colour = "red"
[server]
port = "eighty"
[camera]
source = "usb"
fps = -3
rotation = 45
shutter = 1
[gpio]
seat_lamps = [17, 27]
buzzer = 17
backend = "pi"
[game]
variant = "nope"
"""


def companion(*args, env=None):
    full = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60,
                          env={**full, **(env or {})})


def test_check_names_every_problem(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(BAD)
    r = companion("config", "check", str(cfg))
    assert r.returncode == 1
    lines = [line.strip() for line in r.stderr.splitlines()]
    assert lines[0] == f"{cfg}: 10 problems:"
    for expected in [
        "- colour: unknown key (known at the top: data_dir, server, game, dice, camera, gpio, vision, club)",
        "- server.port: Expected `int`, got `str`",
        "- camera.rotation: Invalid enum value 45 (one of: 0, 90, 180, 270)",
        "- camera.shutter: unknown key (known here: source, width, height, fps, exposure_lock, rotation, "
        "view_fps, view_width, max_viewers, spectator_viewers)",
        "- gpio.backend: Invalid enum value 'pi' (one of: 'mock', 'real')",
        "- camera: fps must be above 0 and at most 120",
        "- gpio: seat_lamps needs 4 pins (East, South, West, North) or [] for none",
        "- gpio: GPIO17 is used twice: by seat_lamps and by buzzer",
    ]:
        assert expected in lines, (expected, lines)
    assert any(line.startswith("- camera: camera source 'usb' is not one of") for line in lines)
    assert any(line.startswith("- game.variant: unknown variant 'nope'") for line in lines)


def test_check_passes_a_good_file_with_notes_on_missing_devices(tmp_path):
    cfg = tmp_path / "good.toml"
    cfg.write_text(f'[camera]\nsource = "replay:{tmp_path}/gone"\n[dice]\nurl = "/dev/ttyACM7"\n')
    r = companion("config", "check", str(cfg))
    assert r.returncode == 0, r.stderr
    assert f"{cfg}: OK" in r.stdout
    assert "note: camera.source:" in r.stdout and "note: dice.url: /dev/ttyACM7 is not there now" in r.stdout


def test_check_reports_toml_syntax_and_the_environment(tmp_path):
    cfg = tmp_path / "broken.toml"
    cfg.write_text("[camera\nsource = 1\n")
    r = companion("config", "check", str(cfg))
    assert r.returncode != 0 and "not valid TOML" in r.stderr and "line 1" in r.stderr
    ok = tmp_path / "ok.toml"
    ok.write_text("")
    r = companion("config", "check", str(ok), env={"COMPANION_PORT": "http"})
    assert r.returncode == 1 and "COMPANION_PORT must be a number" in r.stderr
    r = companion("config", "check", str(ok), env={"COMPANION_PORT": "70000"})  # a number, out of range
    assert r.returncode == 1 and "with COMPANION_PORT: server: port must be between 1 and 65535" in r.stderr


def test_check_without_a_file_checks_the_defaults():
    r = companion("config", "check", env={"XDG_CONFIG_HOME": "/nonexistent"})
    assert r.returncode == 0 and "defaults (no config file): OK" in r.stdout


def test_show_defaults_is_a_valid_complete_config():
    r = companion("config", "show", "--defaults")
    assert r.returncode == 0
    data = tomllib.loads(r.stdout)
    assert msgspec.convert(data, Settings) == Settings()
    assert data["gpio"]["seat_lamps"] == [17, 27, 22, 23] and data["camera"]["source"] == "sim"


def test_show_gives_the_file_over_the_defaults(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[camera]\nrotation = 180\n')
    r = companion("config", "show", str(cfg), env={"COMPANION_DATA_DIR": str(tmp_path)})
    data = tomllib.loads(r.stdout)
    assert data["camera"]["rotation"] == 180 and data["camera"]["fps"] == 15.0 and data["data_dir"] == str(tmp_path)
