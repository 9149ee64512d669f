"""The [dice] settings: defaults that need no file, and bad values named clearly."""

import pytest

from companion.config import load_settings
from companion.errors import ConfigError


def test_the_default_is_the_virtual_box():
    dice = load_settings(env={}).dice
    assert dice.url == "sim" and dice.ping_interval == 2.0 and dice.reconnect_max == 5.0


def test_a_serial_url_from_the_config_file(tmp_path):
    cfg = tmp_path / "companion.toml"
    cfg.write_text('[dice]\nurl = "socket://dicebox.local:7000"\nping_interval = 1.5\n')
    dice = load_settings(cfg, env={}).dice
    assert (dice.url, dice.ping_interval) == ("socket://dicebox.local:7000", 1.5)


@pytest.mark.parametrize("dice, message", [
    ({"url": " "}, "url must be 'sim' or a serial port URL"),
    ({"ping_interval": 0}, "ping_interval must be"),
    ({"sim_roll_ms": -1}, "sim_roll_ms must be"),
    ({"baud": 9600}, "baud"),
])
def test_bad_dice_settings_are_refused_naming_the_problem(dice, message):
    with pytest.raises(ConfigError, match=message) as e:
        load_settings(env={}, overrides={"dice": dice})
    assert "dice" in str(e.value)
