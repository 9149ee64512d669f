"""The dashboard's live camera view: MJPEG with what the companion recognised drawn over it.

`GET /camera/stream.mjpg` is a multipart/x-mixed-replace stream that an <img> tag shows as
video. It is throttled to `camera.view_fps`, scaled to `camera.view_width` and encoded once
per frame however many phones watch (a shared cache), so it never takes the CPU that
recognition needs; at most `camera.max_viewers` streams run at once (each holds a web
server thread). While the camera is missing or unplugged the stream shows a picture saying
so, and the real view returns by itself when the camera does.
`GET /camera/snapshot.jpg` is one such picture.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import cv2
from flask import Blueprint, Response, current_app
from flask_babel import gettext as _

from companion.hardware.camera import overlay
from companion.hub import Message
from companion.web.errors import WebError
from companion.web.guard import is_joined, read_right, require_read

camera_view = Blueprint("camera", __name__)

#: recognition publishes once per still scene, so a quiet table keeps its last observation; the caption says
#: how old it is, and after this long it is no longer drawn
OBSERVATION_MAX_AGE_S = 300.0
JPEG_QUALITY = 75


class LiveView:
    """Per-app state of the live view: the latest observation, the viewer count, the JPEG cache."""

    def __init__(self, services) -> None:
        self.services = services
        self.settings = services.settings.camera
        self._lock = threading.Lock()
        self._observation: tuple[float, dict[str, Any]] | None = None
        self._cache: tuple[tuple, bytes] | None = None
        self._viewers = threading.BoundedSemaphore(self.settings.max_viewers)
        # spectators (no code) have their own few places: they never take a joined phone's
        self._spectators = threading.BoundedSemaphore(max(1, self.settings.spectator_viewers))
        services.hub.subscribe(self._observed, {"observation"})

    @property
    def camera(self):
        return self.services.find("camera")

    def _observed(self, msg: Message) -> None:
        if isinstance(msg.data, dict):
            with self._lock:
                self._observation = (time.monotonic(), msg.data)

    def observation(self) -> tuple[float, dict[str, Any]] | None:
        with self._lock:
            return self._observation

    def jpeg(self, timeout: float = 2.0, after_seq: int | None = None) -> tuple[bytes, int | None]:
        """The current picture as JPEG, and the frame number it shows (None: the 'no camera' picture)."""
        camera = self.camera
        frame = camera.latest(after_seq=after_seq, timeout=timeout) if camera is not None else None
        if frame is None:
            return self._placeholder(camera), None
        seen = self.observation()
        key = (frame.seq, id(seen[1]) if seen else None)
        with self._lock:
            if self._cache is not None and self._cache[0] == key:  # another phone already encoded it
                return self._cache[1], frame.seq
        image, f = overlay.scaled(frame.image, self.settings.view_width)
        observation = None
        caption = f"{camera.fps:.1f} fps"
        if seen is not None:
            age = time.monotonic() - seen[0]
            if age <= OBSERVATION_MAX_AGE_S:
                observation = seen[1]
            caption += f" | recognised {age:.0f} s ago"
        image, _ = overlay.draw(image, observation, scale=f, caption=caption)
        data = _encode(image)
        with self._lock:
            self._cache = (key, data)
        return data, frame.seq

    def _placeholder(self, camera) -> bytes:
        if camera is None:
            title, detail = "No camera", 'camera.source is "off" in the configuration'
        else:
            status = camera.status()
            title = "Camera not connected" if not status.get("connected") else "Waiting for the camera"
            detail = (status.get("error") or "") + " - retrying by itself"
        return _encode(overlay.placeholder(self.settings.view_width, title, detail))

    def try_enter(self, spectator: bool = False) -> bool:
        if spectator and not self.settings.spectator_viewers:
            return False
        return (self._spectators if spectator else self._viewers).acquire(blocking=False)

    def leave(self, spectator: bool = False) -> None:
        (self._spectators if spectator else self._viewers).release()


def _encode(image) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return buf.tobytes()


_create_lock = threading.Lock()


def live_view() -> LiveView:
    """The app's LiveView, made on first use."""
    app = current_app
    with _create_lock:
        if "companion_live_view" not in app.extensions:
            app.extensions["companion_live_view"] = LiveView(app.extensions["companion"])
    return app.extensions["companion_live_view"]


@camera_view.record_once
def _subscribe_early(state) -> None:
    """Start listening for observations when the app is made, not at the first viewer."""
    with state.app.app_context():
        live_view()


def _require_viewer() -> tuple[object, bool]:
    """The camera sees every tile on the table: it is for joined phones (and the Pi's own screen);
    spectators without the code see it only where `camera.spectator_viewers` allows."""
    viewer = require_read()
    spectator = not is_joined(viewer)
    if spectator and not live_view().settings.spectator_viewers:
        raise WebError(403, "join_for_live", _("The live camera view is for phones that joined with the table code."))
    return viewer, spectator


@camera_view.get("/camera/snapshot.jpg")
def snapshot():
    _require_viewer()
    data, _seq = live_view().jpeg(timeout=1.0)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@camera_view.get("/camera/stream.mjpg")
def stream():
    viewer, spectator = _require_viewer()
    may_read = read_right(viewer)
    view = live_view()
    if not view.try_enter(spectator):
        raise WebError(503, "too_many_viewers", _("The live view already has %(n)d viewers; try again later.",
                                                   n=view.settings.spectator_viewers if spectator
                                                   else view.settings.max_viewers))
    interval = 1.0 / view.settings.view_fps

    def frames():
        try:
            last = None
            while True:
                started = time.monotonic()
                data, seq = view.jpeg(timeout=2.0, after_seq=last)
                last = seq if seq is not None else last
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(data)).encode()
                       + b"\r\n\r\n" + data + b"\r\n")
                camera = view.camera
                if camera is None or not camera.running or not may_read():  # unplugged, or the code changed
                    return
                rest = interval - (time.monotonic() - started)
                if rest > 0:
                    time.sleep(rest)  # the throttle: at most view_fps pictures per second per viewer
        finally:
            view.leave(spectator)

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
