"""The one interface every camera source implements (Pi camera, USB webcam, replay, simulator).

A source hands out `Frame`s; the camera service (a thread, with reconnect) pulls from
it and keeps the latest frame for the vision pipeline and the live view. Sources raise
`CameraError` when the camera is missing or unplugged; the service reports that as
link status and keeps retrying.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.errors import CompanionError


class CameraError(CompanionError, RuntimeError):
    """The camera is missing, unplugged or gives no frames."""


@dataclass(frozen=True)
class Frame:
    #: BGR, uint8, H×W×3 (OpenCV's layout)
    image: np.ndarray
    #: sequence number from the source, rising by one per frame delivered
    seq: int
    #: time.monotonic() when the frame was captured
    t: float
    #: what is really on the table, when the source knows it (the simulated table renderer)
    truth: dict[str, Any] | None = field(default=None, compare=False)


class FrameSource(ABC):
    """A camera. Use as a context manager or call open()/close()."""

    #: short kind name shown in status and `doctor`: "sim", "opencv", "picamera2", "replay"
    kind: str = "camera"

    @abstractmethod
    def open(self) -> None:
        """Start the camera; CameraError if it is not there."""

    @abstractmethod
    def read(self, timeout: float = 1.0) -> Frame:
        """The next frame; CameraError if none comes within `timeout` seconds."""

    @abstractmethod
    def close(self) -> None:
        """Release the camera; safe to call twice."""

    def describe(self) -> dict[str, Any]:
        """Settings worth showing in status (resolution, fps, device …)."""
        return {"kind": self.kind}

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()
