"""Still scenes the camera acted on, kept in the data folder for whoever improves the reading.

The camera reads real tables in ways a rendered one cannot show (real tiles, real light, real
walls), and such photos are what the readers lack most. So each still scene on which the table
watcher recorded something or warned (`companion.vision.watch`), or whose dice it read
otherwise than a phone typed them, is kept: the frame as NAME.jpg and NAME.json with what was read, why it was kept and what the game expected then.
Nothing leaves the companion: the host downloads them as one zip (Settings -> Camera samples)
or copies the folder. In the zip each sample also carries what the players did next in the game
log ("afterwards": a throw or a break of the camera's undone or corrected means it read wrong),
which makes it a labelled example.

At most `limit` samples are kept (`[vision] keep_samples`, 0: none), the oldest going first.
Each file is written whole or not at all (a temporary file renamed), the JSON last: a sample
counts only once its JSON is there, and a JPEG left without one by a crash goes at the next
prune; a JSON a power cut left damaged is left out of the zip. A folder that cannot be written
(a full card) loses the sample, never the game.
"""

from __future__ import annotations

import datetime
import io
import json
import logging
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import cv2
import numpy as np

log = logging.getLogger(__name__)

#: the folder under the data folder
FOLDER = "vision_samples"
JPEG_QUALITY = 90

ZIP_README = """Still scenes the mahjong table companion's camera acted on.

Each NAME.jpg is the camera's frame; NAME.json holds:
  why        what the camera did with it: "dice" or "break" (recorded from it, ids in
             "recorded"), or the warning it gave ("wrong_break", "wrong_marker", "wrong_wind",
             "rethrow", "dice_unsure", "wrong_wall_length"), or "dice_disagree": dice typed on a
             phone that the camera read otherwise ("typed": the faces as typed, the truth)
  read       what was read (as `companion observe --json` prints it; pixel boxes in the frame)
  expected   what the game expected then: the break (seat, stack), the prevalent wind, the variant
  game, hand, after_event   where in the game log it was read
  afterwards the game log's next events (in this zip only): a camera event undone or corrected
             there means the camera read it wrong
Read a frame again with: companion observe NAME.jpg --variant VARIANT --json
"""


def samples_path(data_dir: Path) -> Path:
    return Path(data_dir) / FOLDER


class SampleKeeper:
    """The folder of kept samples; thread-safe enough for one writer (the watcher) and readers."""

    def __init__(self, folder: Path, limit: int) -> None:
        self.folder = Path(folder)
        self.limit = max(0, int(limit))

    # --- writing ----------------------------------------------------------------------------
    def keep(self, image: np.ndarray, record: dict[str, Any], *, now: datetime.datetime | None = None) -> str | None:
        """Keep one frame and its record (JSON-able); returns the sample's name, or None when
        none are kept or it could not be written (logged)."""
        if self.limit == 0:
            return None
        now = now or datetime.datetime.now(datetime.UTC)
        name = f"{now:%Y%m%d-%H%M%S-%f}"
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            log.warning("vision samples: the frame could not be encoded; not kept")
            return None
        body = {"name": name, "at": now.isoformat(timespec="seconds"), **record}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _write(self.folder / f"{name}.jpg", jpeg.tobytes())
            _write(self.folder / f"{name}.json", json.dumps(body, default=plain_json).encode())
        except OSError as e:
            log.warning("vision samples: %s not kept: %s", name, e)
            return None
        self.prune()
        return name

    def prune(self) -> int:
        """Drop the oldest samples beyond the limit and JPEGs left without their JSON; how many went."""
        names = self.names()
        gone = 0
        for name in names[: max(0, len(names) - self.limit)]:
            gone += self._remove(name)
        kept = set(self.names())
        for jpg in self.folder.glob("*.jpg") if self.folder.is_dir() else []:
            if jpg.stem not in kept:
                gone += self._remove(jpg.stem)
        for tmp in self.folder.glob("*.tmp") if self.folder.is_dir() else []:  # a write cut short
            tmp.unlink(missing_ok=True)
        return gone

    def clear(self) -> int:
        """Delete every sample; how many there were."""
        names = self.names()
        for name in names:
            self._remove(name)
        self.prune()  # strays too
        return len(names)

    def _remove(self, name: str) -> int:
        for suffix in (".json", ".jpg"):  # the JSON first: without it the sample no longer counts
            try:
                (self.folder / f"{name}{suffix}").unlink()
            except FileNotFoundError:
                pass
            except OSError as e:
                log.warning("vision samples: %s%s not deleted: %s", name, suffix, e)
                return 0
        return 1

    # --- reading ----------------------------------------------------------------------------
    def names(self) -> list[str]:
        """The samples kept, oldest first (a name is its UTC time)."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json") if (self.folder / f"{p.stem}.jpg").is_file())

    def summary(self) -> dict[str, Any]:
        """{"count", "bytes", "limit", "newest"}: what the settings page shows."""
        names = self.names()
        size = 0
        for name in names:
            for suffix in (".json", ".jpg"):
                try:
                    size += (self.folder / f"{name}{suffix}").stat().st_size
                except OSError:
                    pass
        return {"count": len(names), "bytes": size, "limit": self.limit, "newest": names[-1] if names else None}

    def write_zip(self, out: BinaryIO, afterwards: Callable[[dict], list[dict]] | None = None) -> int:
        """Every sample into one zip (README.txt, NAME.jpg, NAME.json with "afterwards" added from
        `afterwards(record)`); a sample whose files vanish or whose JSON is damaged meanwhile is
        left out. Returns how many went in."""
        n = 0
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("README.txt", ZIP_README, compress_type=zipfile.ZIP_DEFLATED)
            for name in self.names():
                try:
                    record = json.loads((self.folder / f"{name}.json").read_text())
                    jpeg = (self.folder / f"{name}.jpg").read_bytes()
                except (OSError, ValueError) as e:
                    log.warning("vision samples: %s left out of the zip: %s", name, e)
                    continue
                if afterwards is not None:
                    record["afterwards"] = afterwards(record)
                z.writestr(f"{name}.jpg", jpeg, compress_type=zipfile.ZIP_STORED)  # JPEG does not shrink
                z.writestr(f"{name}.json", json.dumps(record, indent=1, default=plain_json),
                           compress_type=zipfile.ZIP_DEFLATED)
                n += 1
        return n

    def zip_bytes(self, afterwards: Callable[[dict], list[dict]] | None = None) -> bytes:
        buf = io.BytesIO()
        self.write_zip(buf, afterwards)
        return buf.getvalue()


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all. Not synced: a sample lost to a power cut costs nothing, while a sync
    would make the game log's own writes wait behind it on an SD card."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def plain_json(value):
    """JSON for the numpy values a reading may hold."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")
