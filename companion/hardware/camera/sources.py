"""Camera source specs ("sim", "picamera2", "opencv:0", "replay:DIR") and the one factory that opens them.

The config check, `companion run --camera` and `companion doctor` all go through
`parse_source`, so a typo is explained the same way everywhere. Heavy libraries
(OpenCV's capture, picamera2) are imported only by the source that needs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily: reading the configuration must not load numpy or OpenCV
    from companion.config import CameraSettings
    from companion.hardware.camera.base import FrameSource

KINDS = ("sim", "picamera2", "opencv", "replay", "off")
FORMS = '"sim", "picamera2", "opencv:0" (or a device path such as /dev/video0), "replay:/path/to/folder-or-video", "off"'


@dataclass(frozen=True)
class SourceSpec:
    kind: str
    #: opencv: a device index (int) or path; replay: a folder or video file; otherwise None
    target: int | str | None = None

    def __str__(self) -> str:
        return self.kind if self.target is None else f"{self.kind}:{self.target}"


def parse_source(spec: str) -> SourceSpec:
    """The parsed spec; ValueError naming the accepted forms for anything else."""
    text = spec.strip()
    kind, sep, rest = text.partition(":")
    kind = kind.lower()
    if text.startswith("/dev/"):
        return SourceSpec("opencv", text)
    if kind in ("sim", "picamera2", "off") and not rest:
        return SourceSpec(kind)
    if kind == "opencv" and sep:
        rest = rest.strip()
        if rest.isdigit():
            return SourceSpec("opencv", int(rest))
        if rest:
            return SourceSpec("opencv", rest)
    if kind == "replay" and rest.strip():
        return SourceSpec("replay", rest.strip())
    raise ValueError(f"camera source {spec!r} is not one of: {FORMS}")


def make_source(settings: CameraSettings, services=None) -> FrameSource | None:
    """The FrameSource the settings describe (not opened yet); None for "off".

    "sim" draws the table as the game says it looks, so it needs the running companion
    (`services`: its table and vision settings).
    """
    spec = parse_source(settings.source)
    size = (settings.width, settings.height)
    if spec.kind == "off":
        return None
    if spec.kind == "sim":
        return sim_source(settings, services)
    if spec.kind == "picamera2":
        from companion.hardware.camera.picamera import PiCameraSource

        return PiCameraSource(size=size, fps=settings.fps, exposure_lock=settings.exposure_lock)
    if spec.kind == "opencv":
        from companion.hardware.camera.opencv import OpenCVSource

        return OpenCVSource(spec.target, size=size, fps=settings.fps, exposure_lock=settings.exposure_lock)
    from companion.hardware.camera.replay import ReplaySource

    return ReplaySource(Path(str(spec.target)).expanduser(), fps=settings.fps)


def sim_source(settings: CameraSettings, services) -> FrameSource:
    """The simulated table camera (the vision renderer's `SimTableFeed`): frames of the table as the game
    says it looks, rendered from the live game state."""
    from companion.hardware.camera.base import CameraError

    if services is None:
        raise CameraError("the simulated table camera draws the running game: it exists only inside `companion run`")
    try:
        from companion.hardware.camera.sim import SimTableFeed
        vision_settings = services.settings.vision
    except (ImportError, AttributeError) as e:
        raise CameraError(f"the simulated table camera is not available in this installation ({e})") from None
    return SimTableFeed(services.table, vision_settings, fps=settings.fps).source
