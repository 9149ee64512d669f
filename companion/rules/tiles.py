"""Tile codes and tile sets.

Codes: `1m`–`9m` characters, `1p`–`9p` circles, `1s`–`9s` bamboo, `1z`–`7z` East, South,
West, North, White, Green, Red dragon; bonus `1f`–`4f` flowers (plum, orchid,
chrysanthemum, bamboo) and `5f`–`8f` seasons (spring, summer, autumn, winter); `jk` joker.
"""

from __future__ import annotations

from collections import Counter

SUITS = {"m": "Characters", "p": "Circles", "s": "Bamboo"}
HONOURS = ("East", "South", "West", "North", "White dragon", "Green dragon", "Red dragon")
FLOWERS = ("Plum", "Orchid", "Chrysanthemum", "Bamboo")
SEASONS = ("Spring", "Summer", "Autumn", "Winter")

SUIT_CODES: tuple[str, ...] = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
HONOUR_CODES: tuple[str, ...] = tuple(f"{n}z" for n in range(1, 8))
FLOWER_CODES: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 5))
SEASON_CODES: tuple[str, ...] = tuple(f"{n}f" for n in range(5, 9))
JOKER = "jk"

#: the 42 kinds a Chinese set holds (34 playing tiles, 8 bonus tiles)
ALL_CODES: tuple[str, ...] = SUIT_CODES + HONOUR_CODES + FLOWER_CODES + SEASON_CODES


def tile_name(code: str) -> str:
    """English name of a tile code, e.g. `3p` → 'Circles 3'; ValueError if unknown."""
    if code == JOKER:
        return "Joker"
    if len(code) == 2 and code[0].isdigit():
        n, kind = int(code[0]), code[1]
        if kind in SUITS and 1 <= n <= 9:
            return f"{SUITS[kind]} {n}"
        if kind == "z" and 1 <= n <= 7:
            return HONOURS[n - 1]
        if kind == "f" and 1 <= n <= 4:
            return f"Flower {n} ({FLOWERS[n - 1]})"
        if kind == "f" and 5 <= n <= 8:
            return f"Season {n - 4} ({SEASONS[n - 5]})"
    raise ValueError(f"not a tile code: {code!r}")


def tile_set(*, flowers: bool = True, seasons: bool = True, jokers: int = 0) -> Counter[str]:
    """How many of each tile a set holds: four of each playing tile, one of each bonus tile."""
    tiles: Counter[str] = Counter({code: 4 for code in SUIT_CODES + HONOUR_CODES})
    if flowers:
        tiles.update(FLOWER_CODES)
    if seasons:
        tiles.update(SEASON_CODES)
    if jokers:
        tiles[JOKER] = jokers
    return tiles
