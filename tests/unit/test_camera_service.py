"""The camera component: latest-frame buffer, rotation, reconnect after an unplug, status."""

import threading
import time

import numpy as np
import pytest

from companion.hardware.camera.base import CameraError, Frame, FrameSource
from companion.hardware.camera.service import CameraService
from companion.hub import Hub


class Plug:
    """A camera's cable: tests pull it out and put it back."""

    def __init__(self):
        self.plugged = threading.Event()
        self.plugged.set()


class FakeCamera(FrameSource):
    """A test double: 40x30 frames at about 100 fps while plugged in; CameraError while not."""

    kind = "fake"

    def __init__(self, plug: Plug, size=(40, 30)):
        self.plug, self.size, self.seq, self.opened = plug, size, 0, False

    def open(self):
        if not self.plug.plugged.is_set():
            raise CameraError("no camera at /dev/fake0")
        self.opened = True

    def read(self, timeout=1.0):
        time.sleep(0.01)
        if not self.plug.plugged.is_set():
            raise CameraError("camera stopped giving pictures (unplugged?)")
        self.seq += 1
        image = np.zeros((self.size[1], self.size[0], 3), np.uint8)
        image[0, 0] = (self.seq % 256, 0, 0)
        return Frame(image=image, seq=self.seq, t=time.monotonic())

    def close(self):
        self.opened = False


def wait_for(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def plug():
    return Plug()


def service(plug, **kw):
    hub = Hub()
    cam = CameraService(lambda: FakeCamera(plug), hub, spec="fake", retry_first=0.05, retry_max=0.2,
                        status_every=0.1, **kw)
    cam.start()
    return cam, hub


def test_latest_waits_for_a_newer_frame_and_never_repeats_one(plug):
    cam, hub = service(plug)
    try:
        first = cam.latest(timeout=2)
        assert first is not None and first.image.shape == (30, 40, 3)
        second = cam.latest(after_seq=first.seq, timeout=2)
        assert second is not None and second.seq > first.seq
        assert wait_for(lambda: cam.fps > 20)
        assert hub.status["camera"]["connected"] is True
        assert hub.status["camera"]["resolution"] == [40, 30]
    finally:
        cam.stop()
    assert cam.latest(after_seq=10**9, timeout=0.1) is None


def test_a_slow_consumer_gets_the_newest_frame_not_a_backlog(plug):
    cam, hub = service(plug, max_fps=0)
    try:
        seen = cam.latest(timeout=2).seq
        time.sleep(0.3)  # busy recognising: ~30 frames came meanwhile
        newest = cam.latest(after_seq=seen, timeout=2)
        assert newest.seq >= seen + 10
    finally:
        cam.stop()


def test_a_source_faster_than_asked_is_held_to_the_frame_rate(plug):
    cam, hub = service(plug, max_fps=10)  # the fake gives ~100 frames/s
    try:
        first = cam.latest(timeout=2).seq
        time.sleep(0.6)
        assert cam.latest(timeout=2).seq - first <= 9
    finally:
        cam.stop()


def test_rotation_turns_every_frame(plug):
    cam, hub = service(plug, rotation=90)
    try:
        assert cam.latest(timeout=2).image.shape == (40, 30, 3)
    finally:
        cam.stop()


def test_an_unplugged_camera_shows_as_such_and_recovers(plug):
    cam, hub = service(plug)
    try:
        before = cam.latest(timeout=2).seq
        plug.plugged.clear()
        assert wait_for(lambda: hub.status["camera"]["connected"] is False)
        status = hub.status["camera"]
        assert "unplugged" in status["error"] or "no camera" in status["error"]
        assert cam.latest(timeout=0.1) is None  # no stale picture of a table the camera no longer sees
        assert wait_for(lambda: "no camera at /dev/fake0" in (hub.status["camera"]["error"] or ""))
        plug.plugged.set()
        assert wait_for(lambda: hub.status["camera"]["connected"] is True)
        after = cam.latest(after_seq=before, timeout=2)
        assert after is not None and after.seq > before  # numbering goes on across the reconnect
        assert hub.status["camera"]["reconnects"] >= 1 and hub.status["camera"]["error"] is None
    finally:
        cam.stop()


def test_a_camera_missing_at_start_is_retried_until_it_comes(plug):
    plug.plugged.clear()
    cam, hub = service(plug)
    try:
        assert wait_for(lambda: hub.status["camera"]["error"] is not None)
        assert cam.latest(timeout=0.2) is None and not cam.connected
        plug.plugged.set()
        assert cam.latest(timeout=3) is not None
    finally:
        cam.stop()


def test_stop_wakes_waiting_consumers(plug):
    plug.plugged.clear()
    cam, hub = service(plug)
    got = []
    t = threading.Thread(target=lambda: got.append(cam.latest(timeout=30)))
    t.start()
    time.sleep(0.1)
    cam.stop()
    t.join(timeout=5)
    assert not t.is_alive() and got == [None]


def test_the_status_shows_the_photos_a_replay_skipped_after_it_connected(tmp_path):
    import cv2

    from companion.hardware.camera.replay import ReplaySource

    cv2.imwrite(str(tmp_path / "a.png"), np.full((48, 64, 3), 90, np.uint8))
    (tmp_path / "b.png").write_bytes(b"garbage")  # found unreadable at the first round, after connecting
    hub = Hub()
    cam = CameraService(ReplaySource(tmp_path, fps=50), hub, spec="replay", status_every=0.05)
    cam.start()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not hub.status.get("camera", {}).get("device", {}).get("skipped"):
            time.sleep(0.02)
        assert hub.status["camera"]["device"]["skipped"] == ["b.png"]
    finally:
        cam.stop()
