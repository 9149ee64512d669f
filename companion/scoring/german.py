"""German home rules (seed 003): the classical machinery with the German tables.

Seed 003 names its own "Sonderspiele und Abrechnung" but does not contain them; the defaults in
german.toml are the closest published tables (RULES.md "German home rules": TU Chemnitz
"bewertung.html", the DMJL classical rules). They are the variant's `[scoring]` data like the
classical ones, in the same shape (companion.scoring.classical.ClassicalRules).
"""

from __future__ import annotations

from companion.rules.variant import Variant
from companion.scoring import rules_of
from companion.scoring.classical import ClassicalRules, score_with
from companion.scoring.hand import Hand
from companion.scoring.result import Score


def check(variant: Variant) -> None:
    rules_of(variant, ClassicalRules)


def score(hand: Hand, variant: Variant) -> Score:
    return score_with(hand, rules_of(variant, ClassicalRules), "german")
