"""Tile codes, and how the real-photo data set and the peer recogniser name tiles.

One code per kind: `1m`-`9m` characters, `1p`-`9p` circles, `1s`-`9s` bamboo,
`1z`-`7z` East, South, West, North, White, Green, Red; bonus `1f`-`4f` flowers
(plum, orchid, chrysanthemum, bamboo) and `5f`-`8f` seasons (spring ... winter).
The model's class index is the position in TILE_CODES, so this order is frozen.
"""

from __future__ import annotations

from companion.rules.tiles import ALL_CODES, tile_name

#: every tile kind, in model class order (frozen: the shipped models depend on it)
TILE_CODES: tuple[str, ...] = ALL_CODES
CODE_INDEX: dict[str, int] = {code: i for i, code in enumerate(TILE_CODES)}

#: label names of the "Chinese Mahjong Detection" data set, index = label id
DATASET_NAMES: tuple[str, ...] = (
    "bs1", "sc1", "sd1", "sb1", "hwe", "bs2", "sc2", "sd2", "sb2", "hws",
    "bs3", "sc3", "sd3", "sb3", "hww", "bs4", "sc4", "sd4", "sb4", "hwn",
    "bf1", "sc5", "sd5", "sb5", "hdw", "bf2", "sc6", "sd6", "sb6", "hdg",
    "bf3", "sc7", "sd7", "sb7", "hdr", "bf4", "sc8", "sd8", "sb8", "sc9",
    "sd9", "sb9",
)

_HONOUR_NAMES = {"hwe": "1z", "hws": "2z", "hww": "3z", "hwn": "4z", "hdw": "5z", "hdg": "6z", "hdr": "7z"}


def dataset_name_to_code(name: str) -> str:
    """Map a data-set label name (`sc1`, `hdr`, `bf2`, `bs3`) to our tile code."""
    if name in _HONOUR_NAMES:
        return _HONOUR_NAMES[name]
    kind, n = name[:2], int(name[2:])
    if kind in ("sc", "sd", "sb"):
        return f"{n}{'mps'['cdb'.index(kind[1])]}"
    if kind == "bf":
        return f"{n}f"
    if kind == "bs":
        return f"{n + 4}f"
    raise KeyError(name)


#: data-set label id -> our class index
DATASET_TO_CLASS: tuple[int, ...] = tuple(CODE_INDEX[dataset_name_to_code(n)] for n in DATASET_NAMES)

#: the peer recogniser's (riichi) names -> our codes; it has no flowers or seasons
PEER_NAMES: dict[str, str] = {
    **{f"{n}{s}": f"{n}{s}" for s in "mps" for n in range(1, 10)},
    "tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z", "hatsu": "6z", "chun": "7z",
}


def describe(code: str) -> str:
    """A player-readable name, e.g. `3p` -> "Circles 3", `6f` -> "Season 2 (Summer)"; KeyError if unknown."""
    if code not in CODE_INDEX:
        raise KeyError(code)
    return tile_name(code)
