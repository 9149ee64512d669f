"""The health report behind `companion doctor` and `GET /healthz`: camera, dice link, GPIO, disk,
game log, vision models.

Each check ends in a level: "ok", "warn" (works, but look at it), "fail" (broken) or
"off" (not configured), with a plain-words summary for a person and details for a
machine. Inside the running companion the report reads the adapters' live link status
(`hub.status`); `doctor` on its own (no service running) probes the hardware briefly itself.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from companion import __version__
from companion.config import Settings
from companion.errors import CompanionError
from companion.hardware.dice.link import open_error
from companion.storage import StorageError
from companion.storage.sqlite import lost_log
from companion.storage.sqlite import verify as verify_log

Level = Literal["ok", "warn", "fail", "off"]
MARK = {"ok": "OK  ", "warn": "WARN", "fail": "FAIL", "off": "off "}
#: the names' column ("table codes" is the longest), the same in every report
NAME_WIDTH = 11

#: free space on the data directory below which the game log is at risk / worth a look
DISK_FAIL_BYTES = 50 * 2**20
DISK_WARN_BYTES = 500 * 2**20
#: a write-ahead log this big means checkpoints are not happening (a reader holds it open)
WAL_WARN_BYTES = 64 * 2**20


@dataclass
class Check:
    name: str
    level: Level
    summary: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "level": self.level, "ok": self.level != "fail", "summary": self.summary,
                "details": self.details}


@dataclass
class HealthReport:
    checks: list[Check]
    source: str  # "service" (the running companion's live status) or "standalone" (doctor probed itself)
    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def ok(self) -> bool:
        return all(c.level != "fail" for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "source": self.source, "version": __version__, "at": self.at,
                "checks": [c.to_json() for c in self.checks]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HealthReport:
        """A report as `/healthz` gives it; ValueError (or KeyError, TypeError) for anything else."""
        checks = [Check(c["name"], c["level"], c["summary"], c.get("details", {})) for c in data["checks"]]
        if not checks or any(c.level not in MARK for c in checks):
            raise ValueError("not a health report: no checks, or a level it does not know")
        return cls(checks, data.get("source", "service"), data.get("at", ""))

    def text(self) -> str:
        width = max([NAME_WIDTH] + [len(c.name) for c in self.checks])
        lines = [f"{MARK[c.level]}  {c.name:<{width}} {c.summary}" for c in self.checks]
        verdict = "All is well." if self.ok and all(c.level != "warn" for c in self.checks) else \
            "Works, with warnings." if self.ok else "Something is broken (FAIL above)."
        return "\n".join(lines + [verdict])


# --- camera ---------------------------------------------------------------------------------------
def camera_from_status(status: dict[str, Any] | None, source: str) -> Check:
    if status is None:
        if source.strip().lower() == "off":
            return Check("camera", "off", 'no camera configured (camera.source = "off")')
        return Check("camera", "warn", "the camera component is not running", {"source": source})
    details = dict(status)
    if status.get("connected"):
        res = status.get("resolution")
        size = f"{res[0]}x{res[1]}" if res else "no frame yet"
        return Check("camera", "ok", f"{status.get('kind') or source}: {size} at {status.get('fps', 0):g} fps, "
                                     f"{status.get('frames', 0)} frames", details)
    return Check("camera", "fail", f"not connected: {status.get('error') or 'no picture yet'} "
                                   "(the companion keeps retrying)", details)


def probe_camera(settings: Settings, timeout: float = 5.0) -> Check:
    """Open the configured camera, take one picture, close it."""
    from companion.hardware.camera.base import CameraError
    from companion.hardware.camera.sources import make_source

    spec = settings.camera.source
    if spec.strip().lower() == "sim":
        return Check("camera", "ok", "simulated table camera (camera.source = \"sim\"): nothing to probe",
                     {"source": spec})
    try:
        source = make_source(settings.camera)
    except CameraError as e:
        return Check("camera", "fail", str(e), {"source": spec})
    if source is None:
        return camera_from_status(None, "off")
    try:
        with source:
            frame = source.read(timeout=timeout)
            h, w = frame.image.shape[:2]
            return Check("camera", "ok", f"{source.kind}: opens and gives pictures, {w}x{h}",
                         {"source": spec, "resolution": [w, h], "device": source.describe()})
    except CameraError as e:
        return Check("camera", "fail", str(e), {"source": spec})
    except Exception as e:  # a driver fault is a broken camera too, said in its own words
        return Check("camera", "fail", f"{type(e).__name__}: {e}", {"source": spec})


# --- dice box ---------------------------------------------------------------------------------------
def dice_from_status(status: dict[str, Any] | None, url: str) -> Check:
    if status is None:
        return Check("dice", "warn", "the dice link is not running in this companion", {"url": url})
    where = f"{status.get('kind', 'serial')} dice box on {status.get('url', url)}"
    if status.get("connected"):
        heard = status.get("last_heard")
        # an open port proves nothing: only answers do (a box just connected gets the link's grace)
        if not status.get("responding") and not status.get("just_connected"):
            return Check("dice", "warn", f"{where}: the port opens but the box does not answer "
                                         "(wrong device, or the box is hung)"
                                         + (f"; last heard {heard}" if heard else ""), dict(status))
        return Check("dice", "ok", where + (f", last heard {heard}" if heard else ", not heard from yet"),
                     dict(status))
    port, error = status.get("url", url), status.get("last_error") or "no answer"
    if error.lower().startswith("cannot open "):  # the link's words for a port that does not open
        return Check("dice", "fail", f"dice box not connected: {open_error(port, error)}", dict(status))
    return Check("dice", "fail", f"dice box not connected on {port}: {error}", dict(status))


def probe_dice(settings: Settings, timeout: float = 1.0) -> Check:
    """Open the configured serial port briefly (nothing is sent)."""
    url = settings.dice.url
    if url == "sim":
        return Check("dice", "ok", "simulated dice box (dice.url = \"sim\")", {"url": url})
    import serial

    try:
        port = serial.serial_for_url(url, timeout=timeout, exclusive=True)  # as the companion opens it
    except (serial.SerialException, ValueError, OSError) as e:
        return Check("dice", "fail", open_error(url, str(e)), {"url": url})
    port.close()
    return Check("dice", "ok", f"{url} opens", {"url": url})


# --- GPIO -----------------------------------------------------------------------------------------
def gpio_from_status(status: dict[str, Any] | None) -> Check:
    if status is None:
        return Check("gpio", "warn", "the lamps and buttons are not running in this companion")
    if status.get("connected"):
        where = "simulated pins (MockFactory)" if status.get("backend") == "mock" else \
            f"the Pi's pins ({status.get('factory')})"
        return Check("gpio", "ok", f"{status.get('claimed', 0)} pins claimed on {where}", dict(status))
    return Check("gpio", "fail", f"lamps and buttons not working: {status.get('error') or 'not started'}",
                 dict(status))


def probe_gpio(settings: Settings) -> Check:
    """Claim the configured pins briefly, as the service would, and let them go."""
    from companion.hardware.gpio.panel import Panel
    from companion.hardware.gpio.panel import log as panel_log
    from companion.hub import Hub

    factory = None
    if settings.gpio.backend == "mock":
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    hub = Hub()
    panel = Panel(_NoTable(), hub, settings.gpio, factory)
    with warnings.catch_warnings(record=True) as said:  # gpiozero's fallback warnings: into the report
        warnings.simplefilter("always")
        with _silenced(panel_log):  # the service logs a failure; here the report says it, once
            panel.start()
    check = gpio_from_status(hub.status.get("gpio"))
    panel.stop()
    if said:
        check.details["library_warnings"] = sorted({str(w.message) for w in said})
    if check.level == "fail" and "in use" in check.summary.lower():
        check.summary += " (is the companion service running? it holds the pins)"
    return check


@contextmanager
def _silenced(logger: logging.Logger):
    was, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = was


class _NoTable:
    """The doctor's panel only claims pins; it shows no game."""

    state = None


