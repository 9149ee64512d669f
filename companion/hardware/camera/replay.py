"""Replay a folder of photos or a video file as a camera, paced like a live one.

For trying recognition on recorded tables, and for a demo without a camera. A photo
that cannot be decoded is skipped with a warning (counted in `describe()["skipped"]`),
never the end of the replay. A `NAME.json` beside `NAME.jpg` is passed on as the frame's
`truth` (what is really on the table), so a recorded scene set can be scored.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import cv2

from companion.hardware.camera.base import CameraError, Frame, FrameSource

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})


class ReplaySource(FrameSource):
    kind = "replay"

    def __init__(self, path: str | Path, fps: float = 15.0, *, loop: bool = True) -> None:
        self.path = Path(path)
        self.fps = fps
        self.loop = loop
        self._files: list[Path] = []
        self._video: cv2.VideoCapture | None = None
        self._index = 0
        self._seq = 0
        self._next_due = 0.0
        self.skipped: list[str] = []

    def open(self) -> None:
        if not self.path.exists():
            raise CameraError(f"replay: no such folder or video: {self.path}")
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise CameraError(f"replay: no images ({', '.join(sorted(IMAGE_SUFFIXES))}) in {self.path}")
        else:
            video = cv2.VideoCapture(str(self.path))
            if not video.isOpened():
                video.release()
                raise CameraError(f"replay: cannot play {self.path} as a video")
            self._video = video
        self._index = 0
        self._next_due = time.monotonic()

    def read(self, timeout: float = 1.0) -> Frame:
        if not self._files and self._video is None:
            raise CameraError("replay: not open")
        wait = self._next_due - time.monotonic()
        if wait > 0:  # pace to `fps` like a live camera
            time.sleep(min(wait, timeout))
        self._next_due = max(self._next_due + (1.0 / self.fps if self.fps > 0 else 0.0), time.monotonic() - 1.0)
        image, truth = self._read_video() if self._video is not None else self._read_folder()
        self._seq += 1
        return Frame(image=image, seq=self._seq, t=time.monotonic(), truth=truth)

    def _read_folder(self):
        for _ in range(len(self._files)):
            if self._index >= len(self._files):
                if not self.loop:
                    raise CameraError("replay: end of the folder")
                self._index = 0
            path = self._files[self._index]
            why = _unreadable(path)
            image = cv2.imread(str(path), cv2.IMREAD_COLOR) if why is None else None
            if image is None:
                if not self.path.is_dir():
                    raise CameraError(f"replay: the folder {self.path} went away")
                # left out of the loop for good: not decoded (and complained of by the decoder) again
                del self._files[self._index]
                self.skipped.append(path.name)
                log.warning("replay: skipping %s: %s", path, why or "not a readable image")
                continue
            self._index += 1
            return image, _truth_beside(path)
        raise CameraError(f"replay: none of the images in {self.path} can be read "
                          f"({len(self.skipped)} skipped)")

    def _read_video(self):
        assert self._video is not None
        ok, image = self._video.read()
        if not ok and self.loop:
            self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._video.read()
        if not ok:
            raise CameraError(f"replay: end of {self.path}" if self.path.exists() else
                              f"replay: the video {self.path} went away")
        return image, None

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None
        self._files = []

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": str(self.path), "fps": self.fps,
                               "skipped": list(self.skipped)}
        if self._files:
            out["images"] = len(self._files)
        return out


def _unreadable(path: Path) -> str | None:
    """Why a photo cannot serve as a frame before it is decoded, or None: a JPEG cut short
    decodes to a half-grey picture without an error, and would never hold still in a loop."""
    if path.suffix.lower() in (".jpg", ".jpeg"):
        try:
            with open(path, "rb") as f:
                f.seek(max(0, path.stat().st_size - 1024))
                if b"\xff\xd9" not in f.read():
                    return "a JPEG cut short (no end marker)"
        except OSError as e:
            return f"cannot read: {e.strerror}"
    return None


def _truth_beside(image: Path) -> dict[str, Any] | None:
    sidecar = image.with_suffix(".json")
    if not sidecar.is_file():
        return None
    try:
        return json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        log.warning("replay: ignoring %s: %s", sidecar, e)
        return None
