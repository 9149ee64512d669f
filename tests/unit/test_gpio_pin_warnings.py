"""GPIO2/3 (I²C, fixed pull-ups) and GPIO14/15 (the serial console) are warned about, not refused."""

from click.testing import CliRunner

from companion.cli import main
from companion.config import GpioSettings, load_settings


def test_the_default_pins_give_no_warning():
    assert GpioSettings().warnings() == []


def test_i2c_and_console_pins_are_warnings_that_name_the_pin_and_why():
    gpio = load_settings(env={}, overrides={"gpio": {"seat_buttons": [2, 3, 14, 15]}}).gpio  # no error
    found = gpio.warnings()
    assert len(found) == 4
    assert found[0].startswith("seat_buttons: GPIO2 is I²C SDA, with a fixed pull-up on the Pi")
    assert found[1].startswith("seat_buttons: GPIO3 is I²C SCL")
    assert found[2].startswith("seat_buttons: GPIO14 is UART TX, the serial console")
    assert found[3].startswith("seat_buttons: GPIO15 is UART RX, the serial console")
    assert GpioSettings(undo_button=14, buzzer="none").warnings()[0].startswith("undo_button: GPIO14")


def test_config_check_shows_them_and_still_passes(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[gpio]\nwind_lamps = [24, 25, 5, 2]\n")
    r = CliRunner().invoke(main, ["config", "check", str(cfg)], env={"COMPANION_CONFIG": None})
    assert r.exit_code == 0, r.output
    assert "note: gpio.wind_lamps: GPIO2 is I²C SDA" in r.output and f"{cfg}: OK" in r.output


def test_config_check_is_quiet_about_the_default_pins(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("")
    r = CliRunner().invoke(main, ["config", "check", str(cfg)], env={"COMPANION_CONFIG": None})
    assert r.exit_code == 0 and "gpio." not in r.output


def test_the_start_up_log_says_them_too(tmp_path, caplog):
    import logging

    from companion.services import build_services

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "camera": {"source": "off"},
                                                "gpio": {"wind_lamps": [24, 25, 5, 3]}})
    with caplog.at_level(logging.WARNING, logger="companion.hardware.gpio.panel"):
        services = build_services(settings)
    services.stop()
    assert any(r.getMessage().startswith("gpio.wind_lamps: GPIO3 is I²C SCL") for r in caplog.records)