# --- disk and game log ------------------------------------------------------------------------------
def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n < 2**30 else f"{n / 2**30:.1f} GiB"


def check_disk(settings: Settings) -> Check:
    path = settings.data_path
    probe = path if path.exists() else next((p for p in path.parents if p.exists()), Path("/"))
    usage = shutil.disk_usage(probe)
    details = {"data_dir": str(path), "free_bytes": usage.free, "total_bytes": usage.total}
    summary = f"{_mib(usage.free)} free of {_mib(usage.total)} on {path}"
    if usage.free < DISK_FAIL_BYTES:
        return Check("disk", "fail", summary + ": the game log may not be written", details)
    if os.statvfs(probe).f_flag & os.ST_RDONLY:
        return Check("disk", "fail", summary + ": a read-only filesystem, the companion would refuse to start", details)
    if not os.access(probe, os.W_OK):
        # a folder of this user's (or any, for root) that cannot be written stops `companion run`; the
        # service's own folder is the service user's to write, not the login user's who asks
        ours = os.geteuid() in (0, probe.stat().st_uid)
        if probe != path:
            why = f": it cannot be made ({probe} is not writable)"
        else:
            why = ": not writable" + (", the companion would refuse to start" if ours else " by this user")
        return Check("disk", "fail" if ours else "warn", summary + why, details)
    if usage.free < DISK_WARN_BYTES:
        return Check("disk", "warn", summary + ": running low", details)
    return Check("disk", "ok", summary, details)


