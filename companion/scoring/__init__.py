"""Scoring a hand under a variant's scoring system: `score_hand(hand, variant) -> Score`.

One module per system (classical, german, mcr, riichi, hongkong), each exposing

    score(hand: Hand, variant: Variant) -> Score
    check(variant: Variant) -> None      # VariantError "…: scoring.<field>: reason" if the rules are bad

The system is the variant's `[scoring] system`, else its settlement method. The rest of the
`[scoring]` table is the system's own settings; each module validates it (`rules_of`).
See docs/scoring.md.
"""

from __future__ import annotations

import importlib
from typing import Any, TypeVar

import msgspec

from companion.errors import CompanionError, VariantError
from companion.rules.variant import Variant
from companion.scoring.hand import BadHand, Hand, Meld, parse_hand
from companion.scoring.result import Item, Score
from companion.validation import explain, split

__all__ = [
    "SYSTEMS",
    "BadHand",
    "Hand",
    "Item",
    "Meld",
    "Score",
    "ScoringUnavailable",
    "check_variant",
    "parse_hand",
    "rules_of",
    "score_hand",
    "score_obj",
    "system_of",
]

#: scoring system -> module
SYSTEMS: dict[str, str] = {
    "classical": "companion.scoring.classical",
    "german": "companion.scoring.german",
    "mcr": "companion.scoring.mcr",
    "riichi": "companion.scoring.riichi",
    "hongkong": "companion.scoring.hongkong",
}

T = TypeVar("T")


class ScoringUnavailable(CompanionError, LookupError):
    """The variant names a scoring system whose module this installation lacks."""


def system_of(variant: Variant) -> str:
    """The variant's scoring system; VariantError if it names none this companion knows."""
    system = variant.scoring_rules.get("system", variant.scoring)
    if system not in SYSTEMS:
        if system == "none":
            raise VariantError(f"variant {variant.name!r} keeps no scores (settlement method \"none\"); "
                               f"give it a [scoring] system to score hands")
        raise VariantError(f"variant {variant.name!r}: scoring.system: unknown scoring system {system!r} "
                           f"(one of: {', '.join(SYSTEMS)})")
    return system


def _module(system: str) -> Any:
    try:
        return importlib.import_module(SYSTEMS[system])
    except ModuleNotFoundError as e:
        if e.name == SYSTEMS[system]:
            raise ScoringUnavailable(f"the {system} scoring system is not available in this version") from None
        raise


def rules_of(variant: Variant, type_: type[T]) -> T:
    """The variant's `[scoring]` settings (without `system`) as `type_` (a msgspec Struct with
    defaults); VariantError names the variant and the field, e.g. "riichi: scoring.aka: …"."""
    data = {k: v for k, v in variant.scoring_rules.items() if k != "system"}
    try:
        return msgspec.convert(data, type_)
    except msgspec.ValidationError as e:
        _, path = split(e)
        text = explain(e, type_)
        where = "scoring." if path else "scoring: "
        raise VariantError(f"variant {variant.name!r}: {where}{text}") from None


def check_variant(variant: Variant) -> str:
    """Validate the variant's scoring settings; returns the system's name."""
    system = system_of(variant)
    _module(system).check(variant)
    return system


def score_hand(hand: Hand, variant: Variant) -> Score:
    """Score a validated hand (see `parse_hand`) under the variant's scoring system."""
    return _module(system_of(variant)).score(hand, variant)


def score_obj(obj: Any, variant: Variant) -> Score:
    """Parse and score one decoded-JSON hand; a hand that cannot exist gives an invalid Score
    with the reason (a bad variant still raises VariantError: it is not the hand's fault)."""
    try:
        hand = parse_hand(obj)
    except BadHand as e:
        return Score.invalid(str(e), system_of(variant))
    return score_hand(hand, variant)
