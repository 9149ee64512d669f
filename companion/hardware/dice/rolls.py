"""Record a roll from any dice source: the box over serial, the virtual box, a phone or the camera.

Every source ends here so that all are treated alike: the same event (`DiceThrown`, tagged
with its source), the same exactly-once key, the same re-throw prompt for a cocked die
(R18), and the same answer when the game refuses a roll (a warning players see; the roll
is never dropped silently). Whether a roll is the throw the game expects or an unassigned
one is the game's decision (`companion.game.fold`), not the source's.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from companion.errors import DiceError, GameRuleError
from companion.game.events import DiceSource, DiceThrown, Recorded
from companion.table import Table

log = logging.getLogger(__name__)

#: a throw typed on a phone this soon after the camera read the very same dice is that throw
ECHO_SECONDS = 30.0


@dataclass(frozen=True)
class RollOutcome:
    #: recorded: new in the game log; duplicate: its key was recorded or refused before (a resend);
    #: refused: the game said no
    status: Literal["recorded", "duplicate", "refused"]
    record: Recorded | None = None
    reason: str | None = None


def record_roll(
    table: Table,
    faces: Sequence[int],
    *,
    source: DiceSource,
    cocked: Sequence[int] = (),
    boot_id: str | None = None,
    seq: int | None = None,
    key: str | None = None,
) -> RollOutcome:
    """Record a throw; never raises for a roll the game refuses (it warns instead).

    A storage failure does raise (StorageError): then nothing is recorded and a dice box
    must not be acknowledged, so that it sends the roll again. A refused roll with a `key` is
    remembered in the log, so that a resend (also after a restart) is a duplicate, not a new roll.
    """
    event = DiceThrown(faces=list(faces), source=source, cocked=sorted(set(cocked)), boot_id=boot_id, seq=seq)
    if key is not None:
        earlier = table.store.find_key(key)
        if earlier is not None:
            said = getattr(earlier.event, "faces", None)
            if said is not None and list(said) != list(faces):  # a resend must repeat itself: a box's fault
                log.warning("roll %s sent again with other faces (%s, recorded %s); the recorded one stands",
                            key, "+".join(map(str, faces)), "+".join(map(str, said)))
            return RollOutcome("duplicate", earlier)
        refused = table.store.refusal(key)
        if refused is not None:  # refused and reported before (maybe before a restart): never counted later
            return RollOutcome("duplicate", reason=refused)
    try:
        record = table.record(event, key=key)
    except (GameRuleError, DiceError) as e:
        shown = "+".join(str(f) for f in faces)
        if key is not None:  # first, so that the players are told only once it is remembered
            table.store.note_refused(key, str(e))
        log.warning("roll %s from %s not counted: %s", shown, source, e)
        table.hub.warn("dice_refused", f"Dice {shown} ({source}) not counted: {e}",
                       faces=list(faces), source=source, reason=str(e), key=key,
                       reason_template=e.template, reason_params=dict(e.params))
        return RollOutcome("refused", reason=str(e))
    due = table.state.expected_throw() if table.state else None
    for die in event.cocked:
        if not due or die not in due["rethrow"]:
            continue  # an unassigned roll: nothing to throw again until a player assigns it
        # R18: "a die that lands cocked or outside is thrown again"
        table.hub.warn("rethrow", f"Die {die + 1} landed cocked: throw it again", die=die, source=source,
                       event=record.id)
    return RollOutcome("recorded", record)


def camera_echo(table: Table, faces: Sequence[int], now: datetime | None = None) -> Recorded | None:
    """The camera's record of these dice, when a player types a throw the camera has just read.

    Both saw one physical throw; counting it twice would take it for the next throw (R17/R19).
    Only the same faces within ECHO_SECONDS count as the same throw: other faces are a new throw
    (or, if the camera misread, the camera's throw is undone from the history).
    """
    state = table.state
    if state is None or not state.throw_events or state.throw_sources[-1] != "camera" or state.pending:
        return None
    if sorted(state.throws[-1]) != sorted(faces):
        return None
    wanted = state.throw_events[-1]
    record = next((r for r in reversed(table.records()) if r.id == wanted), None)
    if record is None:
        return None
    age = ((now or datetime.now(UTC)) - record.at).total_seconds()
    return record if age <= ECHO_SECONDS else None
