"""Fold a game's event log through its variant into the state players see.

Pure: no I/O, no clock, no threads. Undo and correction are resolved first (an event
can be cancelled or replaced at any point in the past), then the remaining events are
applied in order, so everything after a corrected event is derived again. An event that
the game cannot accept at its place (e.g. a result after the game is over, which a
correction earlier in the log can cause) is set aside in `ignored` with the reason;
it never stops the rest of the game from being derived.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from companion.errors import N_, CompanionError, DiceError, GameRuleError
from companion.game.events import (
    Adjustment,
    Corrected,
    DiceAssigned,
    DiceThrown,
    GameEnded,
    GameEvent,
    GameResumed,
    GameStarted,
    HandDrawn,
    HandWon,
    Penalty,
    PlayerRenamed,
    Recorded,
    Redeal,
    SeatsChosen,
    Undone,
    WallBroken,
)
from companion.game.players import check_players
from companion.game.standings import standings
from companion.rules import rotation as rot
from companion.rules.seats import WINDS
from companion.rules.settlement import HandResult, settle
from companion.rules.variant import Variant
from companion.rules.wall import Break, Square, break_wall, locate_break, position_of, thrower


@dataclass
class PendingThrow:
    """A throw with cocked dice waiting to be thrown again (R18)."""

    by: str | None
    faces: list[int]
    cocked: list[int]
    source: str = "manual"


@dataclass(frozen=True)
class Seating:
    """The first East being chosen by throws (`[seating] first_east`): who still throws this round."""

    method: str
    #: players (by index) who throw in this round, in order; ties throw again (seed 003)
    contenders: tuple[int, ...] = (0, 1, 2, 3)
    #: the totals thrown so far this round, by the contenders in order
    totals: tuple[int, ...] = ()


@dataclass
class GameState:
    """Everything derived from one game's log. `to_json()` is what phones and `--json` show."""

    game: int
    variant: Variant
    players: list[str]
    rotation: rot.Rotation = field(default_factory=rot.Rotation)
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    pot: int = 0
    throws: list[list[int]] = field(default_factory=list)
    throw_events: list[int] = field(default_factory=list)
    #: where each throw came from: "serial"/"sim" (a dice box: no dice lie on the table) or
    #: "phone"/"manual"/"camera" (ordinary dice thrown on the table)
    throw_sources: list[str] = field(default_factory=list)
    pending: PendingThrow | None = None
    _brk: Break | None = field(default=None, repr=False)
    observed_break: tuple[str, int] | None = None
    unassigned: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[dict[str, Any]] = field(default_factory=list)
    #: the error that set each ignored event aside, by event id (not shown to players)
    rejections: dict[int, CompanionError] = field(default_factory=dict)
    last_event: int = 0
    #: effective events (after undo/correction) that were applied, by id
    applied: list[int] = field(default_factory=list)
    #: choosing the first East (`[seating] first_east`): None once decided or when typed
    seating: Seating | None = None
    #: throws made for choosing seats (never break throws)
    seat_throws: list[dict[str, Any]] = field(default_factory=list)
    #: how the seats were settled: {"event", "how", "east"} (None: as typed)
    seated: dict[str, Any] | None = None
    #: penalties and adjustments, in order
    adjustments: list[dict[str, Any]] = field(default_factory=list)
    #: misdeals declared (R25/R26), in order
    redeals: list[dict[str, Any]] = field(default_factory=list)
    #: set when the game was ended early (by time or agreement)
    ended: dict[str, Any] | None = None
    #: what each hand in `history` put into (+) or took from (-) the pot, for the zero-sum check
    hand_pot: list[int] = field(default_factory=list, repr=False)

    # --- derived views ----------------------------------------------------------------------
    @property
    def dice_complete(self) -> bool:
        return len(self.throws) == len(self.variant.dice.throws)

    @property
    def brk(self) -> Break | None:
        """This hand's break once all throws are in; computed on first use (past hands never need it)."""
        if self._brk is None and self.dice_complete:
            self._brk = break_wall(self.variant, self.throws)
        return self._brk

    @property
    def dealer(self) -> int:
        return self.rotation.dealer

    @property
    def east(self) -> str:
        return self.players[self.dealer]

    @property
    def game_over(self) -> bool:
        return self.ended is not None or rot.game_over(self.variant, self.rotation)

    @property
    def prevalent(self) -> str:
        return rot.prevalent_wind(self.variant, self.rotation)

    @property
    def hand(self) -> int:
        """1-based number of the hand about to be played (or the last one, once the game is over)."""
        return self.rotation.hands + (0 if self.game_over else 1)

    def seat_wind(self, player: int) -> str:
        return self.rotation.seat_wind(player)

    def expected_throw(self) -> dict[str, Any] | None:
        """The throw the game waits for next: index (1-based) and who throws; None when none is due."""
        if self.game_over:
            return None
        if self.seating is not None:
            if self.seating.method == "wind_tiles":
                return None  # the seats come from the wind tiles drawn, not from dice
            todo = self.seating.contenders
            return {"index": len(self.seating.totals) + 1, "of": len(todo),
                    "by": self.players[todo[len(self.seating.totals)]], "rethrow": [], "for": "seats"}
        if self.dice_complete:
            return None
        index = len(self.throws)
        by = self.pending.by if self.pending else thrower(self.variant, index, self.throws)
        return {"index": index + 1, "of": len(self.variant.dice.throws), "by": by,
                "rethrow": list(self.pending.cocked) if self.pending else []}

    @property
    def phase(self) -> str:
        if self.game_over:
            return "over"
        if self.seating is not None:
            return "seating"
        return "play" if self.dice_complete else "throw"

    def last_dice(self) -> list[int] | None:
        """The latest complete throw, of this hand or else of the hand before."""
        if self.throws:
            return self.throws[-1]
        if self.history and self.history[-1]["dice"]:
            return self.history[-1]["dice"][-1]
        return None

    def break_check(self) -> dict[str, Any] | None:
        """Does the wall as broken (camera or player) agree with the dice?"""
        if self.observed_break is None or self.brk is None:
            return None
        expected = [self.brk.wall, self.brk.stack]
        return {"expected": expected, "observed": list(self.observed_break), "ok": list(self.observed_break) == expected}

    def copy(self) -> GameState:
        """A copy that further events can be applied to while this state stays as it is: every
        list, dict and set it holds is copied (one level: `apply` adds to them or replaces them,
        and never changes what they hold once it is in; the live fold relies on it)."""
        return replace(self, **{f.name: type(v)(v) for f in fields(self)
                                if type(v := getattr(self, f.name)) in (list, dict, set)})

    def seating_json(self) -> dict[str, Any]:
        """How the first East is chosen and where that stands (`first_east`)."""
        seating = self.seating
        return {"method": self.variant.seating.first_east, "open": seating is not None,
                "to_throw": [self.players[p] for p in seating.contenders[len(seating.totals):]]
                if seating and seating.method != "wind_tiles" else [],
                "throws": list(self.seat_throws), "decided": self.seated}

    def zero_sum_problems(self) -> list[str]:
        """Every hand's payments and every adjustment sum to zero (what a hand puts into the pot
        counts as paid): the places where they do not, none in a sound game."""
        problems = [f"hand {h['hand']} (event {h['event']}): payments sum to {sum(h['deltas'].values()) + pot:+d}"
                    for h, pot in zip(self.history, self.hand_pot) if sum(h["deltas"].values()) + pot]
        problems += [f"{a['kind']} (event {a['event']}) sums to {sum(a['deltas'].values()):+d}"
                     for a in self.adjustments if sum(a["deltas"].values())]
        total = sum(self.scores) + self.pot - 4 * self.variant.settlement.start_score
        if total:
            problems.append(f"the scores and the pot sum to {total:+d} more than the start")
        return problems

    def to_json(self, *, history: int | None = None) -> dict[str, Any]:
        """With `history`, only the latest that many hand results: what a phone is sent on every
        event stays the same size however long the game (`history_count` says how many there are;
        the History view reads the log page by page). Without, every hand (replay, --json)."""
        return {
            "game": self.game,
            "variant": {"name": self.variant.name, "title": self.variant.title, "terms": self.variant.terms,
                        "stacks_per_wall": self.variant.stacks_per_wall, "count_from": self.variant.break_.count_from,
                        "seating": self.variant.seating.direction, "counter": self.variant.rotation.counter,
                        "scoring": self.variant.scoring,
                        "several_winners": self.variant.claims.several_winners},
            "players": list(self.players),
            "east": self.east,
            "dealer": self.dealer,
            "seat_winds": {p: self.seat_wind(i) for i, p in enumerate(self.players)},
            "seats": {w: self.players[self.rotation.player_at(w)] for w in WINDS},
            "prevalent": self.prevalent,
            "round": min(self.rotation.round_index, len(self.variant.rounds.winds) - 1) + 1,
            "rounds": len(self.variant.rounds.winds),
            "hand": self.hand,
            "hand_in_round": self.rotation.hand_in_round,
            "counter": self.rotation.counter,
            "game_over": self.game_over,
            "phase": self.phase,
            "scores": {p: self.scores[i] for i, p in enumerate(self.players)},
            "pot": self.pot,
            "expected_throw": self.expected_throw(),
            "throws": [{"event": e, "faces": f, "source": src}
                       for e, f, src in zip(self.throw_events, self.throws, self.throw_sources)],
            "last_dice": self.last_dice(),
            "break": self.brk.to_json() if self.brk else None,
            "break_check": self.break_check(),
            "unassigned_rolls": list(self.unassigned),
            "history": list(self.history if history is None else self.history[-history:] if history else []),
            "history_count": len(self.history),
            "ignored": list(self.ignored),
            "seating": self.seating_json(),
            # like the history: with `history`, the latest that many (what phones are sent stays small)
            "adjustments": list(self.adjustments if history is None else self.adjustments[-history:] if history else []),
            "redeals": list(self.redeals if history is None else self.redeals[-history:] if history else []),
            "ended": self.ended,
            "standings": standings(self.players, self.scores, self.variant),
            "last_event": self.last_event,
            # what a phone's write names as the state it was made on (If-Match; companion/web/writes.py)
            "version": self.last_event,
        }


