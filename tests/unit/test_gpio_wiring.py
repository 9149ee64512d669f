"""The wiring diagram and table come from the pin map: the committed docs match the default pins."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.config import GpioSettings, load_settings
from companion.errors import ConfigError
from companion.hardware.gpio import wiring

DOCS = Path(__file__).resolve().parents[2] / "hardware_docs"


def test_committed_wiring_docs_match_the_default_pins():
    assert (DOCS / "wiring.svg").read_text() == wiring.svg(GpioSettings())
    assert (DOCS / "wiring-table.md").read_text() == wiring.table(GpioSettings())


def test_every_configured_pin_is_wired_to_its_header_position():
    rows = {w.bcm: w for w in wiring.wires(GpioSettings())}
    assert len(rows) == 14
    assert (rows[17].board, rows[17].part) == (11, "lamp")      # GPIO17 is header pin 11
    assert (rows[21].board, rows[21].part) == (40, "button")
    assert rows[19].part == "buzzer"


def test_a_custom_pin_map_is_drawn_as_configured(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gpio]\nbuzzer = "none"\nundo_button = 4\nwind_lamps = []\n')
    r = CliRunner().invoke(main, ["wiring", "--config", str(cfg), "--table"])
    assert r.exit_code == 0, r.output
    assert "| 7 | GPIO4 | undo button | button -> GND |" in r.output
    assert "buzzer" not in r.output and "prevalent wind" not in r.output
    svg = CliRunner().invoke(main, ["wiring", "--config", str(cfg)]).output
    root = ET.fromstring(svg)  # well-formed SVG
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "undo button" in svg


def test_the_pi_docs_list_the_default_pins():
    readme = (DOCS.parent / "docs" / "raspberry-pi.md").read_text()
    d = GpioSettings()
    for pins in (d.seat_lamps, d.wind_lamps, d.seat_buttons):
        assert " " + ", ".join(map(str, pins)) + " |" in readme
    assert f"| {d.undo_button}, {d.buzzer} |" in readme


def test_a_pin_listed_twice_in_one_list_is_said_once_as_such():
    with pytest.raises(ConfigError) as e:
        load_settings(env={}, overrides={"gpio": {"seat_lamps": [17, 17, 22, 23]}})
    assert "GPIO17 is used twice in seat_lamps" in str(e.value) and "by seat_lamps and by seat_lamps" not in str(e.value)
