"""Splitting a hand into sets and a pair, for the table-driven scorers (classical, German, Hong Kong).

The `mahjong` library's HandDivider splits only complete riichi hands (it also yields seven
pairs, which these systems do not know) and says nothing of the sets a losing hand holds, which
classical rules score too; so the split is done here, on tile codes, in a few lines.

A winning hand is every way its concealed tiles (with the winning tile) make sets and one pair,
the declared melds added as they are; the scorer values each way — and each set the winning
tile may have completed — and keeps the best (what players do at the table).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from companion.scoring.hand import Hand, normal

WIND_TILE = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}
WINDS = ("1z", "2z", "3z", "4z")
DRAGONS = ("5z", "6z", "7z")
#: thirteen orphans: the ones and nines of the suits and the seven honours
ORPHANS = ("1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z")
#: the green tiles (R121 Imperial jade): bamboo 2, 3, 4, 6, 8 and the green dragon
GREEN = frozenset({"2s", "3s", "4s", "6s", "8s", "6z"})
_ORDER = {code: i for i, code in enumerate(f"{n}{s}" for s in "mpsz" for n in range(1, 10))}


def suit(code: str) -> str:
    """'m', 'p', 's' or 'z' (honours)."""
    return code[1]


def is_honour(code: str) -> bool:
    return code[1] == "z"


def is_terminal(code: str) -> bool:
    return code[1] != "z" and code[0] in "19"


def is_major(code: str) -> bool:
    """R5: dragons, winds, ones and nines are major tiles; suit tiles 2-8 minor."""
    return is_honour(code) or is_terminal(code)


@dataclass(frozen=True)
class Set:
    """A chow, pung, kong or the pair, as scored."""

    kind: str  # "chow", "pung", "kong", "pair"
    tile: str  # the pair's or pung's tile; a chow's lowest tile (normalised: no red fives)
    concealed: bool
    #: the set the winning tile completed (R113: exposed when the tile was a discard)
    completed: bool = False

    @property
    def tiles(self) -> list[str]:
        if self.kind == "chow":
            n = int(self.tile[0])
            return [f"{n + i}{self.tile[1]}" for i in range(3)]
        return [self.tile] * {"pung": 3, "kong": 4, "pair": 2}[self.kind]

    @property
    def triplet(self) -> bool:
        """A pung or a kong (the sets most doubles ask for)."""
        return self.kind in ("pung", "kong")


def _sorted(counts: Counter[str]) -> list[str]:
    return sorted((c for c, k in counts.items() if k > 0), key=_ORDER.__getitem__)


@lru_cache(maxsize=4096)
def _split(key: tuple[tuple[str, int], ...], need_pair: bool) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Every way to split the tiles into pungs and chows (and one pair if `need_pair`)."""
    counts = Counter(dict(key))
    tiles = _sorted(counts)
    if not tiles:
        return ((),) if not need_pair else ()
    first = tiles[0]
    found: list[tuple[tuple[str, str], ...]] = []

    def rest(taken: list[str], kind: str, pair_left: bool) -> None:
        left = counts.copy()
        left.subtract(taken)
        sub = _split(tuple(sorted((c, k) for c, k in left.items() if k > 0)), pair_left)
        found.extend(((kind, first),) + s for s in sub)

    if counts[first] >= 3:
        rest([first] * 3, "pung", need_pair)
    if need_pair and counts[first] >= 2:
        rest([first] * 2, "pair", False)
    if not is_honour(first) and int(first[0]) <= 7:
        second, third = f"{int(first[0]) + 1}{first[1]}", f"{int(first[0]) + 2}{first[1]}"
        if counts[second] and counts[third]:
            rest([first, second, third], "chow", need_pair)
    return tuple(found)


def melds_as_sets(hand: Hand) -> list[Set]:
    out = []
    for m in hand.melds:
        tiles = sorted((normal(t) for t in m.tiles), key=_ORDER.__getitem__)
        out.append(Set(m.kind, tiles[0], m.concealed))
    return out


def arrangements(hand: Hand) -> Iterator[list[Set]]:
    """Every reading of a winning hand as four sets and a pair, with the set the winning tile
    completed marked (a discard makes that set exposed, R113). Nothing for a losing hand."""
    if hand.winning_tile is None:
        return
    win = normal(hand.winning_tile)
    counts = Counter(normal(t) for t in hand.hand_tiles())
    declared = melds_as_sets(hand)
    for split in _split(tuple(sorted(counts.items())), True):
        seen = set()
        for i, (kind, tile) in enumerate(split):
            s = Set(kind, tile, True)
            if win not in s.tiles or (kind, tile) in seen:
                continue
            seen.add((kind, tile))
            sets = [Set(k, t, True) for j, (k, t) in enumerate(split) if j != i]
            sets.append(Set(kind, tile, hand.self_drawn or kind == "pair", completed=True))
            yield declared + sets


def losing_sets(hand: Hand) -> tuple[list[Set], list[Set]]:
    """What a losing hand can score: its melds and a concealed pung of every tile it holds three
    or four of; and the pairs it holds, of which the scorer counts the best one (a hand has one
    pair; chows score nothing, so none is looked for)."""
    counts = Counter(normal(t) for t in hand.concealed)
    sets = melds_as_sets(hand) + [Set("pung", c, True) for c in _sorted(counts) if counts[c] >= 3]
    pairs = [Set("pair", c, True) for c in _sorted(counts) if counts[c] == 2]
    return sets, pairs


def waits(hand: Hand) -> set[str]:
    """The tiles that would complete the hand's concealed tiles (without its winning tile) into
    sets and a pair: R115 "filling the only place" when there is one."""
    counts = Counter(normal(t) for t in hand.concealed)
    held = counts + Counter(normal(t) for m in hand.melds for t in m.tiles)
    out = set()
    for code in _ORDER:
        if held[code] >= 4:  # a fifth cannot come
            continue
        trial = counts.copy()
        trial[code] += 1
        if _split(tuple(sorted((c, k) for c, k in trial.items() if k > 0)), True):
            out.add(code)
    return out


def thirteen_orphans(hand: Hand) -> bool:
    counts = hand.counts()
    return not hand.melds and set(counts) == set(ORPHANS) and sum(counts.values()) == 14


def nine_gates(hand: Hand) -> bool:
    """1-1-1-2-3-4-5-6-7-8-9-9-9 of one suit and any tile of it, nothing exposed."""
    counts = hand.counts()
    suits = {suit(c) for c in counts}
    if hand.melds or len(suits) != 1 or "z" in suits:
        return False
    s = suits.pop()
    need = Counter({f"{n}{s}": 1 for n in range(1, 10)}) + Counter({f"1{s}": 2, f"9{s}": 2})
    return all(counts[c] >= k for c, k in need.items())


def wriggling_snake(hand: Hand) -> bool:
    """R121 (Bradfield's list): one suit 1 to 9 and the four winds, one of them twice, concealed."""
    counts = hand.counts()
    if hand.melds or sum(counts.values()) != 14:
        return False
    suits = {suit(c) for c in counts} - {"z"}
    if len(suits) != 1:
        return False
    s = suits.pop()
    need = {f"{n}{s}" for n in range(1, 10)} | set(WINDS)
    return set(counts) == need