def effective_events(records: Sequence[Recorded]) -> list[tuple[Recorded, GameEvent]]:
    """Resolve undo and correction: the events that count, in log order, as corrected.

    An undo always comes after its target, so walking the log backwards settles every
    event's fate before the event itself is reached (an undo of an undo revives its target).
    """
    cancelled, replaced = _resolve(records)
    return [
        (r, replaced.get(r.id, r.event))
        for r in records
        if r.id not in cancelled and not isinstance(r.event, (Undone, Corrected))
    ]


def _resolve(records: Sequence[Recorded]) -> tuple[set[int], dict[int, GameEvent]]:
    """(ids of the events undone, the latest correction of each corrected event)."""
    cancelled: set[int] = set()
    replaced: dict[int, GameEvent] = {}
    for r in reversed(records):
        if r.id in cancelled:
            continue
        if isinstance(r.event, Undone):
            cancelled.add(r.event.target)
        elif isinstance(r.event, Corrected):
            replaced.setdefault(r.event.target, r.event.event)  # the latest correction wins
    return cancelled, replaced


def check_meta(records: Sequence[Recorded], event: Undone | Corrected, *, live: LiveFold | None = None) -> None:
    """An undo or correction must point at an earlier event of this game that can be changed
    and that still counts (undoing twice would make an undo of the undo revive nothing). With
    `live` (the fold of `records`), without reading the whole log."""
    if live is not None:
        target, cancelled = live.record(event.target), live._resolution[0]
    else:
        target, cancelled = {r.id: r for r in records}.get(event.target), _resolve(records)[0]
    if target is None:
        raise GameRuleError(N_("event %(id)s is not part of this game"), id=event.target)
    if event.target in cancelled:
        if isinstance(event, Corrected):
            raise GameRuleError(N_("event %(id)s is already undone; undo that undo first to correct it"),
                                id=event.target)
        raise GameRuleError(N_("event %(id)s is already undone"), id=event.target)
    if isinstance(target.event, GameStarted):
        raise GameRuleError(N_("the start of a game cannot be undone or corrected; start a new game instead"))
    if isinstance(target.event, GameResumed):
        raise GameRuleError(N_("the reopening of a game cannot be undone; reopen the other game instead"))
    if isinstance(event, Corrected) and isinstance(target.event, (Undone, Corrected)):
        raise GameRuleError(N_("an undo or correction cannot be corrected; undo it instead"))
    if isinstance(event, Corrected) and type(target.event) is not type(event.event) and not (
        isinstance(target.event, (HandWon, HandDrawn)) and isinstance(event.event, (HandWon, HandDrawn))
    ):
        raise GameRuleError(N_("a correction must replace an event of the same kind (a result by a result)"))


