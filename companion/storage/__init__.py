"""Storage: the SQLite event log."""

from companion.storage.sqlite import EventStore, StorageError

__all__ = ["EventStore", "StorageError"]
