"""The suite runs on the built-in defaults, whatever configuration the machine has.

On the assembled unit `/etc/companion/companion.toml` names the real pins, camera and dice box,
and every `companion` command reads it when given no other file (`config.SYSTEM_CONFIG_FILE`);
a developer may have a file of their own. Neither may turn a test's simulated twins into real
hardware or point it at the real game log, nor may a tile set the machine was taught change
what a test's recogniser names.
"""

import os

import pytest

from companion import config

os.environ["COMPANION_CONFIG"] = os.devnull  # an empty file; `python -m companion …` in tests inherits it
for _name in ("COMPANION_DATA_DIR", "COMPANION_PORT", "COMPANION_HOST", "COMPANION_TAUGHT_SET"):
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def _no_machine_config(tmp_path_factory, monkeypatch):
    """In-process `load_settings(env={})` finds no configuration file of the machine's either."""
    absent = tmp_path_factory.getbasetemp() / "no-machine-config.toml"
    monkeypatch.setattr(config, "default_config_file", lambda: absent)
    monkeypatch.setattr(config, "SYSTEM_CONFIG_FILE", absent)


@pytest.fixture(autouse=True)
def _no_machine_taught_set(tmp_path_factory, monkeypatch):
    """The taught tile set is looked for in an empty data folder unless a test names its own."""
    from companion.vision.tiles import teach

    monkeypatch.setattr(teach, "_data_dir", tmp_path_factory.getbasetemp() / "no-machine-data")
