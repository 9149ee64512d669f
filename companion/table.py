"""The table: the game log, the state derived from it, and who hears about changes.

Every change to a game goes through `Table.record()`: the event is first tried against
the game (folded with everything before it); only an event the game accepts is written,
so a bad request, a garbled dice line or a result after the game is over changes nothing.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime

from companion.errors import N_, GameRuleError, NothingToUndo
from companion.game.events import Corrected, DiceAssigned, DiceThrown, Event, GameResumed, GameStarted, Recorded, Undone, encode
from companion.game.fold import GameState, LiveFold, check_cocked
from companion.game.players import check_players  # noqa: F401 (where the web and CLI import it)
from companion.hub import Hub
from companion.rules.seats import WINDS
from companion.rules.variant import Variant
from companion.storage import EventStore

DEFAULT_PLAYERS = ("East", "South", "West", "North")
#: hand results in the state phones are sent (the latest); the History view reads the rest from the log
HISTORY_TAIL = 8


class Table:
    """The live game. Thread-safe: the dice reader, the buttons and the web all record through it."""

    def __init__(self, store: EventStore, hub: Hub | None = None) -> None:
        self.store = store
        self.hub = hub or Hub()
        self._lock = threading.RLock()
        self._records: list[Recorded] = []
        self._state: GameState | None = None
        #: the game's state kept up to date event by event (`LiveFold`), its records and state above
        self._fold: LiveFold | None = None
        self._json: tuple[GameState | None, dict | None] = (None, None)
        game = store.current_game()  # the game written to last: a reopened one too
        if game is not None:  # resume where the last run (or crash) left off
            self._set_fold(LiveFold(store.events(game)))

    @property
    def state(self) -> GameState | None:
        with self._lock:
            return self._state

    def require_state(self) -> GameState:
        state = self.state
        if state is None:
            raise GameRuleError(N_("no game has been started"))
        return state

    def records(self) -> list[Recorded]:
        with self._lock:
            return list(self._records)

    @property
    def lock(self) -> threading.RLock:
        """Held while an event is tried and written; a caller that must check the version and write
        as one step (a web write's If-Match) holds it around both (it is re-entrant)."""
        return self._lock

    @property
    def version(self) -> int:
        """The state's version: the id of the game log's last record (0 before any game). Every
        recorded event raises it; ids only grow, also across restarts and new games."""
        with self._lock:
            return self._records[-1].id if self._records else 0

    # --- changing the game -------------------------------------------------------------------
    def start_game(self, variant: Variant, players: Sequence[str] = DEFAULT_PLAYERS, *,
                   key: str | None = None) -> Recorded:
        """Start a new game (the old one stays in the log). With a `key` seen before, nothing
        changes and the earlier start is returned (a retry); a key used for anything else is refused."""
        event = GameStarted(variant=variant, players=check_players(players))
        with self._lock:
            if key is not None:
                earlier = self.store.find_key(key)
                if earlier is not None:
                    if encode(earlier.event) != encode(event):
                        raise GameRuleError(N_("the request key “%(key)s” was used for another request "
                                               "(event %(id)s); send a new key"), key=key, id=earlier.id)
                    return earlier
            record, _ = self.store.append(event, key=key)
            self._set_fold(LiveFold([record]))
            state = self._state
        self._publish(record, state)
        return record

    def record(self, event: Event, *, key: str | None = None) -> Recorded:
        """Append `event` to the current game if the game accepts it; GameRuleError/DiceError if not.

        With a `key` seen before, nothing changes and the earlier record is returned (a retry);
        a key that came with another event (other dice, another result), or in an earlier game,
        is refused: the request it stands for is not the one recorded.
        """
        if isinstance(event, GameStarted):
            return self.start_game(event.variant, event.players, key=key)
        with self._lock:
            if self._state is None:
                raise GameRuleError(N_("no game has been started"))
            if key is not None:
                earlier = self.store.find_key(key)
                if earlier is not None:
                    if earlier.game != self._state.game or encode(earlier.event) != encode(event):
                        raise GameRuleError(N_("the request key “%(key)s” was used for another request "
                                               "(event %(id)s); send a new key"), key=key, id=earlier.id)
                    return earlier
            if isinstance(event, (Undone, Corrected)):
                self._fold.check_meta(event)  # type: ignore[union-attr]
            new_throw = event.event if isinstance(event, Corrected) else event
            if isinstance(new_throw, DiceThrown):
                check_cocked(new_throw)  # stored as it is meant (R18), not as it was sent
            assert self._fold is not None
            trial = Recorded(id=self._records[-1].id + 1, game=self._state.game,
                             at=datetime.now(UTC), event=event)
            tried = self._fold.then(trial)  # folded once, onto the state before it
            self._check_accepted(tried.state, trial)
            record, _ = self.store.append(event, game=self._state.game, key=key)
            # the id tried is the one stored unless the log gained a row elsewhere: then fold that one
            self._set_fold(tried.recorded_as(record) if record.id == trial.id else self._fold.then(record))
            state = self._state
        self._publish(record, state)
        return record

    @staticmethod
    def _check_accepted(tried: GameState, trial: Recorded) -> None:
        """Refuse an event the game set aside; for a correction, the replacement event, which
        is applied in the corrected event's place and under its id. (An undo or correction may
        set *later* events aside; that is allowed, and they show in the state's `ignored` list.)"""
        event = trial.event
        error = tried.rejections.get(event.target if isinstance(event, Corrected) else trial.id)
        if error is not None:
            raise error

    def undo(self, target: int | None = None, *, key: str | None = None) -> Recorded:
        """Undo `target`, or the latest event that still counts (NothingToUndo when none does)."""
        if target is None:
            earlier = self.store.find_key(key) if key is not None else None
            if earlier is not None and isinstance(earlier.event, Undone):
                target = earlier.event.target  # a retry: "the latest" was that one when it first came
        if target is None:
            state = self.require_state()
            if not state.applied:
                raise NothingToUndo("nothing to undo")
            target = state.applied[-1]
        return self.record(Undone(target=target), key=key)

    def correct(self, target: int, event: Event) -> Recorded:
        return self.record(Corrected(target=target, event=event))  # type: ignore[arg-type]

    def assign_roll(self, roll: int, *, key: str | None = None) -> Recorded:
        """Count the unassigned roll `roll` (an event id) as the throw due now; discard one with undo(roll)."""
        return self.record(DiceAssigned(roll=roll), key=key)

    def records_between(self, after: int = 0, before: int | None = None, limit: int | None = None) -> list[Recorded]:
        """The game's records with `after` < id < `before`, oldest first; with `limit`, the latest
        that many of them (a page of the History view, which reads the log backwards from its end)."""
        with self._lock:
            records = self._records
            lo = bisect_right(records, after, key=lambda r: r.id)
            hi = len(records) if before is None else bisect_left(records, before, key=lambda r: r.id)
            if limit is not None:
                lo = max(lo, hi - limit)
            return records[lo:hi]

    def reopen(self, game: int, *, key: str | None = None) -> Recorded:
        """Play on an earlier game (its id, the id of its start): a GameResumed is written to its
        log, which makes it the current game; the game left stays in the log, to be reopened too.
        With a `key` seen before, nothing changes and the earlier record is returned (a retry)."""
        with self._lock:
            if key is not None:
                earlier = self.store.find_key(key)
                if earlier is not None:
                    if not isinstance(earlier.event, GameResumed) or earlier.game != game:
                        raise GameRuleError(N_("the request key “%(key)s” was used for another request "
                                               "(event %(id)s); send a new key"), key=key, id=earlier.id)
                    return earlier
            if self._state is not None and self._state.game == game:
                raise GameRuleError(N_("game %(id)s is the game being played"), id=game)
            records = self.store.events(game)
            if not records or records[0].id != game or not isinstance(records[0].event, GameStarted):
                raise GameRuleError(N_("there is no game %(id)s"), id=game)
            record, _ = self.store.append(GameResumed(), game=game, key=key)
            self._set_fold(LiveFold([*records, record]))
            state = self._state
        self._publish(record, state)
        return record

    def knows_key(self, key: str) -> bool:
        """Whether a request with this key has been recorded (a retry is answered by `record`)."""
        return self.store.find_key(key) is not None

    # --- helpers for interfaces --------------------------------------------------------------
    def player_index(self, ref: str | int, *, before: int | None = None) -> int:
        """A player by index, name (any case) or seat wind letter: the seat they have now, or with
        `before` (an event id) the one they had just before that event (a correction of an old hand
        names its players by that hand's winds)."""
        state = self.require_state()
        if before is not None and isinstance(ref, str) and ref.upper() in WINDS:
            with self._lock:
                assert self._fold is not None
                state = self._fold.state_before(before)
        if isinstance(ref, int):
            if 0 <= ref < 4:
                return ref
            raise GameRuleError(N_("no player %(ref)s"), ref=ref)
        for i, name in enumerate(state.players):
            if name == ref:
                return i
        for i, name in enumerate(state.players):
            if name.casefold() == ref.casefold():
                return i
        if ref.upper() in WINDS:
            return state.rotation.player_at(ref.upper())
        raise GameRuleError(N_("no player “%(ref)s” at this table (players: %(players)s)"), ref=ref,
                            players=", ".join(state.players))

    def _set_fold(self, live: LiveFold) -> None:
        self._fold, self._records, self._state = live, live.records, live.state

    def state_json(self) -> dict | None:
        """The state as phones are sent it (`GameState.to_json` with the latest `HISTORY_TAIL` hand
        results), made once per event and shared by every phone, the hub and the API: the same
        size at the first event and the five-thousandth. The same dict each time: do not change it."""
        with self._lock:
            state = self._state
            if self._json[0] is not state:
                self._json = (state, state.to_json(history=HISTORY_TAIL) if state else None)
            return self._json[1]

    def _publish(self, record: Recorded, state: GameState | None) -> None:
        with self._lock:
            current = self._state is state
        data = self.state_json() if current else state.to_json(history=HISTORY_TAIL) if state else None
        self.hub.publish("state", {"event": record.to_json(), "state": data})
