"""Face-up tile art for the table renderer: ONE function, `face(code, w, h, rng)`.

With the `render` extra installed (`pip install -e '.[render]'`), faces are the tile
recogniser's art (`companion.vision.tiles.render_tile_face`: riichi designs from the
pymdownx-mahjong SVGs, procedural flowers and seasons). Without it, a simple procedural
stand-in (coloured dots, bamboo bars, a character mark, a letter for the honours) keeps the
simulated camera working on a plain install.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from companion.errors import CompanionError

IVORY = (222, 236, 240)
_SUIT_COLOURS = [(40, 40, 170), (150, 90, 20), (40, 130, 40)]  # BGR: red, blue, green


@functools.cache
def _tile_art():
    """The recogniser's tile-art renderer if its art can be drawn here, else None."""
    from companion.vision.tiles import render_tile_face

    try:
        render_tile_face("1p", (24, 32))
    except (CompanionError, ImportError, OSError):
        return None
    return render_tile_face


def art_installed() -> bool:
    """True when discards are drawn in the `render` extra's tile art, False for the stand-in."""
    return _tile_art() is not None


def face(code: str, w: int, h: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """A w×h BGR picture of tile `code` (1m..9m 1p..9p 1s..9s 1z..7z 1f..8f) seen face up."""
    w, h = max(int(w), 4), max(int(h), 4)
    art = _tile_art()
    if art is not None and code != "jk":
        return art(code, (w, h), rng)
    return _stand_in(code, w, h, rng)


def _stand_in(code: str, w: int, h: int, rng: np.random.Generator | None) -> np.ndarray:
    img = np.full((h, w, 3), IVORY, np.uint8)
    if rng is not None:  # a little variation in the ivory from tile to tile
        img = np.clip(img.astype(np.int16) + int(rng.integers(-8, 9)), 0, 255).astype(np.uint8)
    n, suit = (int(code[:-1]), code[-1]) if code[:-1].isdigit() else (0, "z")  # "jk": a joker
    colour = _SUIT_COLOURS[(n + "mpsfz".index(suit)) % 3]
    if suit == "p":  # dots in a grid
        cols = 2 if n > 3 else 1
        rows = (n + cols - 1) // cols
        r = max(1, int(min(w / (2 * cols + 1), h / (2 * rows + 1)) * 0.8))
        for i in range(n):
            cx = int(w * ((i % cols) + 1) / (cols + 1))
            cy = int(h * ((i // cols) + 1) / (rows + 1))
            cv2.circle(img, (cx, cy), r, colour, -1, cv2.LINE_AA)
    elif suit == "s":  # bamboo bars
        for i in range(n):
            x = int(w * (i % 3 + 1) / 4)
            y0 = int(h * (i // 3) / 3 + h * 0.08)
            cv2.line(img, (x, y0), (x, y0 + int(h * 0.22)), colour, max(1, w // 10), cv2.LINE_AA)
    else:  # characters, honours and flowers: a numeral and a mark
        cv2.putText(img, str(n), (int(w * 0.2), int(h * 0.45)), cv2.FONT_HERSHEY_SIMPLEX, h / 70, colour,
                    max(1, h // 25), cv2.LINE_AA)
        mark = {"m": "M", "z": "ESWNPFC"[n - 1] if 1 <= n <= 7 else "J", "f": "F"}[suit]
        cv2.putText(img, mark, (int(w * 0.2), int(h * 0.9)), cv2.FONT_HERSHEY_SIMPLEX, h / 70, (40, 40, 140),
                    max(1, h // 25), cv2.LINE_AA)
    return img
