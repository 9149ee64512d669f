"""What scoring a hand gives back: valid or not (and why), the total and its itemised reasons."""

from __future__ import annotations

from typing import Any

import msgspec


class Item(msgspec.Struct, kw_only=True):
    """One reason the hand scores: a fan, a yaku, dora, basic points, a double …"""

    #: stable English identifier (snake_case), e.g. "all_pungs", "riichi", "pung_of_dragons"
    key: str
    #: English name shown to players
    name: str
    #: what this item adds, in `unit` (a fan that counts twice: 2 × its value, with count 2)
    value: int
    #: "fan" (MCR), "han" (riichi), "fu", "points" (basic points), "doubles", "faan" (HK), "limit"
    unit: str = ""
    #: how many times it counts (value already includes it)
    count: int = 1
    #: the standard name in the system's own language (番种 name, Japanese romaji), if any
    native: str | None = None


class Score(msgspec.Struct, kw_only=True):
    """The score of one hand under one scoring system.

    `total`: MCR fans (flowers included); riichi: points the winner receives before honba and
    sticks; classical/German/HK: the hand's points after doubles and the limit (HK: faan points).
    """

    valid: bool
    #: why the hand is not valid (not a winning shape, five of a tile, below the minimum …)
    reason: str | None = None
    #: "classical", "german", "mcr", "riichi" or "hongkong"
    system: str = ""
    total: int = 0
    items: list[Item] = msgspec.field(default_factory=list)
    #: riichi only
    han: int | None = None
    fu: int | None = None
    yaku: list[str] | None = None
    #: a limit reached, e.g. "mangan", "yakuman", "limit"
    limit: str | None = None
    #: who pays what, system-specific (riichi: {"ron": 8000} or {"dealer": 4000, "others": 2000}
    #: plus "honba" and "sticks"; MCR: {"discarder": 16, "others": 8}); None where not worked out
    payments: dict[str, int] | None = None

    @classmethod
    def invalid(cls, reason: str, system: str = "", **extra: Any) -> Score:
        return cls(valid=False, reason=reason, system=system, **extra)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; the riichi-only fields, `limit` and `payments` only when set."""
        data = msgspec.to_builtins(self)
        for key in ("han", "fu", "yaku", "limit", "payments"):
            if data.get(key) is None:
                data.pop(key, None)
        for item in data["items"]:
            if item.get("native") is None:
                item.pop("native", None)
        return data
