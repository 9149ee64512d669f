"""Opening a new game log while another process opens it too (the companion starting while
`companion doctor` or `replay` runs, say): both end up with the one migrated log."""

import multiprocessing as mp

import companion.storage.sqlite as sqlite_store
from companion.storage import EventStore


def test_a_migration_another_process_finished_meanwhile_is_not_run_again(tmp_path, monkeypatch):
    path = tmp_path / "games.sqlite3"
    real = sqlite_store._migrations
    others, started = [], []

    def meanwhile():
        if not started:  # our version was read as 0; now the other process migrates the file
            started.append(True)
            others.append(EventStore(path))
        return real()

    monkeypatch.setattr(sqlite_store, "_migrations", meanwhile)
    store = EventStore(path)  # before: "cannot open the game log …: table events already exists"
    assert store.events() == [] and others[0].events() == []
    store.close()
    others[0].close()


def _open(path, results):
    try:
        EventStore(path).close()
        results.put("ok")
    except Exception as e:  # noqa: BLE001 - the test reports whatever went wrong
        results.put(f"{type(e).__name__}: {e}")


def test_several_processes_opening_a_new_log_at_once_all_succeed(tmp_path):
    ctx = mp.get_context("spawn")
    for round_ in range(3):
        path = tmp_path / f"games{round_}.sqlite3"
        results = ctx.Queue()
        procs = [ctx.Process(target=_open, args=(path, results)) for _ in range(5)]
        for p in procs:
            p.start()
        got = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert got == ["ok"] * len(procs)