def check_codes(settings: Settings) -> Check:
    """The table's codes as `companion run` reads them at start (made up there if there are none)."""
    from companion.web.access import ACCESS_FILE, AccessError, read_codes

    path = settings.data_path / ACCESS_FILE
    try:
        codes = read_codes(path)
    except AccessError as e:
        return Check("table codes", "fail", f"{e}: the companion would refuse to start", {"path": str(path)})
    if not codes:
        return Check("table codes", "ok", "no codes yet (made up at the first start)", {"path": str(path)})
    return Check("table codes", "ok", f"kept in {path}", {"path": str(path)})


_db_cache: dict[str, tuple[float, str]] = {}
_db_lock = threading.Lock()
#: seconds an integrity check result is reused (a monitor may ask /healthz every few seconds)
DB_CHECK_TTL = 60.0


def _integrity(db: Path, store=None) -> str:
    key = str(db)
    with _db_lock:
        hit = _db_cache.get(key)
        if hit and time.monotonic() - hit[0] < DB_CHECK_TTL:
            return hit[1]
    if store is not None:  # the running companion has read every event already
        result = store.integrity_check()
    else:  # as `companion run` would open it: schema version, columns, every event readable
        result = verify_log(db)
    with _db_lock:
        _db_cache[key] = (time.monotonic(), result)
    return result


def check_database(settings: Settings, store=None) -> Check:
    db = settings.db_path
    wal = db.with_name(db.name + "-wal")
    details: dict[str, Any] = {"path": str(db), "size_bytes": _size(db), "wal_bytes": _size(wal)}
    if db.parent.exists() and not db.parent.is_dir():
        return Check("game log", "fail", f"the data folder {db.parent} is a file, not a folder", details)
    if (lost := lost_log(db)) is not None:  # a 0-byte or missing log where a game was recorded
        return Check("game log", "fail", "the companion refuses to start on it: " + lost, details)
    if not db.exists():
        return Check("game log", "ok", f"no game log yet at {db} (made at the first start)", details)
    if db.stat().st_uid == os.getuid() and not (os.access(db, os.W_OK) and os.access(db.parent, os.W_OK)):
        # (owned by someone else, as the service's log is for the login user, it is theirs to write)
        return Check("game log", "fail", f"{db} cannot be written (the file or its folder is read-only): "
                                         "the companion would refuse to start", details)
    try:
        result = _integrity(db, store)
    except (sqlite3.Error, StorageError) as e:
        return Check("game log", "fail", f"cannot read {db}: {e}"
                     + (" (try as the service user: sudo -u companion companion doctor)" if
                        "unable to open" in str(e) else ""), details)
    details["integrity"] = result
    if result != "ok":
        return Check("game log", "fail", f"{db} is damaged: {result}", details)
    summary = f"{db.name} {_mib(details['size_bytes'])}, write-ahead log {_mib(details['wal_bytes'])}, intact"
    if details["wal_bytes"] > WAL_WARN_BYTES:
        return Check("game log", "warn", summary + ": the write-ahead log is large", details)
    return Check("game log", "ok", summary, details)


