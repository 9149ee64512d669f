"""One companion per data folder: an exclusive lock held while `companion run` runs.

Two companions on one game log would each keep their own picture of the game in memory and
write past each other: phones on one would never see the other's results. The lock is an
advisory `flock` on `<data_dir>/companion.lock`, which the kernel releases when the process
ends however it ends (kill -9, power loss), so a stale lock file never keeps the next start out.
The file holds the holder's process id, for the message. Where there is no `fcntl` (Windows),
there is no lock.

A lock file can be deleted or moved while its holder runs, and the next companion would then
lock a new file of the same name. So the game log itself is locked too (`log`): a `flock` on
the database file, which follows the file wherever it is moved and which no deleted lock file
releases. (SQLite locks the same file with POSIX record locks, which are independent of
`flock` on Linux and the BSDs: its own locking is not disturbed.)
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

    def __init__(self, data_dir: str | os.PathLike, log: str | os.PathLike | None = None) -> None:
        """`log`: the game log this companion writes, locked on itself as well (see the module)."""
        self.path = Path(data_dir) / LOCK_NAME
        self.log = Path(log) if log is not None else None
        self._fd: int | None = None
        self._log_fd: int | None = None

    def _refuse(self, holder: str) -> StorageError:
        return StorageError(f"another companion is running on {self.path.parent} (process {holder}); "
                            "stop it first, or give this one another --data-dir")

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
            raise self._refuse(holder) from None
        if self.log is not None:
            try:  # an empty new file is what SQLite makes a new log in
                log_fd: int | None = os.open(self.log, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:  # a log that cannot be written: opening it refuses it with the reason
                log_fd = None
            if log_fd is not None:
                try:
                    fcntl.flock(log_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # its lock file was deleted or moved: the log itself still says
                    os.close(log_fd)
                    os.close(fd)
                    raise StorageError(f"another companion is writing the game log {self.log} (its lock file "
                                       f"{self.path} was deleted or replaced); stop it first") from None
            self._log_fd = log_fd
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def holder(self) -> str | None:
        """The process id of a companion holding this folder now, else None (nothing is taken)."""
        if fcntl is None:
            return None
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:  # no lock file (never started here, or deleted) or not ours to read
            return "?" if self._log_held() else None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return os.read(fd, 32).decode(errors="replace").strip() or "?"
        finally:
            os.close(fd)  # a lock taken here goes with the descriptor
        return "?" if self._log_held() else None

    def _log_held(self) -> bool:
        """Whether another process holds the game log's own lock (its lock file gone or replaced)."""
        if self.log is None:
            return False
        try:
            fd = os.open(self.log, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
        return False

    def release(self) -> None:
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None
        if self._fd is not None:
            os.close(self._fd)  # closing drops the lock; the file stays for the next holder
            self._fd = None
