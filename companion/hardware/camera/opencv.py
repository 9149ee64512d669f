"""A USB webcam (or any device or stream OpenCV's VideoCapture can open)."""

from __future__ import annotations

import logging
import time
from typing import Any

import cv2

from companion.hardware.camera.base import CameraError, Frame, FrameSource

log = logging.getLogger(__name__)

#: frames read before the exposure is locked, so auto-exposure has settled on the table's light
WARMUP_FRAMES = 15


class OpenCVSource(FrameSource):
    kind = "opencv"

    def __init__(self, device: int | str, size: tuple[int, int] = (1280, 720), fps: float = 15.0, *,
                 exposure_lock: bool = False) -> None:
        self.device = device
        self.size = size
        self.fps = fps
        self.exposure_lock = exposure_lock
        self._cap: cv2.VideoCapture | None = None
        self._seq = 0
        self._exposure: float | None = None
        self._first = None  # the test picture taken at open(), handed out as the first frame

    def open(self) -> None:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"no camera at {self.device!r} (is it plugged in? `ls /dev/video*` lists cameras)")
        # MJPG lets a USB 2 webcam deliver 1280x720 at full rate; ignored where it does not apply
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the latest frame, not one from a queue of old ones
        self._cap = cap
        first = self._grab()  # a camera that opens but gives no picture is not a camera
        if self.exposure_lock:
            for _ in range(WARMUP_FRAMES):
                self._grab()
            self._lock_exposure()
        self._first = first

    def _lock_exposure(self) -> None:
        """Fix the exposure auto-exposure settled on (V4L2: auto_exposure 1 = manual)."""
        assert self._cap is not None
        value = self._cap.get(cv2.CAP_PROP_EXPOSURE)
        manual = self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1) and self._cap.set(cv2.CAP_PROP_EXPOSURE, value)
        self._exposure = value if manual else None
        if not manual:
            log.warning("camera %r does not let its exposure be locked; it stays automatic", self.device)

    def _grab(self):
        if self._cap is None:
            raise CameraError("camera not open")
        ok, image = self._cap.read()
        if not ok or image is None:
            raise CameraError(f"camera {self.device!r} stopped giving pictures (unplugged?)")
        return image

    def read(self, timeout: float = 1.0) -> Frame:
        first, self._first = self._first, None
        image = first if first is not None else self._grab()
        self._seq += 1
        return Frame(image=image, seq=self._seq, t=time.monotonic())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "device": self.device, "fps": self.fps}
        if self._cap is not None:
            out["resolution"] = [int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
                                 int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))]
            out["exposure_locked"] = self._exposure is not None
        return out
