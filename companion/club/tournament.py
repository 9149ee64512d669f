"""A tournament's rules of the house (pure: no I/O, no clock of its own): seatings, the session
clock, what a session scores, penalties, the ranking and an EMA-style results CSV.

Seating never gets stuck: every method is a bounded, deterministic construction (given its seed)
that always returns a seating; Swiss-style avoids repeat opponents as far as it can and says how
many pairs meet again when it cannot.
"""

from __future__ import annotations

import csv
import io
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations

from companion.errors import CompanionError

#: placement points for 1st..4th (players on the same score share the places' points)
PLACE_POINTS = (4.0, 2.0, 1.0, 0.0)


class TournamentError(CompanionError, ValueError):
    """A tournament request that cannot be done as asked (the message says why)."""


Seating = dict[str, list[str]]  # table id -> four players, East, South, West, North


def _check(players: Sequence[str], tables: Sequence[str]) -> None:
    if len(players) % 4:
        raise TournamentError(f"{len(players)} players do not fill tables of four: add "
                              f"{4 - len(players) % 4} substitute(s) or take some out")
    if len(set(players)) != len(players):
        raise TournamentError("a player is named twice")
    if len(tables) < len(players) // 4:
        raise TournamentError(f"{len(players) // 4} tables are needed, {len(tables)} are known")


