"""Draw what the companion recognised over a camera frame, for the dashboard's live view.

Observations come from the vision pipeline on hub topic "observation", in pixel
coordinates of the frame it analysed: {"tiles": [{"tile", "box", "score"}],
"dice": [{"face", "box", "cocked", "face_p"}], "walls": …, …}; an optional "size": [w, h] says
which frame size the coordinates belong to (when recognition ran on a smaller stream).
Whatever else is there is drawn too: any item, list or seat-keyed dict of items with a
"box" [x1, y1, x2, y2], a polygon ("quad", "polygon", "points", "corners") or a point
("px": [x, y]); what the walls say (the break, live tiles) and the East marker's and wind
disc's readings are written along the top.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import cv2
import numpy as np

GREEN, ORANGE, RED, CYAN, WHITE, GREY = (80, 200, 80), (0, 165, 255), (40, 40, 230), (220, 200, 0), \
    (255, 255, 255), (150, 150, 150)
POLYGON_KEYS = ("quad", "polygon", "points", "corners")
LABEL_KEYS = ("label", "tile", "face", "seat", "id", "name")


def scaled(image: np.ndarray, width: int) -> tuple[np.ndarray, float]:
    """The image scaled down to `width` (never up) and the factor used."""
    h, w = image.shape[:2]
    if w <= width:
        return image, 1.0
    f = width / w
    return cv2.resize(image, (width, max(1, round(h * f))), interpolation=cv2.INTER_AREA), f


def _label(img, text: str, x: float, y: float, color) -> None:
    x, y = int(x), int(max(12, y - 4))
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, color, 1, cv2.LINE_AA)


def _items(value: Any) -> Iterable[tuple[str | None, dict]]:
    if isinstance(value, dict) and any(k in value for k in ("box", "px", *POLYGON_KEYS)):
        yield None, value  # one item on its own
        return
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield None, item
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict):
                yield str(key), item
            elif isinstance(item, list):
                for sub in item:
                    if isinstance(sub, dict):
                        yield str(key), sub


def _shape(img, item: dict, f: float, color, text: str | None) -> bool:
    box = item.get("box")
    if isinstance(box, (list, tuple)) and len(box) == 4:
        try:
            x1, y1, x2, y2 = (float(v) * f for v in box)
        except (TypeError, ValueError):
            return False
        cv2.rectangle(img, (int(x1), int(y1)), (int(x2), int(y2)), color, 2)
        if text:
            _label(img, text, x1, y1, color)
        return True
    px = item.get("px")
    if isinstance(px, (list, tuple)) and len(px) == 2:
        try:
            x, y = (float(v) * f for v in px)
        except (TypeError, ValueError):
            return False
        cv2.circle(img, (int(x), int(y)), 14, color, 2)
        if text:
            _label(img, text, x + 16, y + 4, color)
        return True
    for key in POLYGON_KEYS:
        pts = item.get(key)
        if isinstance(pts, (list, tuple)) and len(pts) >= 2:
            try:
                arr = np.array(pts, dtype=np.float64).reshape(-1, 2) * f
            except (TypeError, ValueError):
                return False
            cv2.polylines(img, [arr.round().astype(np.int32)], True, color, 2)
            if text:
                _label(img, text, arr[:, 0].min(), arr[:, 1].min(), color)
            return True
    return False


def draw(image: np.ndarray, observation: dict[str, Any] | None, *, scale: float = 1.0,
         caption: str | None = None) -> tuple[np.ndarray, int]:
    """A copy of `image` with the observation drawn on it, and how many things were drawn.

    `scale` is the factor from the analysed frame to `image` (the live view is scaled down).
    Malformed items are skipped: a bad observation never breaks the live view.
    """
    img = image.copy()
    drawn = 0
    if observation:
        size = observation.get("size")
        f = scale
        if isinstance(size, (list, tuple)) and len(size) == 2 and size[0]:
            f = img.shape[1] / float(size[0])
        for _, tile in _items(observation.get("tiles")):
            score = tile.get("score")
            text = f"{tile.get('tile', '?')}" + (f" {score:.2f}" if isinstance(score, (int, float)) else "")
            drawn += _shape(img, tile, f, GREEN, text)
        for _, die in _items(observation.get("dice")):
            drawn += _shape(img, die, f, RED if die.get("cocked") else ORANGE, die_label(die))
        for key, value in observation.items():
            if key in ("tiles", "dice", "size"):
                continue
            for name, item in _items(value):
                label = next((str(item[k]) for k in LABEL_KEYS if k in item), name)
                drawn += _shape(img, item, f, CYAN, f"{key} {label}" if label else key)
    summary = _summary(observation or {})
    if summary:
        cv2.rectangle(img, (0, 0), (img.shape[1], 22), (0, 0, 0), -1)
        cv2.putText(img, summary, (6, 15), cv2.FONT_HERSHEY_SIMPLEX, 0.45, WHITE, 1, cv2.LINE_AA)
    if caption:
        cv2.rectangle(img, (0, img.shape[0] - 22), (img.shape[1], img.shape[0]), (0, 0, 0), -1)
        cv2.putText(img, caption, (6, img.shape[0] - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.45, WHITE, 1, cv2.LINE_AA)
    return img, drawn


def die_label(die: dict[str, Any]) -> str:
    """A die's caption: its face, how sure the reader is of it (as a tile's score), and R18's
    prompt when it is cocked."""
    sure = die.get("face_p")
    return (f"{die.get('face', '?')}" + (f" {sure:.2f}" if isinstance(sure, (int, float)) else "")
            + (" cocked: throw again" if die.get("cocked") else ""))


def _summary(observation: dict[str, Any]) -> str:
    """One line of what was read that has no place in the picture: the break, tiles left, marker, wind."""
    parts = []
    walls = observation.get("walls")
    if isinstance(walls, dict):
        brk = walls.get("break")  # the position contract: [seat, stack]
        if isinstance(brk, (list, tuple)) and len(brk) == 2:
            parts.append(f"break at {brk[0]}{brk[1]}")
        if isinstance(walls.get("live_tiles"), int):
            parts.append(f"{walls['live_tiles']} live tiles")
        if isinstance(walls.get("hidden"), list) and walls["hidden"]:
            n = len(walls["hidden"])
            parts.append(f"{n} stack{'s' if n > 1 else ''} under a hand")
    if isinstance(observation.get("east_marker"), str):
        parts.append(f"East marker at {observation['east_marker']}")
    if isinstance(observation.get("wind_shown"), str):
        parts.append(f"wind disc {observation['wind_shown']}")
    return " | ".join(parts)


def placeholder(width: int, title: str, detail: str = "") -> np.ndarray:
    """A dark 16:9 picture that says why there is no live view (camera missing, unplugged …)."""
    h = width * 9 // 16
    img = np.full((h, width, 3), 32, np.uint8)
    cv2.putText(img, title, (20, h // 2 - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.9, WHITE, 2, cv2.LINE_AA)
    words, line, y = detail.split(), "", h // 2 + 25
    for word in words:  # wrap the detail to the picture's width
        if cv2.getTextSize(line + " " + word, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)[0][0] > width - 40 and line:
            cv2.putText(img, line, (20, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, GREY, 1, cv2.LINE_AA)
            line, y = word, y + 22
        else:
            line = f"{line} {word}".strip()
    if line:
        cv2.putText(img, line, (20, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, GREY, 1, cv2.LINE_AA)
    return img