def fold(records: Sequence[Recorded], *, before: int | None = None) -> GameState:
    """The state of the game whose log is `records` (its GameStarted first); with `before` (an
    event id), the state just before that event as the game now stands: undos and corrections
    recorded after it count (the seats of an old hand, for a correction of it)."""
    if not records or not isinstance(records[0].event, GameStarted):
        raise GameRuleError("a game's log must begin with the start of the game")
    state = _new_state(records[0])
    state.last_event = records[-1].id
    for record, event in effective_events(records[1:]):
        if before is not None and record.id >= before:
            break
        _step(state, record, event)
    return state


def _start(records: Sequence[Recorded]) -> GameState:
    """The state of a game that has just begun (its log's first record, the start)."""
    if not records or not isinstance(records[0].event, GameStarted):
        raise GameRuleError("a game's log must begin with the start of the game")
    state = _new_state(records[0])
    state.last_event = records[0].id
    return state


def _new_state(start: Recorded) -> GameState:
    assert isinstance(start.event, GameStarted)
    variant = start.event.variant
    state = GameState(game=start.id, variant=variant, players=list(start.event.players))
    state.scores = [variant.settlement.start_score] * 4
    if variant.seating.first_east != "typed":
        state.seating = Seating(variant.seating.first_east)
    return state


