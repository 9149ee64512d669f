"""A hand read from a photo: every tile the recogniser names, how sure it is of each, and the hand
(JSON form) that the tiles and the player's marks make. Shared by `companion score --photo` and
`POST /api/score`, so that the command line and the phones read a photo the same way.

The photo shows all of the winner's tiles; the player names which of them are the exposed sets,
the concealed kongs and the winning tile. Those are taken out of the tiles read, flowers and
seasons go to `flowers`, and the rest is the concealed hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.scoring.hand import BadHand, normal

#: a tile read with a lower score is marked for the player to check (`companion score --unsure-below`)
UNSURE_BELOW = 0.5


def marked(tiles, unsure_below: float = UNSURE_BELOW) -> list[dict[str, Any]]:
    """Recognised tiles (`recognizer.Tile`) as JSON, each with "unsure" where its score is low."""
    return [dict(t.to_json(), unsure=t.score < unsure_below) for t in tiles]


def read_tiles(recognizer, image: np.ndarray, unsure_below: float = UNSURE_BELOW) -> list[dict[str, Any]]:
    """Every tile in the photo in reading order: {"tile", "box", "score", "unsure"}."""
    return marked(recognizer.recognize(image), unsure_below)


def take(pool: list[str], tiles: list[str], what: str) -> None:
    """Take `tiles` out of the tiles read from a photo (a red five stands for a five); BadHand
    naming `what` if the photo shows no such tile."""
    for t in tiles:
        for i, have in enumerate(pool):
            if have == t or normal(have) == normal(t):
                del pool[i]
                break
        else:
            raise BadHand(f"{what}: the photo shows no {t} to take")


def hand_from_tiles(codes: list[str], marks: dict[str, Any]) -> dict[str, Any]:
    """The hand (JSON form) that the tiles read and the player's marks make.

    `marks` is a hand without `concealed`: its `melds` and `winning_tile` are taken out of
    `codes`, flowers and seasons among `codes` become `flowers`; every other field (flags, winds,
    indicators) is kept as given. BadHand if a named tile is not among those read."""
    pool = [c for c in codes if not c.endswith("f")]
    hand = {k: v for k, v in marks.items() if k not in ("concealed", "flowers")}
    try:
        for i, meld in enumerate(marks.get("melds") or []):
            tiles = meld.get("tiles") if isinstance(meld, dict) else None
            if not isinstance(tiles, list):
                raise BadHand(f"melds[{i}]: give the meld's tiles")
            take(pool, [str(t) for t in tiles], f"melds[{i}]")
        if marks.get("winning_tile") is not None:
            take(pool, [str(marks["winning_tile"])], "winning_tile")
    except BadHand as e:
        raise BadHand(f"{e} (read from the photo: {' '.join(codes)})") from None
    hand["concealed"] = pool
    hand["flowers"] = [c for c in codes if c.endswith("f")]
    return hand
