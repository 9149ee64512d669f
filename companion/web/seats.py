"""Which phone holds each seat, so that a seat is taken by one phone at a time.

A phone's session says which player it belongs to (`guard.claim_seat`: the player's index, their
name, and a random claim id). The seat book keeps, for each player index, the claim that took the
seat last and the name it was taken under. A session's claim holds while the book names it (or
names nobody for that seat: sessions from before the book was kept). A seat counts as taken while
its player still has the name it was taken under: a new game with other players frees every seat.

Taking a taken seat must be confirmed; the phone that loses it is told at once (hub topic "seat",
pushed to every phone: `{"player", "name", "claim"}`; the page whose own claim for that seat is
another one knows it has lost it) and, should it miss that, when it next loads a page.
Kept in `<data_dir>/web_seats.json` so that a restart keeps who sits where.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

from flask import current_app

log = logging.getLogger(__name__)

SEATS_FILE = "web_seats.json"
_make_lock = threading.Lock()


class SeatBook:
    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()
        self._seats: dict[int, dict] = {}
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
            self._seats = {int(k): v for k, v in data.items()
                           if k in ("0", "1", "2", "3") and isinstance(v, dict) and isinstance(v.get("claim"), str)}
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as e:  # a damaged file costs who sits where, nothing else
            log.warning("%s: cannot read the seats (%s); every seat starts free", self._path, e)

    def holder(self, player: int, name: str) -> dict | None:
        """The claim on `player`'s seat while they still have `name` (the one it was taken under)."""
        with self._lock:
            entry = self._seats.get(player)
        return dict(entry) if entry and entry.get("name") == name else None

    def holds(self, player: int, name: str, claim: str | None) -> bool:
        """Whether a session with `claim` still holds `player`'s seat (nobody else took it since)."""
        entry = self.holder(player, name)
        return entry is None or entry["claim"] == claim

    def taken(self, players: list[str]) -> dict[int, str]:
        """Seats held by a phone now: player index -> the name it was taken under."""
        return {p: e["name"] for p in range(len(players)) if (e := self.holder(p, players[p]))}

    def claim(self, player: int, name: str, claim: str) -> None:
        with self._lock:
            self._seats[player] = {"claim": claim, "name": name, "at": datetime.now(UTC).isoformat()}
            self._write()

    def release(self, player: int, claim: str) -> None:
        """The phone holding `player`'s seat with `claim` left the table: the seat is free."""
        with self._lock:
            entry = self._seats.get(player)
            if entry and entry.get("claim") == claim:
                del self._seats[player]
                self._write()

    def took_over(self, player: int, old_claim: str) -> None:
        """The seat's claim replaced `old_claim` (a take-over): that phone is told why it lost the
        seat even when the take-over also renamed the player (its name then no longer matches)."""
        with self._lock:
            entry = self._seats.get(player)
            if entry:
                entry["took_from"] = old_claim
                self._write()

    def lost(self, player: int, name: str, pname: str | None, claim: str | None) -> bool:
        """Whether a session that held `player`'s seat under `pname` with `claim` lost it to another phone."""
        entry = self.holder(player, name)
        if entry is None or entry["claim"] == claim:
            return False
        return pname == name or (claim is not None and entry.get("took_from") == claim)

    def renamed(self, player: int, old: str, new: str) -> None:
        """The seat's player changed their name: its holder keeps it under the new one."""
        with self._lock:
            entry = self._seats.get(player)
            if entry and entry.get("name") == old:
                entry["name"] = new
                self._write()

    def _write(self) -> None:
        """Atomically; a full or read-only card loses who sits where after a restart, nothing else."""
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp")
            tmp.write_text(json.dumps({str(k): v for k, v in self._seats.items()}), encoding="utf-8")
            os.replace(tmp, self._path)
        except OSError as e:
            log.warning("%s: cannot keep the seats (%s)", self._path, e)


def seat_book() -> SeatBook:
    """The app's seat book, made on first use from the data folder."""
    ext = current_app.extensions
    book = ext.get("companion_seats")
    if book is None:
        with _make_lock:
            book = ext.get("companion_seats")
            if book is None:
                services = ext["companion"]
                book = ext["companion_seats"] = SeatBook(Path(services.settings.data_path) / SEATS_FILE)
    return book
