"""A hand to score, as the CLI, the API and the phones send it (JSON), and its validation.

The JSON shape (every flag may be left out: absent is false)::

    {"variant": "mcr", "concealed": ["5p", "5p", "3z", "3z", "3z", "4z", "4z"],
     "melds": [{"tiles": ["1z", "1z", "1z"], "concealed": false}],
     "winning_tile": "4z", "self_drawn": true, "seat_wind": "E", "prevalent_wind": "E",
     "flowers": [], "dora_indicators": [], "ura_indicators": []}

Tile codes are those of `companion recognize` (companion/rules/tiles.py), plus `0m`/`0p`/`0s`
for red fives. `concealed` holds the tiles in hand *without* the winning tile; `melds` are the
exposed sets and the concealed kongs; `winning_tile` is null for a losing hand (classical
scores losers' hands too). A hand that cannot exist (an unknown code, five of a tile, the wrong
number of tiles, a meld that is no set) is refused by `parse_hand` with `BadHand` and a reason;
whether a hand that can exist is a *winning* hand is the scorer's question (`Score.valid`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from companion.errors import N_, CompanionError
from companion.rules.seats import Wind
from companion.rules.tiles import FLOWER_CODES, HONOUR_CODES, SEASON_CODES, SUIT_CODES
from companion.validation import explain

#: red fives: the same kind as the 5 of their suit
RED_CODES: tuple[str, ...] = ("0m", "0p", "0s")
#: the 34 playing-tile kinds and the red fives
PLAYING_CODES: frozenset[str] = frozenset(SUIT_CODES + HONOUR_CODES + RED_CODES)
BONUS_CODES: frozenset[str] = frozenset(FLOWER_CODES + SEASON_CODES)


class BadHand(CompanionError, ValueError):
    """A hand that cannot be scored as given: the message says why (for a player)."""


class Meld(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """An exposed chow, pung or kong, or a concealed kong (`concealed: true`)."""

    tiles: list[str]
    concealed: bool = False

    @property
    def kind(self) -> str:
        """"chow", "pung" or "kong" (the hand is validated: nothing else gets this far)."""
        if len(self.tiles) == 4:
            return "kong"
        return "pung" if normal(self.tiles[0]) == normal(self.tiles[1]) else "chow"


class Hand(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One player's hand and the circumstances of the win (all flags default false)."""

    #: the variant the hand was played under (the CLI's default for --variant)
    variant: str | None = None
    #: tiles in hand, without the winning tile and without the melds
    concealed: list[str] = msgspec.field(default_factory=list)
    melds: list[Meld] = msgspec.field(default_factory=list)
    #: the tile that completed the hand; None: a losing hand
    winning_tile: str | None = None
    self_drawn: bool = False
    seat_wind: Wind = "E"
    prevalent_wind: Wind = "E"
    #: bonus tiles (1f-4f flowers, 5f-8f seasons)
    flowers: list[str] = msgspec.field(default_factory=list)
    #: the winning tile was the last of its kind (MCR "last tile"; 3 already visible)
    fourth_tile: bool = False
    #: won on the last tile of the wall (self-drawn: haitei / MCR "last tile draw") or its discard (houtei)
    last_tile: bool = False
    #: won on a replacement (loose) tile after a kong (rinshan; MCR "out with replacement tile")
    replacement: bool = False
    #: won by robbing a kong (chankan)
    robbing_kong: bool = False
    #: riichi declared / won within one go-round of it / declared on the first turn
    riichi: bool = False
    ippatsu: bool = False
    double_riichi: bool = False
    #: won on the deal (tenhou; classical Heaven's blessing) / on the first draw (chiihou) or
    #: on East's first discard (classical Earth's blessing)
    heavenly: bool = False
    earthly: bool = False
    #: classical: completing an original call (ready on the deal, declared, and won)
    original_call: bool = False
    dora_indicators: list[str] = msgspec.field(default_factory=list)
    ura_indicators: list[str] = msgspec.field(default_factory=list)
    #: riichi: repeat counters and riichi sticks on the table (they go to the winner's payment)
    honba: int = 0
    riichi_sticks: int = 0

    @property
    def winning(self) -> bool:
        return self.winning_tile is not None

    def hand_tiles(self) -> list[str]:
        """The concealed tiles and the winning tile (as written, red fives kept)."""
        return self.concealed + ([self.winning_tile] if self.winning_tile else [])

    def all_tiles(self) -> list[str]:
        """Every playing tile of the hand: concealed, winning tile, melds (red fives kept)."""
        return self.hand_tiles() + [t for m in self.melds for t in m.tiles]

    def counts(self) -> Counter[str]:
        """How many of each kind the hand holds, red fives counted as fives (no bonus tiles)."""
        return Counter(normal(t) for t in self.all_tiles())

    def red_fives(self) -> int:
        return sum(1 for t in self.all_tiles() if t in RED_CODES)

    @property
    def concealed_hand(self) -> bool:
        """No exposed set (concealed kongs allowed); a won discard still counts as concealed."""
        return all(m.concealed for m in self.melds)


def normal(code: str) -> str:
    """A red five as the plain five (`0p` → `5p`); every other code as it is."""
    return f"5{code[1]}" if code in RED_CODES else code


def is_red(code: str) -> bool:
    return code in RED_CODES


