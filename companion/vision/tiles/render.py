"""Render a tile's face (tile code -> BGR image) from openly licensed art.

`render_tile_face("3p", (60, 80), rng)` gives an ivory tile face with the design, slightly
varied by `rng`, for synthetic scenes (e.g. face-up discards in a table renderer).

Art sources:
* "riichi": the 34 riichi designs shipped as SVG in the PyPI package `pymdownx-mahjong`
  (derived from FluffyStuff's public-domain riichi-mahjong-tiles; the package itself is
  CC BY-NC 4.0, so we only read it from the installed package and never redistribute it).
  Needs the `render` extra (pymdownx-mahjong + cairosvg).
* flowers and seasons (`1f`-`8f`): no openly licensed art for them is reachable from PyPI
  or npm, so they are drawn procedurally here: a distinct motif per tile (plum, orchid,
  chrysanthemum, bamboo; spring sprout, summer sun, autumn leaf, winter snowflake) plus the
  corner index number, red for flowers and blue for seasons.
* "abstract": every kind drawn procedurally in a style that changes with `rng` (rings for
  circles, sticks for bamboo, Latin glyphs for characters and honours, a frame or nothing
  for the white dragon). No real set looks like this; it exists so that the tile-face
  detector can learn "any tile face" from synthetic scenes without ever seeing the riichi
  art, which stays the unseen design for measuring "teach your set".
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.tiles.codes import CODE_INDEX

DEFAULT_SIZE = (60, 80)  # width, height of a face in pixels (real tiles are about 3:4)


def available_art() -> list[str]:
    """Art sets that can be rendered here ("riichi" only when its package is installed)."""
    try:
        _riichi_svg("1m")
        return ["riichi", "procedural", "abstract"]
    except CompanionError:
        return ["procedural", "abstract"]


@functools.cache
def _riichi_svg(code: str) -> bytes:
    try:
        import importlib.resources as res

        return (res.files("pymdownx_mahjong") / "assets" / "light" / f"{code}.svg").read_bytes()
    except (ImportError, ModuleNotFoundError, FileNotFoundError) as exc:
        raise CompanionError(
            "riichi tile art needs the optional packages: pip install 'mahjong-table-companion[render]'"
        ) from exc


@functools.lru_cache(maxsize=512)
def _riichi_design(code: str, w: int, h: int) -> np.ndarray:
    """The SVG design rasterised to w x h BGRA (transparent background)."""
    try:
        import cairosvg
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise CompanionError("riichi tile art needs cairosvg: pip install 'mahjong-table-companion[render]'") from exc
    png = cairosvg.svg2png(bytestring=_riichi_svg(code), output_width=w, output_height=h)
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)


def _procedural_bonus(code: str, w: int, h: int) -> np.ndarray:
    """A distinct flower/season motif with its index number, as w x h BGRA."""
    n = int(code[0])
    img = np.zeros((h, w, 4), np.uint8)
    s = min(w, h)
    cx, cy = w // 2, int(h * 0.55)
    r = int(s * 0.3)
    ink = (40, 40, 200) if n <= 4 else (190, 80, 30)  # red flowers, blue seasons (BGR)

    def petals(count, length, width, colour, centre_colour):
        for i in range(count):
            a = 2 * math.pi * i / count
            px, py = cx + int(math.cos(a) * length / 2), cy + int(math.sin(a) * length / 2)
            cv2.ellipse(img, (px, py), (int(length / 2), int(width / 2)), math.degrees(a), 0, 360, (*colour, 255), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), max(2, int(width / 2)), (*centre_colour, 255), -1, cv2.LINE_AA)

    if n == 1:  # plum: five round pink-red petals
        for i in range(5):
            a = 2 * math.pi * i / 5 - math.pi / 2
            cv2.circle(img, (cx + int(math.cos(a) * r * 0.55), cy + int(math.sin(a) * r * 0.55)), int(r * 0.45), (90, 60, 220, 255), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(r * 0.25), (40, 200, 240, 255), -1, cv2.LINE_AA)
    elif n == 2:  # orchid: three long purple petals on a green stem
        cv2.line(img, (cx, cy), (cx, h - 4), (40, 140, 40, 255), max(1, s // 20), cv2.LINE_AA)
        for a in (-60, 0, 60):
            cv2.ellipse(img, (cx + int(math.sin(math.radians(a)) * r * 0.6), cy - int(math.cos(math.radians(a)) * r * 0.6)),
                        (int(r * 0.25), int(r * 0.7)), a, 0, 360, (160, 50, 140, 255), -1, cv2.LINE_AA)
    elif n == 3:  # chrysanthemum: many thin yellow petals
        petals(16, r * 1.9, r * 0.22, (30, 190, 240), (20, 120, 200))
    elif n == 4:  # bamboo: green stalk with leaves
        cv2.line(img, (cx, cy - r), (cx, cy + r), (40, 150, 40, 255), max(2, s // 10), cv2.LINE_AA)
        for dy, side in ((-r // 2, 1), (0, -1), (r // 2, 1)):
            cv2.ellipse(img, (cx + side * r // 2, cy + dy), (r // 2, r // 6), side * -30, 0, 360, (60, 170, 60, 255), -1, cv2.LINE_AA)
    elif n == 5:  # spring: a green sprout
        cv2.ellipse(img, (cx - r // 3, cy), (r // 2, r // 4), -40, 0, 360, (60, 180, 60, 255), -1, cv2.LINE_AA)
        cv2.ellipse(img, (cx + r // 3, cy - r // 4), (r // 2, r // 4), 40, 0, 360, (60, 180, 60, 255), -1, cv2.LINE_AA)
        cv2.line(img, (cx, cy), (cx, cy + r), (30, 100, 30, 255), max(1, s // 20), cv2.LINE_AA)
    elif n == 6:  # summer: a red sun with rays
        for i in range(12):
            a = 2 * math.pi * i / 12
            cv2.line(img, (cx, cy), (cx + int(math.cos(a) * r), cy + int(math.sin(a) * r)), (30, 60, 230, 255), max(1, s // 25), cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(r * 0.55), (30, 60, 230, 255), -1, cv2.LINE_AA)
    elif n == 7:  # autumn: an orange maple-like leaf
        pts = [(cx + int(math.cos(a) * rr), cy + int(math.sin(a) * rr))
               for i, a in enumerate(np.linspace(-math.pi / 2, 1.5 * math.pi, 10, endpoint=False))
               for rr in [r if i % 2 == 0 else r * 0.45]]
        cv2.fillPoly(img, [np.int32(pts)], (20, 120, 230, 255), cv2.LINE_AA)
    else:  # winter: a blue snowflake
        for i in range(3):
            a = math.pi * i / 3
            dx, dy = int(math.cos(a) * r), int(math.sin(a) * r)
            cv2.line(img, (cx - dx, cy - dy), (cx + dx, cy + dy), (200, 120, 40, 255), max(1, s // 18), cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(r * 0.2), (200, 120, 40, 255), -1, cv2.LINE_AA)
    idx = str(n if n <= 4 else n - 4)
    scale = s / 60
    cv2.putText(img, idx, (int(w * 0.08), int(h * 0.2)), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (*ink, 255),
                max(1, int(2 * scale)), cv2.LINE_AA)
    if n > 4:  # seasons get a small square mark top right, flowers a dot: the two families differ at a glance
        cv2.rectangle(img, (int(w * 0.75), int(h * 0.08)), (int(w * 0.9), int(h * 0.18)), (*ink, 255), -1)
    else:
        cv2.circle(img, (int(w * 0.82), int(h * 0.13)), max(2, int(s * 0.07)), (*ink, 255), -1, cv2.LINE_AA)
    return img


_INKS = ((40, 40, 190), (40, 120, 40), (150, 60, 20), (30, 30, 30), (20, 110, 200), (120, 40, 120))


def _abstract_design(code: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A procedural design for any tile kind, as w x h BGRA (the style follows rng)."""
    if code.endswith("f"):
        return _procedural_bonus(code, w, h)
    img = np.zeros((h, w, 4), np.uint8)
    n, suit = int(code[0]), code[1]
    inks = [(*_INKS[i], 255) for i in rng.permutation(len(_INKS))[:3]]
    s = min(w, h)
    if suit in "ps":  # n rings (circles) or n sticks (bamboo) on a grid
        cols = 1 if n == 1 else 2 if n in (2, 4) else 3
        rows = math.ceil(n / cols)
        cw, ch = w * 0.84 / cols, h * 0.84 / rows
        for i in range(n):
            x = int(w * 0.08 + (i % cols + 0.5) * cw)
            y = int(h * 0.08 + (i // cols + 0.5) * ch)
            ink = inks[i % 2 if rng.random() < 0.7 else 2]
            if suit == "p":
                r = max(2, int(min(cw, ch) * 0.42))
                cv2.circle(img, (x, y), r, ink, max(1, r // 3), cv2.LINE_AA)
                cv2.circle(img, (x, y), max(1, r // 3), ink, -1, cv2.LINE_AA)
            else:
                cv2.line(img, (x, int(y - ch * 0.38)), (x, int(y + ch * 0.38)), ink, max(2, int(cw * 0.25)), cv2.LINE_AA)
    elif code == "5z":  # white dragon: a frame, or a blank face
        if rng.random() < 0.6:
            m = int(s * 0.15)
            cv2.rectangle(img, (m, m), (w - m, h - m), inks[0], max(1, s // 14))
    else:  # characters and honours: one to three glyphs, an upper small and a lower big one
        font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
                               cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX]))
        glyphs = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
        top = glyphs[(n * 7 + "mz".index(suit) * 3) % len(glyphs)] if suit in "mz" else "X"
        parts = [(top, 0.38, inks[1 if suit == "z" else 3 % len(inks)])]
        if suit == "m" or rng.random() < 0.3:
            parts.append((glyphs[int(rng.integers(len(glyphs)))], 0.78, inks[0]))
        for i, (text, yf, ink) in enumerate(parts):
            scale = s / 34 * (0.9 if i == 0 and len(parts) > 1 else 1.3)
            (tw, th), _ = cv2.getTextSize(text, font, scale, max(1, int(scale * 2)))
            org = (int((w - tw) / 2), int(h * yf + th / 2) if len(parts) > 1 else int((h + th) / 2))
            cv2.putText(img, text, org, font, scale, ink, max(1, int(scale * 2)), cv2.LINE_AA)
    if rng.random() < 0.4:  # a small corner index as many Chinese sets print
        cv2.putText(img, str(n), (int(w * 0.06), int(h * 0.18)), cv2.FONT_HERSHEY_SIMPLEX, s / 110, inks[2], 1, cv2.LINE_AA)
    return img


def render_tile_face(code: str, size: tuple[int, int] = DEFAULT_SIZE, rng: np.random.Generator | None = None,
                     art: str = "riichi") -> np.ndarray:
    """The face of tile `code` as an h x w x 3 BGR uint8 image (ivory face, design on top).

    `rng` varies the ivory tint, the design's scale and position a little (None: one fixed
    variation). Flowers and seasons are always procedural (see the module docstring).
    """
    if code not in CODE_INDEX:
        raise KeyError(f"unknown tile code {code!r}")
    w, h = int(size[0]), int(size[1])
    rng = rng or np.random.default_rng(0)
    tint = np.array([228, 240, 246], np.float32) + rng.normal(0, 4, 3)
    face = np.empty((h, w, 3), np.float32)
    face[:] = np.clip(tint, 180, 255)
    scale = rng.uniform(0.82, 0.94)
    dw, dh = max(4, int(w * scale)), max(4, int(h * scale))
    if art == "abstract":
        design = _abstract_design(code, dw, dh, rng)
    elif code.endswith("f") or art == "procedural":
        if not code.endswith("f"):
            raise CompanionError(f"procedural art covers flowers and seasons only, not {code}")
        design = _procedural_bonus(code, dw, dh)
    elif art == "riichi":
        design = _riichi_design(code, dw, dh)
    else:
        raise ValueError(f"unknown art {art!r}")
    ox = (w - dw) // 2 + int(rng.integers(-1, 2))
    oy = (h - dh) // 2 + int(rng.integers(-1, 2))
    ox, oy = min(max(ox, 0), w - dw), min(max(oy, 0), h - dh)
    alpha = design[..., 3:4].astype(np.float32) / 255.0
    region = face[oy:oy + dh, ox:ox + dw]
    face[oy:oy + dh, ox:ox + dw] = region * (1 - alpha) + design[..., :3].astype(np.float32) * alpha
    # a soft darker rim, as the edge of a real tile face
    rim = np.ones((h, w), np.float32)
    cv2.rectangle(rim, (0, 0), (w - 1, h - 1), 0.82, max(1, min(w, h) // 30))
    rim = cv2.GaussianBlur(rim, (0, 0), max(0.5, min(w, h) / 40))
    return np.clip(face * rim[..., None], 0, 255).astype(np.uint8)
