"""Player names: what a table accepts as the four players' names (a new game, a rename).

Pure, for the fold (a rename in the log is checked like the names a game starts with) and the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.errors import N_, GameRuleError
from companion.rules.seats import WINDS


def check_players(players: Sequence[str]) -> list[str]:
    """The four names, trimmed; GameRuleError naming what is wrong."""
    names = [p.strip() for p in players]
    if len(names) != 4:
        raise GameRuleError(N_("a table has 4 players, not %(count)d"), count=len(names))
    if any(not n or len(n) > 40 for n in names):
        raise GameRuleError(N_("player names must be 1 to 40 characters"))
    # a player is also named by seat number or seat wind letter (`player_index`): a name that
    # reads as one would stand for another player
    winds = {w.casefold() for w in WINDS}
    for n in names:
        if n.isdigit() or n.upper() in WINDS or n.casefold() in winds:
            raise GameRuleError(N_("player name “%(name)s” reads as a seat number or a seat wind (E, S, W, N); "
                                   "choose another"), name=n)
        if not n.isprintable():  # control, format (e.g. right-to-left override), separators, unassigned
            raise GameRuleError(N_("player name “%(name)s” contains a control or invisible character"), name=n)
    if len({n.casefold() for n in names}) != 4:
        raise GameRuleError(N_("player names must differ"))
    return names
