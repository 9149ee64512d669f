"""The table's four corners set by hand on the dashboard, for a table without corner markers.

The host taps the corners on a picture from the camera (`companion/web/corners.py`); they are
kept in the data folder (`table_corners.json`), so they outlive a restart, and handed to the
running watcher. They take the place of `[vision] manual_corners` from the configuration while
they are set. Either way they are a fallback: while the camera sees the markers, the markers
calibrate (`calibrate.CalibrationTracker`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from companion.vision.calibrate import CalibrationError

FILE_NAME = "table_corners.json"


def corners_path(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir) / FILE_NAME


def load_corners(path: str | os.PathLike) -> dict | None:
    """The corners saved at `path`: {"corners": [[x, y] × 4] in image pixels, "image_size": [w, h]
    of the picture they were set on}, or None when none were set.

    A damaged file raises CalibrationError, naming it: the host sets the corners again."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise CalibrationError("%(path)s: the table corners saved there cannot be read (%(why)s); set them again",
                               path=str(path), why=str(e)) from None
    corners = data.get("corners") if isinstance(data, dict) else None
    size = data.get("image_size") if isinstance(data, dict) else None
    if not (_numbers(corners, 4, 2) and _numbers(size, 1, 2)):
        raise CalibrationError("%(path)s: the table corners saved there are not four [x, y] points; set them again",
                               path=str(path))
    return {"corners": [[float(x), float(y)] for x, y in corners], "image_size": [int(v) for v in size]}


def _numbers(value, rows: int, cols: int) -> bool:
    """`value` is `rows` lists of `cols` numbers (one list of them when rows is 1)."""
    lists = [value] if rows == 1 else value
    return (isinstance(lists, list) and len(lists) == rows
            and all(isinstance(r, list) and len(r) == cols
                    and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in r) for r in lists))


def save_corners(path: str | os.PathLike, corners: list[list[float]], size: tuple[int, int]) -> None:
    """Keep the corners (image pixels of a `size` = (width, height) picture); written whole or not
    at all, so a pulled plug leaves the corners set before."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"corners": [[float(x), float(y)] for x, y in corners],
                   "image_size": list(size)}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def clear_corners(path: str | os.PathLike) -> bool:
    """Forget the corners set by hand; True if there were any."""
    try:
        Path(path).unlink()
    except FileNotFoundError:
        return False
    return True
