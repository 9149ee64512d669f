"""Which configuration file the commands read when none is named."""

from companion import config
from companion.config import load_settings


def _file(path, port):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[server]\nport = {port}\n")
    return path


def test_the_appliance_file_is_read_when_the_user_has_none(tmp_path, monkeypatch):
    user, system = tmp_path / "user" / "companion.toml", _file(tmp_path / "etc" / "companion.toml", 8111)
    monkeypatch.setattr(config, "default_config_file", lambda: user)
    monkeypatch.setattr(config, "SYSTEM_CONFIG_FILE", system)
    assert load_settings(env={}).server.port == 8111
    _file(user, 8222)  # the user's own file comes first
    assert load_settings(env={}).server.port == 8222
    named = _file(tmp_path / "named.toml", 8333)
    assert load_settings(env={"COMPANION_CONFIG": str(named)}).server.port == 8333


def test_the_shipped_appliance_file_names_the_service_data_dir():
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[2] / "deploy" / "companion.toml"
    settings = load_settings(shipped, env={})
    assert settings.data_dir == "/var/lib/companion"


def test_config_check_reads_the_file_in_use_and_only_that_one(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from companion.cli.config_cmd import config as config_group

    user = _file(tmp_path / "user" / "companion.toml", 8222)
    system = tmp_path / "etc" / "companion.toml"
    system.parent.mkdir()
    system.write_text("[server]\nprot = 8080\n")  # an unknown key: a problem `check` must report
    monkeypatch.setattr(config, "default_config_file", lambda: tmp_path / "none.toml")
    monkeypatch.setattr(config, "SYSTEM_CONFIG_FILE", system)
    monkeypatch.delenv("COMPANION_CONFIG")
    r = CliRunner().invoke(config_group, ["check"])
    assert r.exit_code == 1 and str(system) in r.output and "prot" in r.output
    # a named file is checked alone: the appliance's file does not leak in underneath
    r = CliRunner().invoke(config_group, ["check", str(user)])
    assert r.exit_code == 0, r.output
