"""The Pi camera adapter against a stand-in `picamera2` module (the real one exists only on a Pi;
tests/hardware runs the same source on the camera module itself)."""

import sys
import types

import numpy as np
import pytest

from companion.hardware.camera.base import CameraError
from companion.hardware.camera.picamera import PiCameraSource


class FakePicamera2:
    cameras = [{"Model": "imx708"}]
    instances: list = []
    fail_start = False
    timeout_after: int | None = None

    def __init__(self, num=0):
        self.num, self.controls, self.config, self.started, self.closed, self.reads = num, {}, None, False, False, 0
        FakePicamera2.instances.append(self)

    @classmethod
    def global_camera_info(cls):
        return cls.cameras

    def create_video_configuration(self, main, controls, buffer_count):
        return {"main": main, "controls": controls, "buffer_count": buffer_count}

    def configure(self, config):
        self.config = config

    def start(self):
        if FakePicamera2.fail_start:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        self.started = True

    def capture_metadata(self):
        return {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.5), "Lux": 300}

    def set_controls(self, controls):
        self.controls.update(controls)

    def capture_array(self, name, wait=None):
        assert name == "main" and wait is False
        return "job"

    def wait(self, job, timeout=None):
        self.reads += 1
        if FakePicamera2.timeout_after is not None and self.reads > FakePicamera2.timeout_after:
            raise TimeoutError
        w, h = self.config["main"]["size"]
        return np.zeros((h, w, 4), np.uint8)  # XBGR-padded rows, as some configurations give

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


@pytest.fixture(autouse=True)
def fake_picamera2(monkeypatch):
    FakePicamera2.instances, FakePicamera2.cameras = [], [{"Model": "imx708"}]
    FakePicamera2.fail_start, FakePicamera2.timeout_after = False, None
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr("companion.hardware.camera.picamera.WARMUP_S", 0)


def test_configures_the_main_stream_in_opencv_order_and_reads_frames():
    with PiCameraSource(size=(1280, 720), fps=15) as src:
        cam = FakePicamera2.instances[0]
        assert cam.config["main"] == {"size": (1280, 720), "format": "RGB888"}
        assert cam.config["controls"] == {"FrameRate": 15.0}
        frames = [src.read(), src.read()]
        assert src.describe()["model"] == "imx708"
    assert frames[0].image.shape == (720, 1280, 3) and [f.seq for f in frames] == [1, 2]
    assert cam.closed


def test_exposure_lock_fixes_what_auto_exposure_settled_on():
    with PiCameraSource(exposure_lock=True):
        cam = FakePicamera2.instances[0]
    assert cam.controls == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 2.5,
                            "ColourGains": (1.8, 1.5)}


def test_no_camera_module_is_explained():
    FakePicamera2.cameras = []
    with pytest.raises(CameraError, match="no camera module found: check the ribbon cable"):
        PiCameraSource().open()


def test_a_busy_camera_is_a_camera_error():
    FakePicamera2.fail_start = True
    with pytest.raises(CameraError, match="cannot start: Failed to acquire camera"):
        PiCameraSource().open()


def test_no_picture_in_time_is_a_camera_error():
    FakePicamera2.timeout_after = 1
    with PiCameraSource() as src:
        src.read()
        with pytest.raises(CameraError, match="no picture within 0.5 s"):
            src.read(timeout=0.5)
