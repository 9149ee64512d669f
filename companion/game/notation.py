"""A one-line notation for what happens at the table, used by `companion replay` and scripts.

    win A                    A wins, self-drawn, no value entered
    win C from B 24          C wins on B's discard; hand value 24
    win A 32 B=8 C=4 D=0     classical: the losers' own hand scores, for settling among themselves
    win B from A 3han30fu riichi=B,C     riichi: han and fu (or mangan, haneman, baiman, sanbaiman, yakuman)
    win C from B 24 also=D:16            D won on the same discard too, value 16 (seed 002: where
                                         the variant lets several win; `also=D:16,A:8` for two more)
    draw                     a hand with no mahjong
    draw ready=A,C riichi=A  riichi: who was tenpai, who declared riichi
    dice 3,4                 a throw of the dice (R17, R19); `dice 3,0 cocked=2` a cocked second die (R18)
    undo                     undo the latest event that counts
    redeal [reason]          a misdeal (R25/R26): the throws of this hand are cleared, new throws are due
    penalty A 30 [reason]    A pays 30, shared equally by the other three (seed 004)
    adjust A=-10 B=+10 [reason]   scores moved by agreement; they must sum to zero
    end [time] [reason]      the game ends now, by agreement (or by `time`, seed 004): the hand in
                             play is not scored
    seats A=E B=S C=W D=N    who sits where before hand 1 (wind tiles drawn, seed 004)
    first-east C             C is the first East; the others keep their places round the table

Blank lines and text after `#` are ignored. Players are named as in --players (any case)
or by their current seat wind letter.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from companion.errors import CompanionError
from companion.game.events import (
    Adjustment,
    AlsoWon,
    DiceThrown,
    Event,
    GameEnded,
    HandDrawn,
    HandWon,
    Penalty,
    Redeal,
    SeatsChosen,
    Undone,
)
from companion.rules.seats import WINDS

LIMITS = {"mangan": 5, "haneman": 6, "baiman": 8, "sanbaiman": 11, "yakuman": 13}
_HAN_FU = re.compile(r"^(?P<han>\d+)han(?:(?P<fu>\d+)fu)?$", re.I)


class NotationError(CompanionError, ValueError):
    """A line that does not say a result."""


class UndoLatest:
    """`undo` with no event id: undo the latest event that still counts."""


def parse_value(token: str) -> tuple[int, int | None]:
    """'24' → (24, None); '3han30fu' or '3/30' → (3, 30); 'mangan' → (5, None)."""
    t = token.lower()
    if t in LIMITS:
        return LIMITS[t], None
    if m := _HAN_FU.match(t):
        return int(m["han"]), int(m["fu"]) if m["fu"] else None
    if re.fullmatch(r"\d+/\d+", t):
        han, fu = t.split("/")
        return int(han), int(fu)
    if re.fullmatch(r"-?\d+", t):
        return int(t), None
    raise NotationError(f"{token!r} is not a hand value (a number, 3han30fu, or mangan …)")


def parse_dice(token: str) -> list[int]:
    """'3,4' or '3+4' → [3, 4]; faces are checked by the game, the shape here."""
    parts = re.split(r"[,+]", token)
    if not all(re.fullmatch(r"\d", p) for p in parts):
        raise NotationError(f"{token!r} is not a throw of dice (write it like 3,4)")
    return [int(p) for p in parts]


def _also_won(item: str, player: Callable[[str], int]) -> AlsoWon:
    """'D:16' or 'D:3han30fu' or 'D' → another winner on the same discard."""
    name, _, value = item.partition(":")
    v, fu = parse_value(value) if value else (None, None)
    return AlsoWon(winner=player(name), value=v, fu=fu)


def parse_line(line: str, player: Callable[[str], int]) -> Event | UndoLatest | None:
    """The event a line says, or None for a blank/comment line. `player` resolves a name to an index."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    words = text.split()
    verb, rest = words[0].lower(), words[1:]
    options: dict[str, str] = {}
    plain: list[str] = []
    for w in rest:
        if "=" in w:
            k, _, v = w.partition("=")
            options[k] = v
        else:
            plain.append(w)

    def players_in(key: str) -> list[int]:  # each player once: one riichi stick, one tenpai (as the API)
        return sorted({player(p) for p in options.pop(key, "").split(",") if p})

    if verb == "win":
        if not plain:
            raise NotationError("'win' needs the winner: win A, or win C from B")
        winner = player(plain.pop(0))
        discarder = None
        if plain and plain[0].lower() == "from":
            if len(plain) < 2:
                raise NotationError("'from' needs the player who discarded")
            discarder = player(plain[1])
            plain = plain[2:]
        value = fu = None
        if plain:
            value, fu = parse_value(plain.pop(0))
        if plain:
            raise NotationError(f"unexpected {' '.join(plain)!r}")
        riichi = players_in("riichi")
        also = [_also_won(item, player) for item in options.pop("also", "").split(",") if item]
        scores = {}
        for name, v in options.items():
            try:
                who, score = player(name), int(v)
            except ValueError:
                raise NotationError(f"{name}={v}: a loser's hand score must be a number") from None
            if who in scores:
                raise NotationError(f"{name}={v}: that player's hand score is given twice")
            scores[who] = score
        return HandWon(winner=winner, discarder=discarder, value=value, fu=fu, hand_scores=scores, riichi=riichi,
                       also=also)
    if verb == "draw":
        ready, riichi = players_in("ready"), players_in("riichi")
        if plain or options:
            raise NotationError(f"unexpected {' '.join(plain + [f'{k}={v}' for k, v in options.items()])!r}")
        return HandDrawn(ready=ready, riichi=riichi)
    if verb == "dice":
        if len(plain) != 1:
            raise NotationError("'dice' takes one throw, like: dice 3,4")
        marks = [c.strip() for c in options.pop("cocked", "").split(",") if c.strip()]
        if options or not all(c.isdigit() for c in marks):
            raise NotationError(f"unexpected {' '.join(f'{k}={v}' for k, v in options.items()) or 'cocked=' + ','.join(marks)!r}"
                                " (a cocked die is named by its place: dice 3,0 cocked=2)")
        return DiceThrown(faces=parse_dice(plain[0]), cocked=[int(c) - 1 for c in marks], source="manual")
    if verb == "undo":
        if not plain:
            return UndoLatest()
        if not plain[0].isdigit():
            raise NotationError("'undo' takes an event id, or nothing for the latest event")
        return Undone(target=int(plain[0]))
    reason = " ".join(plain)
    if verb == "redeal":
        _no_options(options)
        return Redeal(reason=reason)
    if verb == "penalty":
        _no_options(options)
        if len(plain) < 2 or not re.fullmatch(r"\d+", plain[1]):
            raise NotationError("'penalty' needs the player and the points: penalty A 30 [reason]")
        return Penalty(player=player(plain[0]), points=int(plain[1]), reason=" ".join(plain[2:]))
    if verb == "adjust":
        deltas: dict[int, int] = {}
        for name, v in options.items():
            if not re.fullmatch(r"[+-]?\d+", v):
                raise NotationError(f"{name}={v}: an adjustment is a whole number of points, like A=-10 B=+10")
            who = player(name)
            if who in deltas:
                raise NotationError(f"{name}={v}: that player is named twice")
            deltas[who] = int(v)
        if not deltas:
            raise NotationError("'adjust' needs the points, like: adjust A=-10 B=+10 [reason]")
        return Adjustment(deltas=deltas, reason=reason)
    if verb == "end":
        _no_options(options)
        how = "agreement"
        if plain and plain[0].lower() in ("time", "agreement"):
            how = plain.pop(0).lower()
        return GameEnded(how=how, reason=" ".join(plain))  # type: ignore[arg-type]
    if verb == "seats":
        if plain:
            raise NotationError(f"unexpected {' '.join(plain)!r} (write the seats like: seats A=E B=S C=W D=N)")
        order: dict[str, int] = {}
        for name, wind in options.items():
            w = wind.upper()
            if w not in WINDS:
                raise NotationError(f"{name}={wind}: a seat is E, S, W or N")
            if w in order:
                raise NotationError(f"{name}={wind}: two players at {w}")
            order[w] = player(name)
        if len(order) != 4:
            raise NotationError("'seats' names all four players: seats A=E B=S C=W D=N")
        return SeatsChosen(order=[order[w] for w in WINDS], how="drawn")
    if verb in ("first-east", "first_east"):
        _no_options(options)
        if len(plain) != 1:
            raise NotationError("'first-east' names one player: first-east C")
        east = player(plain[0])
        return SeatsChosen(order=[(east + k) % 4 for k in range(4)], how="typed")
    raise NotationError(f"unknown result {verb!r}: say win, draw, dice, undo, redeal, penalty, adjust, end, "
                        "seats or first-east")


def _no_options(options: dict[str, str]) -> None:
    if options:
        raise NotationError(f"unexpected {' '.join(f'{k}={v}' for k, v in options.items())!r}")
