"""The players ranked by score: at game over, or whenever a table asks (seed 002: "le score
accumulé détermine le vainqueur" — the accumulated score decides the winner).

Pure: scores and the variant's `[standings]` in, a list out. Ties are shared (1, 1, 3, 4) or
broken by seat order (the player who began nearer East ranks higher), as the variant says. Where
the variant has uma (riichi club rules), each player also gets a `final` result in thousands:
(score - return) / 1000 + uma for the place, oka to the first; tied players share the uma (and
oka) of the places they hold together (WRC: "uma is averaged").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.rules.variant import Variant


def ranks(scores: Sequence[int], ties: str = "shared") -> list[int]:
    """Each player's rank (1 = best) by index. "shared": equal scores share the better rank
    (competition ranking, 1-1-3-4); "seat_order": equal scores are ranked by index."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    result = [0] * len(scores)
    for place, i in enumerate(order, 1):
        if ties == "shared" and place > 1 and scores[i] == scores[order[place - 2]]:
            result[i] = result[order[place - 2]]
        else:
            result[i] = place
    return result


def standings(players: Sequence[str], scores: Sequence[int], variant: Variant) -> list[dict[str, Any]]:
    """`[{"player", "score", "rank"}]` best first (ties by seat order), with `final` where the
    variant has uma."""
    spec = variant.standings
    rank = ranks(scores, spec.ties)
    order = sorted(range(len(scores)), key=lambda i: (rank[i], i))
    rows = [{"player": players[i], "score": scores[i], "rank": rank[i]} for i in order]
    if spec.uma:
        back = spec.return_score if spec.return_score is not None else variant.settlement.start_score
        bonus = [u + (spec.oka if place == 0 else 0) for place, u in enumerate(spec.uma)]
        for row in rows:
            # the places this player's rank spans: tied players share the bonuses of those places
            tied = sum(1 for r in rows if r["rank"] == row["rank"])
            share = sum(bonus[row["rank"] - 1: row["rank"] - 1 + tied]) / tied
            row["final"] = round((row["score"] - back) / 1000 + share, 2)
    return rows