def random_seating(players: Sequence[str], tables: Sequence[str], seed: int) -> Seating:
    _check(players, tables)
    order = list(players)
    random.Random(seed).shuffle(order)
    return {t: order[4 * i:4 * i + 4] for i, t in enumerate(tables[:len(order) // 4])}


def fixed_seating(groups: Sequence[Sequence[str]], tables: Sequence[str], players: Sequence[str]) -> Seating:
    """The referee's own seating: every player exactly once, four to a table."""
    flat = [p for g in groups for p in g]
    if any(len(g) != 4 for g in groups):
        raise TournamentError("each table of a fixed seating has four players")
    if sorted(flat) != sorted(players):
        missing, extra = set(players) - set(flat), set(flat) - set(players)
        raise TournamentError("a fixed seating names every player once"
                              + (f"; missing: {', '.join(sorted(missing))}" if missing else "")
                              + (f"; not in the tournament: {', '.join(sorted(extra))}" if extra else ""))
    _check(flat, tables)
    return {t: list(g) for t, g in zip(tables, groups)}


def met(seatings: Iterable[Seating]) -> Counter:
    """How often each pair of players has sat at one table."""
    count: Counter = Counter()
    for seating in seatings:
        for group in seating.values():
            count.update(frozenset(pair) for pair in combinations(group, 2))
    return count


def repeats(seating: Seating, before: Counter) -> int:
    """Pairs at this seating's tables that have met before (each earlier meeting counts)."""
    return sum(before[frozenset(pair)] for g in seating.values() for pair in combinations(g, 2))


def swiss_seating(ranked: Sequence[str], tables: Sequence[str], before: Counter, *, window: int = 8) -> Seating:
    """Players of like standing together (best four at the first table …), avoiding opponents met
    before: each table takes the best unseated player, then, one by one, whichever of the next
    `window` unseated players has met the table least (rank breaks ties); then players of two
    tables (nearest first) are swapped while that lowers the repeats. Bounded, never stuck."""
    _check(ranked, tables)
    rank = {p: i for i, p in enumerate(ranked)}
    left = list(ranked)
    groups: list[list[str]] = []
    while left:
        group = [left.pop(0)]
        while len(group) < 4:
            pick = min(left[:window], key=lambda p: (sum(before[frozenset((p, q))] for q in group), rank[p]))
            left.remove(pick)
            group.append(pick)
        groups.append(group)

    def cost(g: list[str]) -> int:
        return sum(before[frozenset(pair)] for pair in combinations(g, 2))

    # then swaps between any two tables while they lower the repeats (nearest tables first, so
    # players stay among their like); each swap lowers the total, so this ends
    improved, rounds = True, 0
    while improved and rounds < 50:
        improved, rounds = False, rounds + 1
        for gap in range(1, len(groups)):
            for a in range(len(groups) - gap):
                b = a + gap
                if cost(groups[a]) + cost(groups[b]) == 0:
                    continue
                for i in range(4):
                    for j in range(4):
                        ga, gb = groups[a][:], groups[b][:]
                        ga[i], gb[j] = gb[j], ga[i]
                        if cost(ga) + cost(gb) < cost(groups[a]) + cost(groups[b]):
                            groups[a], groups[b], improved = ga, gb, True
    return {t: g for t, g in zip(tables, groups)}


# --- the clock -------------------------------------------------------------------------------------
@dataclass
class Clock:
    started: datetime | None
    minutes: float
    warning_minutes: float

    @property
    def ends(self) -> datetime | None:
        return self.started + timedelta(minutes=self.minutes) if self.started else None

    def at(self, now: datetime) -> dict:
        """{"state": "waiting"|"running"|"warning"|"over", "remaining_s", "ends"} at `now`."""
        if self.started is None:
            return {"state": "waiting", "remaining_s": round(self.minutes * 60), "ends": None}
        left = (self.ends - now).total_seconds()
        state = "over" if left <= 0 else "warning" if left <= self.warning_minutes * 60 else "running"
        return {"state": state, "remaining_s": max(0, round(left)), "ends": self.ends.isoformat()}


# --- scores ----------------------------------------------------------------------------------------
def session_scores(players: Sequence[str], hands: Iterable[tuple[datetime, dict[str, int]]],
                   ends: datetime | None) -> dict[str, int]:
    """Each player's score in a session: the sum of the deltas of the hands whose result was
    recorded before the end of time. Seed 004: at the time limit "the current hand is then not
    played to a finish, and the players score the points they have so far accumulated before the
    current hand started" - the hand in play is not scored."""
    out = {p: 0 for p in players}
    for at, deltas in hands:
        if ends is not None and at > ends:
            continue
        for p, d in deltas.items():
            if p in out:
                out[p] += d
    return out


def placement_points(scores: dict[str, int], points: Sequence[float] = PLACE_POINTS) -> dict[str, float]:
    """Places by score; players on the same score share their places' points (2nd and 3rd: 1.5 each)."""
    order = sorted(scores, key=lambda p: -scores[p])
    out: dict[str, float] = {}
    i = 0
    while i < len(order):
        tied = [p for p in order if scores[p] == scores[order[i]]]
        share = sum(points[i:i + len(tied)]) / len(tied)
        for p in tied:
            out[p] = share
        i += len(tied)
    return out


@dataclass
class Standing:
    player: str
    table_points: float = 0.0
    score: int = 0
    penalties: int = 0
    sessions: int = 0
    rank: int = 0
    per_session: list[dict] = field(default_factory=list)


def rank(players: Sequence[str], sessions: Sequence[dict[str, int]], penalties: dict[str, int]) -> list[Standing]:
    """The ranking: table points (placement at each session's table), then score less penalties.
    `sessions`: per session, each seated player's session score, keyed by table: {table: {p: s}}."""
    rows = {p: Standing(p) for p in players}
    for n, session in enumerate(sessions, 1):
        for table, scores in session.items():
            places = placement_points(scores)
            for p, s in scores.items():
                row = rows.setdefault(p, Standing(p))
                row.table_points += places[p]
                row.score += s
                row.sessions += 1
                row.per_session.append({"session": n, "table": table, "score": s, "points": places[p]})
    for p, pts in penalties.items():
        rows.setdefault(p, Standing(p)).penalties += pts
    ordered = sorted(rows.values(), key=lambda r: (-r.table_points, -(r.score - r.penalties), r.player.casefold()))
    for i, r in enumerate(ordered, 1):
        r.rank = i
    return ordered


def ema_csv(standings: Sequence[Standing], ema_ids: dict[str, str] | None = None,
            countries: dict[str, str] | None = None) -> str:
    """The results as the EMA's results sheet asks for them: rank, name, EMA number, country,
    table points, score (penalties already taken off, and given apart)."""
    ema_ids, countries = ema_ids or {}, countries or {}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "name", "ema_id", "country", "table_points", "score", "penalties", "sessions"])
    for r in standings:
        w.writerow([r.rank, r.player, ema_ids.get(r.player, ""), countries.get(r.player, ""),
                    f"{r.table_points:g}", r.score - r.penalties, r.penalties, r.sessions])
    return buf.getvalue()
