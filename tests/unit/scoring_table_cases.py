"""Known-answer hands of the table-driven scorers (tests/fixtures/scoring/*.toml), as JSON hands.

The case files write a hand short: `concealed = "2m3m4m 9m"` (tile codes, spaces ignored), melds as
strings ("1z1z1z"; a leading "+" marks a concealed kong). Everything else is the JSON hand's field.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scoring"
_CODE = re.compile(r"[0-9][mpszf]")


def tiles(text: str) -> list[str]:
    codes = _CODE.findall(text)
    assert "".join(codes) == re.sub(r"\s+", "", text), f"not tile codes: {text!r}"
    return codes


def json_hand(short: dict[str, Any]) -> dict[str, Any]:
    """The JSON hand (docs/scoring.md) a case file's short hand stands for."""
    hand = dict(short)
    hand["concealed"] = tiles(short.get("concealed", ""))
    hand["melds"] = [{"tiles": tiles(m.lstrip("+")), "concealed": m.startswith("+")} for m in short.get("melds", [])]
    hand.setdefault("winning_tile", None)
    return hand


def cases(name: str) -> list[Any]:
    """pytest params, one per case, named by its id; every case must name its source."""
    with open(FIXTURES / f"{name}.toml", "rb") as f:
        data = tomllib.load(f)["case"]
    ids = [c["id"] for c in data]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    for c in data:
        assert c.get("source"), f"{c['id']}: every case names its source"
    return [pytest.param(c, id=c["id"]) for c in data]
