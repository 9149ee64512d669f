"""One companion per data folder: an exclusive lock held while `companion run` runs.

Two companions on one game log would each keep their own picture of the game in memory and
write past each other: phones on one would never see the other's results. The lock is an
advisory `flock` on `<data_dir>/companion.lock`, which the kernel releases when the process
ends however it ends (kill -9, power loss), so a stale lock file never keeps the next start out.
The file holds the holder's process id, for the message. Where there is no `fcntl` (Windows),
there is no lock.
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.storage.sqlite import StorageError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the Pi or Linux/macOS
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "companion.lock"


class DataDirLock:
    """`acquire()` (StorageError if another companion holds that folder) and `release()`."""

    def __init__(self, data_dir: str | os.PathLike) -> None:
        self.path = Path(data_dir) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        if fcntl is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise StorageError(f"another companion is running on {self.path.parent} (process {holder}); "
                               "stop it first, or give this one another --data-dir") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def holder(self) -> str | None:
        """The process id of a companion holding this folder now, else None (nothing is taken)."""
        if fcntl is None:
            return None
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:  # no lock file (never started here) or not ours to read
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return os.read(fd, 32).decode(errors="replace").strip() or "?"
        finally:
            os.close(fd)  # a lock taken here goes with the descriptor
        return None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the lock; the file stays for the next holder
            self._fd = None
