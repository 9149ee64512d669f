"""Photos of winning hands scored on the phones, kept with the players' corrections: labelled real
data (a corrected photo is exactly what the tile recogniser lacks).

`POST /api/score` keeps each photo it reads as NAME.jpg and NAME.json holding what the recogniser
read (`read`: tile, box, score). When the hand is recorded with the photo's name (the win event's
`scored`), the JSON gets `hand` (the hand as the players corrected and marked it), `tiles` (every
tile in the photo as corrected, in the order read), `corrected` (the places the players changed)
and where in the game log it was recorded (`game`, `event`). A photo never recorded is a reading
nobody confirmed; it stays until the limit pushes it out.

At most `limit` photos are kept, the oldest going first. Each file is written whole or not at all
(a temporary file renamed), the JSON last: a photo counts only once its JSON is there. A folder
that cannot be written (a full card) loses the photo, never the game.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import re
import secrets
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: the folder under the data folder
FOLDER = "scored_hands"
#: photos kept (phone photos are re-encoded at PHOTO_SIDE: ~0.3 MB each)
LIMIT = 500
#: the long side a kept photo is shrunk to (the recogniser reads far smaller)
PHOTO_SIDE = 1600
JPEG_QUALITY = 90
NAME = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{8}")


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all. Not synced (as the camera's samples): a photo lost to a power cut costs
    little, while a sync would make the game log's own writes wait behind it on an SD card."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class ScoredPhotos:
    """The folder of kept photos (thread-safe: one lock for its few, small writes)."""

    def __init__(self, folder: Path, limit: int = LIMIT) -> None:
        self.folder = Path(folder)
        self.limit = max(0, int(limit))
        self._lock = threading.Lock()

    def keep(self, image, read: list[dict[str, Any]], *, now: datetime.datetime | None = None) -> str | None:
        """Keep a photo (BGR) and what was read in it; its name, or None if none are kept or it
        could not be written (logged)."""
        import cv2

        if self.limit == 0:
            return None
        now = now or datetime.datetime.now(datetime.UTC)
        name = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(4)}"
        h, w = image.shape[:2]
        if max(h, w) > PHOTO_SIDE:
            k = PHOTO_SIDE / max(h, w)
            image = cv2.resize(image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
            read = [dict(t, box=[round(v * k, 1) for v in t["box"]]) for t in read]
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            return None
        body = {"name": name, "at": now.isoformat(timespec="seconds"), "read": read}
        with self._lock:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                _write(self.folder / f"{name}.jpg", jpeg.tobytes())
                _write(self.folder / f"{name}.json", json.dumps(body).encode())
            except OSError as e:
                log.warning("scored hands: photo %s not kept: %s", name, e)
                return None
            self._prune()
        return name

    def get(self, name: str) -> dict[str, Any] | None:
        """A kept photo's record, or None (an unknown or malformed name, a damaged file)."""
        if not NAME.fullmatch(name or ""):
            return None
        try:
            return json.loads((self.folder / f"{name}.json").read_text())
        except (OSError, ValueError):
            return None

    def label(self, name: str, hand: dict[str, Any], tiles: list[str] | None, **where: Any) -> bool:
        """Add the players' answer to a kept photo: the hand as recorded and the photo's tiles as
        corrected (`tiles`, in the order read; None: as read). False if there is no such photo."""
        with self._lock:
            record = self.get(name)
            if record is None:
                return False
            read = [t["tile"] for t in record.get("read", [])]
            tiles = list(tiles) if tiles is not None else read
            record.update(hand=hand, tiles=tiles, labelled=True, **where,
                          corrected=[{"position": i + 1, "read": r, "tile": t}
                                     for i, (r, t) in enumerate(zip(read, tiles)) if r != t])
            if len(tiles) != len(read):  # tiles the recogniser missed, or read where there were none
                record["added"] = tiles[len(read):]
            try:
                _write(self.folder / f"{name}.json", json.dumps(record).encode())
            except OSError as e:
                log.warning("scored hands: the labels of %s not kept: %s", name, e)
                return False
        return True

    def zip_bytes(self) -> bytes:
        """Every kept photo with its JSON, and a README saying what the JSON holds."""
        import io
        import zipfile

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("README.txt", (__doc__ or "").strip() + "\n")
            for name in self.names():
                for suffix in (".jpg", ".json"):
                    path = self.folder / f"{name}{suffix}"
                    if path.is_file():
                        z.write(path, path.name)
        return buf.getvalue()

    def names(self) -> list[str]:
        """Kept photos, oldest first (a photo counts once its JSON is there)."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json") if NAME.fullmatch(p.stem))

    def _prune(self) -> None:
        names = self.names()
        for name in names[: max(0, len(names) - self.limit)]:
            for suffix in (".json", ".jpg"):  # the JSON first: without it the photo no longer counts
                (self.folder / f"{name}{suffix}").unlink(missing_ok=True)
        kept = set(self.names())
        for jpg in self.folder.glob("*.jpg"):
            if jpg.stem not in kept:
                jpg.unlink(missing_ok=True)
        for tmp in self.folder.glob("*.tmp"):
            tmp.unlink(missing_ok=True)