def _check_codes(where: str, tiles: list[str], allowed: frozenset[str], what: str) -> None:
    for i, t in enumerate(tiles):
        if t not in allowed:
            hint = ""
            if t in BONUS_CODES:
                hint = " (flowers and seasons go in \"flowers\")"
            elif t in PLAYING_CODES:
                hint = f" (only {what} here)"
            raise BadHand(N_("%(where)s: %(tile)s is not a tile code%(hint)s"),
                          where=f"{where}[{i}]", tile=repr(t), hint=hint)


def _check_meld(i: int, meld: Meld) -> None:
    where = f"melds[{i}]"
    _check_codes(f"{where}.tiles", meld.tiles, PLAYING_CODES, "playing tiles")
    tiles = [normal(t) for t in meld.tiles]
    if len(tiles) not in (3, 4):
        raise BadHand(N_("%(where)s: a meld is 3 tiles (chow, pung) or 4 (kong), not %(n)s"), where=where, n=len(tiles))
    if len(set(tiles)) == 1:
        return
    if len(tiles) == 3 and tiles[0][1] in "mps" and len({t[1] for t in tiles}) == 1:
        nums = sorted(int(t[0]) for t in tiles)
        if nums[1] == nums[0] + 1 and nums[2] == nums[0] + 2:
            return
    raise BadHand(N_("%(where)s: %(tiles)s is not a chow, pung or kong"), where=where, tiles=" ".join(meld.tiles))


def validate(hand: Hand) -> Hand:
    """Refuse a hand that cannot exist; returns it unchanged otherwise."""
    _check_codes("concealed", hand.concealed, PLAYING_CODES, "playing tiles")
    if hand.winning_tile is not None:
        _check_codes("winning_tile", [hand.winning_tile], PLAYING_CODES, "playing tiles")
    _check_codes("flowers", hand.flowers, BONUS_CODES, "flowers and seasons")
    _check_codes("dora_indicators", hand.dora_indicators, PLAYING_CODES, "playing tiles")
    _check_codes("ura_indicators", hand.ura_indicators, PLAYING_CODES, "playing tiles")
    for i, meld in enumerate(hand.melds):
        _check_meld(i, meld)
        if len(meld.tiles) == 3 and meld.concealed:
            raise BadHand(N_("melds[%(i)s]: only a kong can be a concealed meld; concealed chows and pungs "
                             "belong in \"concealed\""), i=i)
    n = len(hand.concealed) + 3 * len(hand.melds)
    want = 13
    if n != want:
        extra = " (the winning tile goes in \"winning_tile\", not in \"concealed\")" if n == want + 1 else ""
        raise BadHand(N_("%(n)s tiles in hand and melds (a kong counts as 3): a hand has 13 besides the "
                         "winning tile%(extra)s"), n=n, extra=extra)
    seen = Counter(normal(t) for t in hand.all_tiles() + hand.dora_indicators + hand.ura_indicators)
    for code, k in sorted(seen.items()):
        if k > 4:
            raise BadHand(N_("%(n)s of %(tile)s: a set has only four of each tile (indicators counted)"),
                          n=k, tile=code)
    reds = Counter(t for t in hand.all_tiles() + hand.dora_indicators + hand.ura_indicators if t in RED_CODES)
    for code, k in reds.items():
        if k > 4:
            raise BadHand(N_("%(n)s red fives %(tile)s"), n=k, tile=code)
    doubled = [t for t, k in Counter(hand.flowers).items() if k > 1]
    if doubled:
        raise BadHand(N_("flowers: %(tile)s twice; there is one of each bonus tile"), tile=doubled[0])
    if hand.honba < 0 or hand.riichi_sticks < 0:
        raise BadHand(N_("honba and riichi_sticks cannot be negative"))
    return hand


def parse_hand(obj: Any) -> Hand:
    """A hand from decoded JSON (a dict), validated; `BadHand` names the field and the reason."""
    if isinstance(obj, Hand):
        return validate(obj)
    if not isinstance(obj, dict):
        raise BadHand(N_("a hand is a JSON object, not %(what)s"), what=type(obj).__name__)
    try:
        hand = msgspec.convert(obj, Hand)
    except msgspec.ValidationError as e:
        raise BadHand(explain(e, Hand)) from None
    return validate(hand)


def hand_from_json(text: str | bytes) -> Any:
    """Decode JSON text (one hand or an array); `BadHand` if it is not JSON."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError as e:
        raise BadHand(N_("not valid JSON: %(why)s"), why=str(e)) from None


def tiles_from_text(text: str) -> list[str]:
    """Tile codes from what a player types: `123m 55p 777z`, `1m,2m,3m` or `1m 2m 3m` (red fives `0p`);
    `BadHand` if a part is not tiles."""
    out: list[str] = []
    for part in text.replace(",", " ").split():
        digits = ""
        for ch in part:
            if ch.isdigit():
                digits += ch
            elif ch in "mpszf" and digits:
                out += [f"{d}{ch}" for d in digits]
                digits = ""
            else:
                raise BadHand(N_("%(text)s: not tiles (write e.g. 123m 55p 777z)"), text=repr(part))
        if digits:
            raise BadHand(N_("%(text)s: the numbers need a suit letter (m, p, s, z or f)"), text=repr(part))
    return out
