"""The camera component: one thread pulls frames from a FrameSource and keeps only the latest.

Consumers never queue frames, so none can fall behind or starve another: the vision
pipeline asks `latest(after_seq=seen)` and gets the newest frame it has not seen (frames
it was too slow for are simply skipped); the dashboard's live view does the same at its
own, lower rate. A camera that is missing or unplugged is retried with back-off (0.5 s
doubling to 10 s) and shown as disconnected in `hub.status["camera"]` until it returns.

Frames are renumbered by the service (`seq` rises by one per frame delivered, across
reconnects) and turned by the configured rotation, so consumers see one steady stream
whatever the source.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import cv2

from companion.hardware.camera.base import CameraError, Frame, FrameSource
from companion.hub import Hub
from companion.worker import Worker

log = logging.getLogger(__name__)

_ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class CameraService(Worker):
    """Component "camera". Thread-safe; `latest()` may be called from any number of threads."""

    name = "camera"

    def __init__(self, source: FrameSource | Callable[[], FrameSource], hub: Hub, *, spec: str = "",
                 rotation: int = 0, max_fps: float = 30.0, read_timeout: float = 2.0,
                 retry_first: float = 0.5, retry_max: float = 10.0, status_every: float = 5.0) -> None:
        self._factory = source if callable(source) and not isinstance(source, FrameSource) else (lambda: source)
        self.hub = hub
        self.spec = spec
        self.rotation = rotation
        self.min_interval = 1.0 / max_fps if max_fps > 0 else 0.0
        self.read_timeout = read_timeout
        self.retry_first, self.retry_max = retry_first, retry_max
        self.status_every = status_every
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._seq = 0
        super().__init__()
        self.join_timeout = read_timeout + 3
        self._times: deque[float] = deque(maxlen=64)
        self._source: FrameSource | None = None
        self._status: dict[str, Any] = {"kind": None, "source": spec, "connected": False, "error": None,
                                        "frames": 0, "fps": 0.0, "resolution": None, "since": None,
                                        "reconnects": 0, "retry_in": None}

    # --- for consumers --------------------------------------------------------------------------
    def latest(self, after_seq: int | None = None, timeout: float = 1.0) -> Frame | None:
        """The newest frame, waiting up to `timeout` s for one newer than `after_seq`; None if none came."""
        def ready() -> bool:
            return self._frame is not None and (after_seq is None or self._frame.seq > after_seq)

        with self._cond:
            self._cond.wait_for(lambda: ready() or self._stop.is_set(), timeout)
            return self._frame if ready() else None

    @property
    def fps(self) -> float:
        """Frames per second delivered over the last few seconds (0 when no frame came lately)."""
        with self._cond:
            times = list(self._times)
        if len(times) < 2 or time.monotonic() - times[-1] > 2.0:
            return 0.0
        return (len(times) - 1) / (times[-1] - times[0]) if times[-1] > times[0] else 0.0

    @property
    def running(self) -> bool:
        """Started and not stopped (consumers such as the live view end their loops when this turns False)."""
        return self._thread is not None and not self._stop.is_set()

    @property
    def connected(self) -> bool:
        return bool(self._status["connected"])

    def status(self) -> dict[str, Any]:
        out = dict(self._status)
        out["fps"] = round(self.fps, 1)
        return out

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        self.hub.set_status("camera", self.status())
        super().start()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:  # wake consumers waiting in latest()
            self._cond.notify_all()
        self._join()
        self._close_source()
        self._status.update(connected=False, retry_in=None)
        self.hub.set_status("camera", self.status())

    # --- the capture thread ---------------------------------------------------------------------
    def _run(self) -> None:
        delay = self.retry_first
        last_status = 0.0
        while not self._stop.is_set():
            if self._source is None:
                if not self._connect(delay):
                    delay = min(delay * 2, self.retry_max)
                    continue
                delay = self.retry_first
            try:
                frame = self._source.read(timeout=self.read_timeout)  # type: ignore[union-attr]
            except Exception as e:  # CameraError: unplugged; anything else: a driver fault, treated alike
                if not isinstance(e, CameraError):
                    log.exception("camera source failed")
                self._lost(f"{e}" if isinstance(e, CameraError) else f"{type(e).__name__}: {e}")
                continue
            self._deliver(frame)
            now = time.monotonic()
            if now - last_status >= self.status_every:
                last_status = now
                if self._source is not None:  # what the device says of itself may change (files skipped)
                    self._status["device"] = self._source.describe()
                self.hub.set_status("camera", self.status())
            if self.min_interval:  # a source faster than asked for must not eat the CPU recognition needs
                wait = self.min_interval - (time.monotonic() - now)
                if wait > 0:
                    self._stop.wait(wait)

    def _connect(self, delay: float) -> bool:
        try:
            source = self._factory()
            source.open()
        except Exception as e:
            if not isinstance(e, CameraError):
                log.exception("opening the camera failed")
            was = self._status["error"]
            self._status.update(connected=False, error=str(e) if isinstance(e, CameraError) else
                                f"{type(e).__name__}: {e}", retry_in=round(delay, 1))
            if self._status["error"] != was:
                log.warning("camera not available: %s (retrying)", self._status["error"])
            self.hub.set_status("camera", self.status())
            self._stop.wait(delay)
            return False
        self._source = source
        info = source.describe()
        self._status.update(kind=source.kind, connected=True, error=None, since=_now(), retry_in=None,
                            device=info)
        log.info("camera connected: %s", info)
        self.hub.set_status("camera", self.status())
        return True

    def _lost(self, why: str) -> None:
        self._close_source()
        with self._cond:
            self._frame = None  # a picture from before the camera went away is no longer the table
        self._status.update(connected=False, error=why, reconnects=self._status["reconnects"] + 1,
                            retry_in=self.retry_first)
        log.warning("camera lost: %s (reconnecting)", why)
        self.hub.set_status("camera", self.status())
        self._stop.wait(self.retry_first)

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception:
                log.exception("closing the camera failed")

    def _deliver(self, frame: Frame) -> None:
        image = frame.image
        if self.rotation in _ROTATE:
            image = cv2.rotate(image, _ROTATE[self.rotation])
        with self._cond:
            self._seq += 1
            self._frame = dataclasses.replace(frame, image=image, seq=self._seq)
            self._times.append(time.monotonic())
            self._cond.notify_all()
        self._status["frames"] = self._seq
        self._status["resolution"] = [int(image.shape[1]), int(image.shape[0])]


def build_camera(services) -> None:
    """ADAPTER_BUILDERS entry: the "camera" component on the configured source (nothing for "off")."""
    from companion.hardware.camera.sources import make_source, parse_source

    settings = services.settings.camera
    if parse_source(settings.source).kind == "off":
        return
    services.add(CameraService(lambda: make_source(settings, services), services.hub, spec=settings.source,
                               rotation=settings.rotation, max_fps=settings.fps * 1.25))