def _step(state: GameState, record: Recorded, event: GameEvent) -> None:
    """Apply one effective event, or set it aside with the reason the game refuses it."""
    try:
        apply(state, record.id, event)
    except CompanionError as e:
        state.ignored.append({"event": record.id, "type": record.type, "reason": str(e)})
        state.rejections[record.id] = e
    else:
        if not isinstance(event, GameResumed):  # "undo the latest" never means a reopening
            state.applied.append(record.id)


class LiveFold:
    """One game's state kept up to date as its log grows: always equal to `fold(records)`, without
    folding the whole log on every event (a long game has thousands).

    An ordinary event is applied to a copy of the state before it. An undo or correction may change
    any earlier event: the game is derived again from the latest checkpoint (the state every
    `CHECKPOINT_EVERY` records) before the earliest event whose fate it changes, so undoing the
    last throw costs a few events and correcting a hand of hours ago a part of the log. Pure and
    persistent: `then()` returns a new fold and leaves this one (its state, its checkpoints) as it
    was, so a refused event changes nothing.
    """

    CHECKPOINT_EVERY = 128

    def __init__(self, records: Sequence[Recorded]) -> None:
        self.records: list[Recorded] = list(records)
        self._ids = [r.id for r in self.records]
        self._resolution = _resolve(self.records)
        #: (index i, the state after the effective events among records[1:i]), i ascending
        self._checkpoints: list[tuple[int, GameState]] = [(1, _start(self.records))]
        self.state = self._derive()

    def then(self, record: Recorded) -> LiveFold:
        """The fold of this log with `record` appended (an id above every id in it)."""
        if self._ids and record.id <= self._ids[-1]:
            raise ValueError(f"event {record.id} is not newer than event {self._ids[-1]}")
        new = LiveFold.__new__(LiveFold)
        new.records = [*self.records, record]
        new._ids = [*self._ids, record.id]
        if not isinstance(record.event, (Undone, Corrected)):
            # nothing earlier changes: the record applies to the state before it
            new._resolution = self._resolution
            new._checkpoints = list(self._checkpoints)
            state = self.state.copy()
            _step(state, record, record.event)
            state.last_event = record.id
            new.state = state
            if (len(new.records) - 1) % self.CHECKPOINT_EVERY == 0:
                new._checkpoints.append((len(new.records), state))
            return new
        new._resolution = self._resolved_with(record.event) or _resolve(new.records)
        changed = _first_change(self._resolution, new._resolution)
        index = max(1, bisect_left(new._ids, changed)) if changed is not None else len(new.records)
        # checkpoints up to `index` saw every event before it as it still counts
        new._checkpoints = self._checkpoints[:bisect_right(self._checkpoints, index, key=lambda c: c[0])]
        new.state = new._derive()
        return new

    def record(self, event_id: int) -> Recorded | None:
        """The record with this id, if it is part of this log."""
        i = bisect_left(self._ids, event_id)
        return self.records[i] if i < len(self._ids) and self._ids[i] == event_id else None

    def check_meta(self, event: Undone | Corrected) -> None:
        """`check_meta(records, event)` for this fold's log."""
        check_meta(self.records, event, live=self)

    def _resolved_with(self, event: Undone | Corrected) -> tuple[set[int], dict[int, GameEvent]] | None:
        """The resolution with `event` appended, where it changes one event only: an undo or a
        correction of an ordinary event (what `_resolve` of the whole log would give). None for an
        undo or correction of an undo or correction: those are resolved from the whole log."""
        target = self.record(event.target)
        if target is None or isinstance(target.event, (Undone, Corrected)):
            return None
        cancelled, replaced = self._resolution
        if isinstance(event, Undone):
            return cancelled | {event.target}, replaced
        return cancelled, {**replaced, event.target: event.event}  # the latest correction wins

    def recorded_as(self, record: Recorded) -> LiveFold:
        """This fold with its last record replaced by `record` as stored (the same event and id,
        the store's time): what `then(record)` gives, without deriving anything again."""
        last = self.records[-1]
        if record.id != last.id or record.event is not last.event:
            raise ValueError("the record stored is not the one tried")
        new = LiveFold.__new__(LiveFold)
        new.records = [*self.records[:-1], record]
        new._ids, new._resolution, new._checkpoints, new.state = self._ids, self._resolution, self._checkpoints, self.state
        return new

    def state_before(self, before: int) -> GameState:
        """`fold(records, before=before)`: the state just before event `before`, as the game now stands."""
        return self._derive(max(1, bisect_left(self._ids, before)), keep=False)

    def _derive(self, stop: int | None = None, *, keep: bool = True) -> GameState:
        """The state after the effective events among records[1:stop] (all with None), from the
        latest checkpoint at or before `stop`; with `keep`, checkpoints are made on the way."""
        end = len(self.records) if stop is None else stop
        index, state = self._checkpoints[bisect_right(self._checkpoints, end, key=lambda c: c[0]) - 1]
        state = state.copy()
        cancelled, replaced = self._resolution
        for i in range(index, end):
            r = self.records[i]
            if r.id not in cancelled and not isinstance(r.event, (Undone, Corrected)):
                _step(state, r, replaced.get(r.id, r.event))
            if keep and i % self.CHECKPOINT_EVERY == 0:  # the state after records[1:i + 1]
                self._checkpoints.append((i + 1, state.copy()))
        state.last_event = self._ids[-1]
        return state


