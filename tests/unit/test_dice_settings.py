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


def test_sim_is_the_virtual_box_in_any_case(tmp_path):
    """As camera.source: "Sim" must not become a serial port named Sim."""
    cfg = tmp_path / "companion.toml"
    cfg.write_text('[dice]\nurl = " Sim "\n')
    assert load_settings(cfg, env={}).dice.url == "sim"
    assert load_settings(env={}, overrides={"dice": {"url": "SIM"}}).dice.url == "sim"


@pytest.mark.parametrize("dice, message", [
    ({"url": " "}, "url must be 'sim' or a serial port URL"),
    ({"ping_interval": 0}, "ping_interval must be"),
    ({"sim_roll_ms": -1}, "sim_roll_ms must be"),
    ({"baud": 9600}, "baud"),
    # ports that can never open are said at once, not deep inside pyserial at the first try
    ({"url": "ttyACM0"}, r"give the port's full path \(e\.g\. /dev/ttyACM0"),
    ({"url": "foo://bar"}, "foo:// is not a serial URL pyserial knows"),
    ({"url": "socket://localhost"}, "a network port needs its host and port"),
])
def test_bad_dice_settings_are_refused_naming_the_problem(dice, message):
    with pytest.raises(ConfigError, match=message) as e:
        load_settings(env={}, overrides={"dice": dice})
    assert "dice" in str(e.value)


def test_the_virtual_box_leaves_no_folder_behind_even_when_never_stopped():
    import gc
    import os
    from pathlib import Path

    from companion.hardware.dice.builder import SimulatedDiceBox
    from companion.hardware.dice.sim import VirtualDiceBox

    if not hasattr(os, "openpty"):
        pytest.skip("the pty folder exists only where the OS has ptys")
    stopped = SimulatedDiceBox(VirtualDiceBox())
    stopped.start()
    folder = Path(stopped.url).parent
    assert folder.is_dir()
    stopped.stop()
    assert not folder.exists()
    dropped = SimulatedDiceBox(VirtualDiceBox())  # built, never started or stopped (a test's app)
    folder = Path(dropped.url).parent
    assert folder.is_dir()
    del dropped
    gc.collect()
    assert not folder.exists()


@pytest.mark.parametrize("url", ["/dev/ttyACM0", "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E6614-if00", "loop://",
                                 "socket://192.168.1.20:4000", "rfc2217://box.local:2217", "spy:///dev/ttyACM0"])
def test_ports_and_pyserial_urls_are_taken(url):
    assert load_settings(env={}, overrides={"dice": {"url": url}}).dice.url == url
