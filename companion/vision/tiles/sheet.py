"""The printable layout sheet for "teach your set": an A4 SVG with one labelled box per tile."""

from __future__ import annotations

from companion.vision.tiles.codes import describe
from companion.vision.tiles.teach import LAYOUT_ROWS


def layout_sheet_svg() -> str:
    """An A4 landscape SVG (mm units) showing where each tile goes, row by row."""
    w, h = 297, 210
    tw, th, gap, rowgap = 26, 30, 3, 6
    x0, y0 = 14, 28
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">',
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="14" y="14" font-family="sans-serif" font-size="5.5" font-weight="bold">'
        'Teach your set: put one of each tile face up on its box, then photograph from above</text>',
        '<text x="14" y="21" font-family="sans-serif" font-size="3.6">Keep a clear gap between rows; '
        'leave the last row empty if your set has no flowers or seasons. Then run: companion teach PHOTO.jpg</text>',
    ]
    for r, row in enumerate(LAYOUT_ROWS):
        y = y0 + r * (th + rowgap)
        for c, code in enumerate(row):
            x = x0 + c * (tw + gap)
            parts.append(f'<rect x="{x}" y="{y}" width="{tw}" height="{th}" rx="2" fill="none" stroke="#888" stroke-width="0.4"/>')
            parts.append(f'<text x="{x + tw / 2}" y="{y + th / 2}" font-family="sans-serif" font-size="7" '
                         f'text-anchor="middle" fill="#555">{code}</text>')
            parts.append(f'<text x="{x + tw / 2}" y="{y + th - 3}" font-family="sans-serif" font-size="2.1" '
                         f'text-anchor="middle" fill="#999">{describe(code)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