def _first_change(old: tuple[set[int], dict[int, GameEvent]], new: tuple[set[int], dict[int, GameEvent]]
                  ) -> int | None:
    """The earliest event whose fate (undone, or what it was corrected to) differs between two resolutions."""
    (old_cancelled, old_replaced), (new_cancelled, new_replaced) = old, new
    changed = old_cancelled ^ new_cancelled
    changed.update(k for k in old_replaced.keys() | new_replaced.keys() if old_replaced.get(k) is not new_replaced.get(k))
    return min(changed, default=None)


def apply(state: GameState, event_id: int, event: GameEvent) -> None:
    """Apply one effective event; raise GameRuleError/DiceError if it cannot happen now."""
    match event:
        case DiceThrown():
            _dice(state, event_id, event)
        case DiceAssigned():
            _assign(state, event)
        case WallBroken():
            _observed_break(state, event)
        case HandWon():
            _hand_over(state, event_id, event, winner=event.winner)
        case HandDrawn():
            _hand_over(state, event_id, event, winner=None)
        case PlayerRenamed():
            _rename(state, event)
        case GameResumed():
            pass  # the game goes on where it was
        case Redeal():
            _redeal(state, event_id, event)
        case Penalty():
            _penalty(state, event_id, event)
        case Adjustment():
            _adjust(state, event_id, "adjustment", event.deltas, event.reason)
        case GameEnded():
            _end(state, event_id, event)
        case SeatsChosen():
            _seats(state, event_id, event.order, event.how)
        case GameStarted():
            raise GameRuleError("a new game starts a new log")
        case _:
            raise GameRuleError(f"unknown event {type(event).__name__}")


def _rename(state: GameState, ev: PlayerRenamed) -> None:
    """The player keeps their seat, score and history (by index); only the name changes, checked
    as a new game's names are. A new list: a state copied for a trial shares the old one."""
    _check_player(state, ev.player, "player")
    players = list(state.players)
    players[ev.player] = ev.name
    state.players = check_players(players)


def _check_player(state: GameState, p: int | None, what: str) -> None:
    if p is not None and not 0 <= p < len(state.players):
        raise GameRuleError(N_("%(what)s: no player %(player)s at this table"), what=what, player=p)


def check_cocked(ev: DiceThrown) -> None:
    """A new throw's `cocked` names each cocked die once, and only dice that were thrown (R18).

    The fold itself reads a repeated index as one (a log written before this check may hold
    `[0, 0, 0]`, and must fold as it did); a new event is refused instead of being stored so."""
    stray = sorted({c for c in ev.cocked if not 0 <= c < len(ev.faces)})
    if stray:  # the event counts from 0, players from 1
        raise DiceError(N_("cocked die %(cocked)s is not one of the %(n)s dice thrown"),
                        cocked=", ".join(str(c + 1) for c in stray), n=len(ev.faces))
    twice = sorted({c for c in ev.cocked if ev.cocked.count(c) > 1})
    if twice:
        raise DiceError(N_("cocked die %(cocked)s is listed more than once"),
                        cocked=", ".join(str(c + 1) for c in twice))


