"""The real camera module and GPIO pins: the same contract the simulated twins are tested against."""

import time

from companion.config import GpioSettings
from companion.game.events import HandWon
from companion.hardware.camera.picamera import PiCameraSource
from companion.hardware.camera.service import CameraService
from companion.hardware.gpio.panel import Panel
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table


def test_camera_module_gives_frames_of_the_asked_size():
    with PiCameraSource(size=(1280, 720), fps=15) as cam:
        frames = [cam.read(timeout=3) for _ in range(5)]
    assert all(f.image.shape == (720, 1280, 3) for f in frames)
    assert [f.seq for f in frames] == [1, 2, 3, 4, 5]


def test_camera_service_on_the_camera_module_runs_at_its_frame_rate():
    hub = Hub()
    service = CameraService(PiCameraSource(size=(1280, 720), fps=15), hub, spec="picamera2")
    service.start()
    try:
        assert service.latest(timeout=10) is not None
        time.sleep(3)
        assert 10 <= service.fps <= 16
        assert hub.status["camera"]["connected"] is True
    finally:
        service.stop()


def test_real_pins_light_the_lamp_in_front_of_east():
    hub = Hub()
    table = Table(EventStore(":memory:"), hub)
    table.start_game(load_variant("classical"), ["A", "B", "C", "D"])
    settings = GpioSettings(backend="real")
    panel = Panel(table, hub, settings, None)  # gpiozero's default factory: the Pi's own pins
    panel.start()
    try:
        assert hub.status["gpio"]["connected"], hub.status["gpio"]
        assert [lamp.value for lamp in panel.seat_lamps] == [1, 0, 0, 0]
        table.record(HandWon(winner=1))
        assert [lamp.value for lamp in panel.seat_lamps] == [0, 1, 0, 0]
        assert [lamp.value for lamp in panel.wind_lamps] == [1, 0, 0, 0]
    finally:
        panel.stop()