# --- vision models --------------------------------------------------------------------------------
def check_models(tile_folder: Path | None = None, dice_folder: Path | None = None,
                 loose_file: Path | None = None) -> Check:
    """The tile models (all four detectors and the classifier, as `recognize` and `teach` use
    them), the dice models and the walls' loose-tile model load: a damaged file on the card
    shows here rather than at the first photo. Loading takes about a second on a Pi."""
    from companion.vision import dice, loose
    from companion.vision.tiles import models as tile_models
    from companion.vision.tiles.recognizer import EXTRA_DETECTORS, TileRecognizer

    t0 = time.perf_counter()
    try:
        rec = TileRecognizer(tile_folder, taught=None)
        for which in EXTRA_DETECTORS:
            if which == "windows" or rec.has_general_detector:
                rec.detector_model(which)
        dice.DiceReader(dice_folder)
        loose.LooseReader(loose_file)
    except Exception as e:  # noqa: BLE001 - whatever the cause (missing, damaged, no onnxruntime), say it
        return Check("models", "fail", f"cannot load: {e}", {"error": str(e)})
    ms = round((time.perf_counter() - t0) * 1000)
    files = sorted(tile_models.model_dir(tile_folder).glob("*.onnx")) + \
        sorted(Path(dice_folder or dice.MODEL_DIR).glob("*.onnx")) + [Path(loose_file or loose.MODEL_FILE)]
    size = sum(f.stat().st_size for f in files)
    return Check("models", "ok", f"tile, dice and wall models load ({len(files)} files, {_mib(size)}, {ms} ms)",
                 {"files": [f.name for f in files], "bytes": size, "load_ms": ms})


def check_taught(settings: Settings) -> Check:
    """The tile set taught with `companion teach`: none, readable, or damaged (a damaged one is
    passed over for the shipped models, so it is a warning, not a failure)."""
    from companion.vision.tiles.teach import TaughtSet, taught_path

    path = taught_path(settings.data_path)
    details = {"path": str(path)}
    try:
        taught = TaughtSet.load(path)
    except CompanionError as e:
        return Check("taught set", "warn", f"{e}; the shipped tile models name the tiles meanwhile", details)
    if taught is None:
        return Check("taught set", "ok", "none taught: the shipped tile models name the tiles", details)
    return Check("taught set", "ok", f"{len(taught.codes)} tiles taught, read by the {taught.detector} detector "
                 f"({path})", {**details, "tiles": len(taught.codes), "detector": taught.detector})


def check_corners(settings: Settings) -> Check:
    """The table corners set by hand on the dashboard (`/calibrate`): none, or four that outline a
    table, or a file that cannot be used (a warning: the markers still calibrate, and the host sets
    the corners again)."""
    from companion.vision.calibrate import manual
    from companion.vision.corners import corners_path, load_corners

    path = corners_path(settings.data_path)
    details = {"path": str(path)}
    try:
        saved = load_corners(path)
        if saved is not None:
            manual(saved["corners"], tuple(settings.vision.table_size_cm))
    except CompanionError as e:
        return Check("corners", "warn", f"{e} (Settings -> Table corners); the markers calibrate meanwhile", details)
    if saved is None:
        return Check("corners", "ok", "none set by hand: the corner markers calibrate the camera", details)
    return Check("corners", "ok", "table corners set by hand, used while the camera sees no markers",
                 {**details, **saved})


