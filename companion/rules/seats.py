"""Seat winds and their order round the table.

Seats sit E → S → W → N in turn order (R23). Whether that order runs anticlockwise
(South on East's right, the classical table) or clockwise (compass-style, seed 003)
is a variant setting; it only changes where the walls lie, never who follows whom.
"""

from __future__ import annotations

from typing import Literal

Wind = Literal["E", "S", "W", "N"]

#: turn order of the seat winds (R23)
WINDS: tuple[Wind, ...] = ("E", "S", "W", "N")

WIND_NAMES: dict[str, str] = {"E": "East", "S": "South", "W": "West", "N": "North"}


def wind_index(wind: str) -> int:
    """0 for East … 3 for North; ValueError for anything else."""
    try:
        return WINDS.index(wind)  # type: ignore[arg-type]
    except ValueError:
        raise ValueError(f"not a wind: {wind!r} (expected one of E, S, W, N)") from None