def _dice(state: GameState, event_id: int, ev: DiceThrown) -> None:
    if state.game_over:
        raise GameRuleError(N_("the game is over"))
    n = state.variant.dice.dice
    cocked = sorted(set(ev.cocked))
    if stray := [c for c in cocked if not 0 <= c < len(ev.faces)]:  # the event counts from 0, players from 1
        raise DiceError(N_("cocked die %(cocked)s is not one of the %(n)s dice thrown"),
                        cocked=", ".join(str(c + 1) for c in stray), n=len(ev.faces))
    for i, face in enumerate(ev.faces):
        if not (1 <= face <= 6 or (i in cocked and face == 0)):
            raise DiceError(N_("a die shows 1 to 6, not %(face)s"), face=face)
    if state.seating is not None:
        if state.seating.method != "wind_tiles":
            _seat_throw(state, event_id, ev, cocked)
            return
        state.seating = None  # no draw of wind tiles recorded: the table sits as the names were entered
    if state.dice_complete:
        # R17/R19 are done for this hand: keep the roll for a player to assign or discard; a roll
        # of more dice than the game throws could never be assigned
        if len(ev.faces) > n:
            raise DiceError(N_("expected %(n)s dice, got %(got)s"), n=n, got=len(ev.faces))
        roll = {"event": event_id, "faces": list(ev.faces), "source": ev.source}
        if cocked:
            roll["cocked"] = cocked
        state.unassigned.append(roll)
        return
    if state.pending is not None and len(ev.faces) == len(state.pending.cocked) < n:
        # R18: only the cocked dice are thrown again
        faces = list(state.pending.faces)
        for die, face in zip(state.pending.cocked, ev.faces):
            faces[die] = face
        still = [state.pending.cocked[i] for i in cocked]
        by = state.pending.by
    elif len(ev.faces) == n:
        faces, still = list(ev.faces), cocked
        by = thrower(state.variant, len(state.throws), state.throws)
    else:
        if state.pending:
            raise DiceError(N_("expected %(n)s dice (or the %(again)s to throw again), got %(got)s"),
                            n=n, again=len(state.pending.cocked), got=len(ev.faces))
        raise DiceError(N_("expected %(n)s dice, got %(got)s"), n=n, got=len(ev.faces))
    if still:
        state.pending = PendingThrow(by, faces, still, ev.source)  # R18: a cocked die must be thrown again
        return
    state.pending = None
    state.throws.append(faces)
    state.throw_events.append(event_id)
    state.throw_sources.append(ev.source)


def _assign(state: GameState, ev: DiceAssigned) -> None:
    """An unassigned roll becomes the throw the game expects now (as if it had just arrived)."""
    roll = next((u for u in state.unassigned if u["event"] == ev.roll), None)
    if roll is None:
        raise GameRuleError(N_("event %(id)s is not an unassigned roll"), id=ev.roll)
    if state.game_over or state.dice_complete:
        raise GameRuleError(N_("no throw is due now: the wall is already broken for this hand"))
    _dice(state, ev.roll, DiceThrown(faces=roll["faces"], source=roll["source"], cocked=roll.get("cocked", [])))
    state.unassigned.remove(roll)


def _observed_break(state: GameState, ev: WallBroken) -> None:
    try:
        position_of(Square.for_variant(state.variant), ev.seat, ev.stack)
    except ValueError as e:
        raise GameRuleError(str(e)) from None
    state.observed_break = (ev.seat, ev.stack)