def check_samples(settings: Settings) -> Check:
    """The camera samples kept for whoever improves the reading (`vision/samples.py`): how many, how big."""
    from companion.vision.samples import SampleKeeper, samples_path

    limit = settings.vision.keep_samples
    keeper = SampleKeeper(samples_path(settings.data_path), limit)
    got = keeper.summary()
    details = {"path": str(keeper.folder), **got}
    if limit == 0:
        return Check("samples", "ok", "no camera samples are kept ([vision] keep_samples = 0)", details)
    return Check("samples", "ok", f"{got['count']} camera samples kept ({_mib(got['bytes'])}, at most {limit}) "
                 f"in {keeper.folder}: the host downloads them from Settings -> Camera samples", details)


_models_lock = threading.Lock()
_models_check: Check | None = None


def models_once() -> Check:
    """check_models for the running companion: its files do not change while it runs, so they
    are loaded for the check once, not on every /healthz."""
    global _models_check
    with _models_lock:
        if _models_check is None:
            _models_check = check_models()
        return _models_check


# --- the club (companion/club) ---------------------------------------------------------------------
def club_from_status(status: dict[str, Any] | None, settings: Settings) -> Check:
    """The table's link to the club's hub: connected, and how much of the log the hub has."""
    where = f"table {settings.club.table_id} on {settings.club.broker}"
    if status is None:
        return Check("club", "warn", f"{where}: the publisher is not running", {})
    if status.get("error") and status.get("connected"):
        return Check("club", "warn", f"{where}: {status['error']}", dict(status))
    if not status.get("connected"):
        return Check("club", "warn", f"{where}: not connected ({status.get('error') or 'connecting'}); "
                     f"{status.get('pending', 0)} event(s) wait in the game log and go when it is back",
                     dict(status))
    return Check("club", "ok", f"{where}: the hub has {status.get('acked', 0)} of {status.get('last_seq', 0)} events",
                 dict(status))


def probe_club(settings: Settings, timeout: float = 2.0) -> Check:
    """Can the broker be reached at all (a TCP connection; nothing is published)?"""
    import socket

    from companion.config import parse_broker

    host, port, _ = parse_broker(settings.club.broker)
    where = f"table {settings.club.table_id} on {settings.club.broker}"
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        return Check("club", "warn", f"{where}: the broker cannot be reached ({e}); the table plays on and "
                     "sends its log when it can", {"broker": settings.club.broker})
    return Check("club", "ok", f"{where}: the broker answers", {"broker": settings.club.broker})


# --- the reports ------------------------------------------------------------------------------------
def live_report(services) -> HealthReport:
    """Inside the running companion: the adapters' live status."""
    s: Settings = services.settings
    status = services.hub.status
    return HealthReport([
        camera_from_status(status.get("camera"), s.camera.source),
        dice_from_status(status.get("dice"), s.dice.url),
        gpio_from_status(status.get("gpio")),
        check_disk(s),
        check_database(s, services.store),
        models_once(),
        check_taught(s),
        check_corners(s),
        check_samples(s),
    ] + ([club_from_status(status.get("club"), s)] if s.club.enabled else []), source="service")


def standalone_report(settings: Settings, *, camera_timeout: float = 5.0) -> HealthReport:
    """No companion running: probe each part briefly."""
    return HealthReport([
        probe_camera(settings, camera_timeout),
        probe_dice(settings),
        probe_gpio(settings),
        check_disk(settings),
        check_database(settings),
        check_codes(settings),
        check_models(),
        check_taught(settings),
        check_corners(settings),
        check_samples(settings),
    ] + ([probe_club(settings)] if settings.club.enabled else []), source="standalone")
