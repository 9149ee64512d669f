"""Printable calibration markers: the four ArUco corner markers of `companion.vision.markers_spec`.

One A4 sheet holds all four, each in a square to cut out, with its corner, id and an
arrow for the side that faces the table's top (the spec turns every marker that way),
and a 10 cm scale bar to check that the printer did not scale the page. The same
layout is drawn as SVG and as PDF, so both print identically. Modules are drawn as
vector squares of exact size: no raster image is scaled by the printer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from xml.sax.saxutils import escape

import numpy as np

from companion.vision import markers_spec as spec

PAGE_MM = (210.0, 297.0)  # A4 portrait
TILE_MM = 90.0            # each marker's cut-out square
QUIET_MODULES = 1         # white margin round the black border, in modules (the detector needs it)


@cache
def dictionary():
    import cv2

    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.DICTIONARY))


def modules(marker_id: int) -> np.ndarray:
    """The marker as a square bool array, one cell per module, black border included; True = black."""
    import cv2

    d = dictionary()
    n = d.markerSize + 2
    image = cv2.aruco.generateImageMarker(d, marker_id, n, borderBits=1)
    return image < 128


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str = "#000"
    stroke: bool = False  # an outline (dashed cut line) instead of a fill


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    size_pt: float
    text: str
    anchor: str = "middle"  # "start" or "middle"


def marker_shapes(marker_id: int, x: float, y: float, size_mm: float) -> list[Rect]:
    """Black squares of one marker whose black border spans size_mm, top-left at (x, y), in mm."""
    cells = modules(marker_id)
    m = size_mm / cells.shape[0]
    shapes = []
    for r, row in enumerate(cells):
        c = 0
        while c < len(row):  # one rectangle per run of black modules in a row
            if row[c]:
                start = c
                while c < len(row) and row[c]:
                    c += 1
                shapes.append(Rect(x + start * m, y + r * m, (c - start) * m, m))
            else:
                c += 1
    return shapes


def sheet() -> list[Rect | Text]:
    """The A4 layout in millimetres: four markers to cut out, labels, a scale bar."""
    size = spec.MARKER_SIZE_CM * 10
    pw, _ = PAGE_MM
    left = (pw - 2 * TILE_MM) / 2
    top = 38.0
    shapes: list[Rect | Text] = [
        Text(pw / 2, 14, 14, "Mahjong table companion: calibration markers"),
        Text(pw / 2, 21, 9, f"ArUco {spec.DICTIONARY}, black square {spec.MARKER_SIZE_CM:g} cm. Print at 100 % "
                            "(actual size), on matt paper; cut along the dashed lines."),
        Text(pw / 2, 27, 9, f"Lay each marker flat in its table corner, its centre {spec.MARKER_INSET_CM:g} cm "
                            "from both edges, the arrow pointing to the table's top side."),
    ]
    order = ["top_left", "top_right", "bottom_left", "bottom_right"]  # as they lie on the table
    for i, corner in enumerate(order):
        tx, ty = left + (i % 2) * TILE_MM, top + (i // 2) * TILE_MM
        mid = spec.CORNER_IDS[corner]
        shapes.append(Rect(tx, ty, TILE_MM, TILE_MM, fill="#888", stroke=True))
        mx, my = tx + (TILE_MM - size) / 2, ty + (TILE_MM - size) / 2 + 2
        shapes.extend(marker_shapes(mid, mx, my, size))
        shapes.append(Text(tx + TILE_MM / 2, ty + 9, 9, "^ table top ^"))
        shapes.append(Text(tx + TILE_MM / 2, ty + TILE_MM - 6, 10, f"{corner.replace('_', ' ')} corner - id {mid}"))
    # scale bar: 10 cm with a tick each centimetre
    bx, by = (pw - 100) / 2, top + 2 * TILE_MM + 14
    shapes.append(Rect(bx, by, 100, 1.2))
    shapes.extend(Rect(bx + 10 * k - 0.3, by - 3, 0.6, 3) for k in range(11))
    shapes.append(Text(pw / 2, by + 8, 9, "This bar must measure exactly 10 cm; if not, print again at actual size."))
    return shapes


def to_svg(shapes: list[Rect | Text], page=PAGE_MM) -> str:
    w, h = page
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}">',
           f'<rect x="0" y="0" width="{w:g}" height="{h:g}" fill="#fff"/>']
    for s in shapes:
        if isinstance(s, Rect) and s.stroke:
            out.append(f'<rect x="{s.x:.3f}" y="{s.y:.3f}" width="{s.w:.3f}" height="{s.h:.3f}" fill="none" '
                       f'stroke="{s.fill}" stroke-width="0.3" stroke-dasharray="2 2"/>')
        elif isinstance(s, Rect):
            out.append(f'<rect x="{s.x:.3f}" y="{s.y:.3f}" width="{s.w:.3f}" height="{s.h:.3f}" fill="{s.fill}"/>')
        else:
            mm = s.size_pt * 25.4 / 72
            out.append(f'<text x="{s.x:.3f}" y="{s.y:.3f}" font-family="Helvetica, Arial, sans-serif" '
                       f'font-size="{mm:.2f}" text-anchor="{s.anchor}">{escape(s.text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_pdf(shapes: list[Rect | Text], page=PAGE_MM) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format=page)
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))  # same input, same bytes
    pdf.set_title("Calibration markers")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    for s in shapes:
        if isinstance(s, Rect) and s.stroke:
            pdf.set_draw_color(136)
            pdf.set_line_width(0.3)
            pdf.set_dash_pattern(dash=2, gap=2)
            pdf.rect(s.x, s.y, s.w, s.h, style="D")
            pdf.set_dash_pattern()
        elif isinstance(s, Rect):
            pdf.set_fill_color(0)
            pdf.rect(s.x, s.y, s.w, s.h, style="F")
        else:
            pdf.set_font("helvetica", size=s.size_pt)
            width = pdf.get_string_width(s.text)
            pdf.text(s.x - (width / 2 if s.anchor == "middle" else 0), s.y, s.text)
    return bytes(pdf.output())


def marker_svg(marker_id: int) -> str:
    """One marker alone, exactly MARKER_SIZE_CM across its black border, with its white quiet zone."""
    size = spec.MARKER_SIZE_CM * 10
    quiet = size / (dictionary().markerSize + 2) * QUIET_MODULES
    side = size + 2 * quiet
    return to_svg(marker_shapes(marker_id, quiet, quiet, size), page=(side, side))