def _hand_over(state: GameState, event_id: int, ev: HandWon | HandDrawn, *, winner: int | None) -> None:
    if state.game_over:
        raise GameRuleError(N_("the game is over: start a new game"))
    _check_seated(state)
    discarder = ev.discarder if isinstance(ev, HandWon) else None
    _check_player(state, winner, "winner")
    _check_player(state, discarder, "discarder")
    if winner is not None and discarder == winner:
        raise GameRuleError(N_("a player cannot win on their own discard; leave 'from' empty for self-drawn"))
    for p in ev.riichi:
        _check_player(state, p, "riichi")
    ready = tuple(ev.ready) if isinstance(ev, HandDrawn) else ()
    for p in ready:
        _check_player(state, p, "ready")
    scores = ev.hand_scores if isinstance(ev, HandWon) else {}
    for p in scores:
        _check_player(state, p, "hand score")
    also = list(ev.also) if isinstance(ev, HandWon) else []
    _check_also(state, winner, discarder, also)
    wins = [(winner, ev.value, ev.fu)] if isinstance(ev, HandWon) else [(None, None, None)]
    wins += [(a.winner, a.value, a.fu) for a in also]
    if also:  # several winners: the one next in turn after the discarder comes first (players sit
        # in index order round the table), and takes the sticks on the table and the counter's bonus
        wins.sort(key=lambda w: (w[0] - discarder) % 4)
    winners = [w for w, _, _ in wins]
    before = state.rotation
    deltas, pot = [0, 0, 0, 0], state.pot
    for i, (who, value, fu) in enumerate(wins):  # each settled as if alone; the other winners
        # neither pay for it nor are paid; riichi sticks and the losers' own settling count once
        result = HandResult(winner=who, discarder=discarder, value=value, fu=fu,
                            hand_scores=dict(scores) if i == 0 else {}, riichi=tuple(ev.riichi) if i == 0 else (),
                            ready=ready, also_won=tuple(w for w in winners if w != who))
        payment = settle(state.variant.settlement, result, dealer=before.dealer,
                         counter=before.counter if i == 0 else 0, pot=pot if i == 0 else 0)
        deltas = [d + e for d, e in zip(deltas, payment.deltas)]
        if i == 0:
            pot = payment.pot
    state.scores = [s + d for s, d in zip(state.scores, deltas)]
    state.hand_pot = [*state.hand_pot, pot - state.pot]
    state.pot = pot
    names = state.players
    state.history.append({
        "event": event_id,
        "hand": before.hands + 1,
        "prevalent": rot.prevalent_wind(state.variant, before),
        "east": names[before.dealer],
        "counter": before.counter,
        "result": "win" if winner is not None else "draw",
        "winner": names[winner] if winner is not None else None,
        "from": names[discarder] if discarder is not None else None,
        "value": ev.value if isinstance(ev, HandWon) else None,
        "fu": ev.fu if isinstance(ev, HandWon) else None,
        "dice": [list(t) for t in state.throws],
        "break": _break_position(state),
        "deltas": {names[i]: d for i, d in enumerate(deltas)},
        **({"also": [{"winner": names[a.winner], "value": a.value, "fu": a.fu} for a in also]} if also else {}),
    })
    # several winners: East keeps the seat when East is one of them (as for a win of East's own)
    keeps = winner if before.dealer not in winners else before.dealer
    state.rotation = rot.after_hand(state.variant, before, winner=keeps, dealer_ready=before.dealer in ready)
    # a new hand: new wall, new dice (unassigned rolls stay until a player deals with them)
    state.throws, state.throw_events, state.throw_sources, state.pending = [], [], [], None
    state._brk, state.observed_break = None, None


def _check_also(state: GameState, winner: int | None, discarder: int | None, also: list) -> None:
    """Others who won on the same discard: only where the variant lets several win (seed 002),
    on a discard, each player once and none of them the discarder."""
    if not also:
        return
    if not state.variant.claims.several_winners:
        raise GameRuleError(N_("only one player can win on a discard under these rules"))
    if discarder is None:
        raise GameRuleError(N_("several winners are possible only on a discard, not on a self-drawn tile"))
    seen = {winner}
    for a in also:
        _check_player(state, a.winner, "also won")
        if a.winner == discarder:
            raise GameRuleError(N_("a player cannot win on their own discard; leave 'from' empty for self-drawn"))
        if a.winner in seen:
            raise GameRuleError(N_("%(player)s is named twice among the winners"), player=state.players[a.winner])
        seen.add(a.winner)


def _break_position(state: GameState) -> list | None:
    if not state.dice_complete:
        return None
    _, _, at = locate_break(state.variant, state.throws)
    return [at.seat, at.stack]


# --- a whole game: seats, misdeals, penalties, the end ------------------------------------------

def _check_seated(state: GameState) -> None:
    """A hand needs its seats. A table that plays without recording the choice sits as the names
    were entered; one that began throwing for the seats finishes first."""
    if state.seating is not None and not state.seat_throws:
        state.seating = None
    if state.seating is not None:
        raise GameRuleError(N_("the first East is not chosen yet: throw for the seats, or record them (seats)"))


