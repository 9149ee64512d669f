"""The Raspberry Pi camera module (Camera Module 3 / 2, HQ, Global Shutter) through picamera2.

picamera2 loads libcamera when imported, which exists only on a Pi, so it is imported in
`open()`, never at module import. On Raspberry Pi OS it comes from apt
(`python3-picamera2`); the venv must see system packages (deploy/install.sh makes it so).
"""

from __future__ import annotations

import time
from typing import Any

from companion.hardware.camera.base import CameraError, Frame, FrameSource

#: seconds auto-exposure gets to settle on the table's light before it is locked
WARMUP_S = 1.5


class PiCameraSource(FrameSource):
    kind = "picamera2"

    def __init__(self, size: tuple[int, int] = (1280, 720), fps: float = 15.0, *, exposure_lock: bool = False,
                 camera_num: int = 0) -> None:
        self.size = size
        self.fps = fps
        self.exposure_lock = exposure_lock
        self.camera_num = camera_num
        self._cam = None
        self._seq = 0
        self._model: str | None = None
        self._locked: dict[str, Any] | None = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as e:
            raise CameraError(
                f"picamera2 is not installed ({e}): on Raspberry Pi OS run `sudo apt install python3-picamera2` "
                "and make the venv with --system-site-packages (deploy/install.sh does both)") from None
        cameras = Picamera2.global_camera_info()
        if len(cameras) <= self.camera_num:
            raise CameraError("no camera module found: check the ribbon cable (contacts face the board) "
                              "and that `rpicam-hello --list-cameras` lists it")
        self._model = cameras[self.camera_num].get("Model")
        try:
            cam = Picamera2(self.camera_num)
            # "RGB888" is laid out B, G, R in memory: OpenCV's order, no conversion needed
            config = cam.create_video_configuration(main={"size": tuple(self.size), "format": "RGB888"},
                                                    controls={"FrameRate": float(self.fps)}, buffer_count=4)
            cam.configure(config)
            cam.start()
        except Exception as e:  # libcamera reports a busy or failed camera as RuntimeError and others
            raise CameraError(f"the camera module {self._model} cannot start: {e}") from None
        self._cam = cam
        if self.exposure_lock:
            time.sleep(WARMUP_S)
            md = cam.capture_metadata()
            self._locked = {k: md[k] for k in ("ExposureTime", "AnalogueGain", "ColourGains") if k in md}
            cam.set_controls({"AeEnable": False, "AwbEnable": False, **self._locked})

    def read(self, timeout: float = 1.0) -> Frame:
        if self._cam is None:
            raise CameraError("camera not open")
        try:
            job = self._cam.capture_array("main", wait=False)
            image = self._cam.wait(job, timeout=timeout)
        except TimeoutError:
            raise CameraError(f"the camera module gave no picture within {timeout:g} s") from None
        except Exception as e:
            raise CameraError(f"the camera module failed: {e}") from None
        self._seq += 1
        return Frame(image=image[:, :, :3], seq=self._seq, t=time.monotonic())

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self._model, "resolution": list(self.size), "fps": self.fps,
                "exposure_locked": self._locked}
