"""Tests on a real Raspberry Pi with the parts wired as in hardware_docs/wiring.md; skipped anywhere else.

Run them on the assembled unit, with the service stopped (it holds the camera and the pins):
    sudo systemctl stop companion
    sudo -u companion /opt/companion/venv/bin/python -m pytest tests/hardware
"""

from pathlib import Path

import pytest


def on_a_pi() -> bool:
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False


def pytest_collection_modifyitems(config, items):
    if on_a_pi():
        return
    skip = pytest.mark.skip(reason="needs a Raspberry Pi (tests/hardware runs on the assembled unit)")
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(skip)