def _seat_throw(state: GameState, event_id: int, ev: DiceThrown, cocked: list[int]) -> None:
    """A throw for the first East (seed 003: "höchste Augenzahl mit beiden Würfeln"; ties throw
    again). Never a break throw: the break's throws start once the seats are settled."""
    seating = state.seating
    assert seating is not None
    n = state.variant.dice.dice
    if cocked:  # R18: a cocked die is thrown again; for the seats the whole throw is
        raise DiceError(N_("a cocked die: throw for the seats again"))
    if len(ev.faces) != n:
        raise DiceError(N_("expected %(n)s dice, got %(got)s"), n=n, got=len(ev.faces))
    by = seating.contenders[len(seating.totals)]
    total = sum(ev.faces)
    state.seat_throws = [*state.seat_throws, {"event": event_id, "by": state.players[by], "faces": list(ev.faces),
                                              "total": total, "source": ev.source}]
    if seating.method == "counted_throw":
        # one throw, counted round the table from the thrower as 1 (as R17 counts the walls)
        _seat_order(state, event_id, (by + total - 1) % 4, "dice")
        return
    totals = (*seating.totals, total)
    if len(totals) < len(seating.contenders):
        state.seating = replace(seating, totals=totals)
        return
    best = max(totals)
    tied = tuple(p for p, t in zip(seating.contenders, totals) if t == best)
    if len(tied) > 1:  # seed 003 names the highest throw; a tie is thrown again by those tied
        state.seating = replace(seating, contenders=tied, totals=())
        return
    _seat_order(state, event_id, tied[0], "dice")


def _seat_order(state: GameState, event_id: int, east: int, how: str) -> None:
    """`east` is the first East; the others keep their places round the table (seed 003: "Für die
    anderen Spieler ergibt sich damit der Wind aus der Reihenfolge am Tisch")."""
    _permute(state, event_id, [(east + k) % 4 for k in range(4)], how)


def _seats(state: GameState, event_id: int, order: list[int], how: str) -> None:
    """Seats recorded before hand 1 (wind tiles drawn, seed 004; or typed)."""
    if sorted(order) != [0, 1, 2, 3]:
        raise GameRuleError(N_("the seats must name each of the four players once"))
    if state.game_over or state.rotation.hands or state.throws or state.pending or state.history:
        raise GameRuleError(N_("the seats are chosen before the first hand; this game is under way"))
    _permute(state, event_id, order, how)


def _permute(state: GameState, event_id: int, order: list[int], how: str) -> None:
    """Players are indexed by their first-hand seat: from here on, by these seats."""
    state.players = [state.players[p] for p in order]
    state.scores = [state.scores[p] for p in order]
    state.seating = None
    state.seated = {"event": event_id, "how": how, "east": state.players[0]}


def _redeal(state: GameState, event_id: int, ev: Redeal) -> None:
    """R25/R26: a misdeal; everything is reshuffled and the wall broken elsewhere: new throws."""
    if state.game_over:
        raise GameRuleError(N_("the game is over"))
    _check_seated(state)
    if not (state.throws or state.pending or state.observed_break):
        raise GameRuleError(N_("nothing to redeal: no throw has been made for this hand"))
    state.throws, state.throw_events, state.throw_sources, state.pending = [], [], [], None
    state._brk, state.observed_break = None, None
    state.redeals = [*state.redeals, {"event": event_id, "hand": state.hand, "reason": ev.reason}]


def _penalty(state: GameState, event_id: int, ev: Penalty) -> None:
    """The player pays `points`, a third to each of the others (seed 004: a false mahjong, a
    wrong number of tiles)."""
    _check_player(state, ev.player, "penalty")
    if ev.points % 3:
        raise GameRuleError(N_("a penalty of %(points)s cannot be shared equally by three players; "
                               "give a multiple of 3"), points=ev.points)
    share = ev.points // 3
    _adjust(state, event_id, "penalty", {p: -ev.points if p == ev.player else share for p in range(4)}, ev.reason)


def _adjust(state: GameState, event_id: int, kind: str, deltas: dict[int, int], reason: str) -> None:
    """Scores moved outside a hand; they must sum to zero, as a hand's payments do."""
    for p in deltas:
        _check_player(state, p, kind)
    if not any(deltas.values()):
        raise GameRuleError(N_("an adjustment must move some points"))
    if total := sum(deltas.values()):
        raise GameRuleError(N_("an adjustment must sum to zero; this one sums to %(total)s"), total=f"{total:+d}")
    state.scores = [s + deltas.get(i, 0) for i, s in enumerate(state.scores)]
    state.adjustments = [*state.adjustments, {
        "event": event_id, "kind": kind, "hand": state.hand, "reason": reason,
        "deltas": {state.players[p]: d for p, d in sorted(deltas.items())}}]


def _end(state: GameState, event_id: int, ev: GameEnded) -> None:
    """Seed 004: "The current hand is then not played to a finish, and the players will score the
    points they have so far accumulated before the current hand started." """
    if state.game_over:
        raise GameRuleError(N_("the game is over"))
    state.ended = {"event": event_id, "how": ev.how, "reason": ev.reason, "hands": state.rotation.hands}
    state.throws, state.throw_events, state.throw_sources, state.pending = [], [], [], None
    state._brk, state.observed_break = None, None
    state.seating = None
