"""Colour contrast of the dashboard's palette (WCAG 2.1 AA: 4.5:1 for text) and zoom-friendly CSS."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import companion.web
from companion.web.wallsvg import STYLES, TEXT_ON

CSS = (Path(companion.web.__file__).parent / "static" / "app.css").read_text()
VARS = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", CSS))


def luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("fg, bg", [
    ("ink", "paper"), ("muted", "paper"), ("ink", "panel"), ("muted", "panel"), ("accent", "paper"),
    ("accent", "panel"), ("accent-ink", "accent"), ("danger", "paper"), ("warn-ink", "warn-bg"), ("paper", "ink"),
])
def test_text_colours_meet_wcag_aa(fg, bg):
    assert contrast(VARS[fg], VARS[bg]) >= 4.5, (fg, bg)


def test_letters_on_the_wall_diagram_are_readable():
    for cls, fill, letter in STYLES.values():
        if letter:
            assert contrast(TEXT_ON[cls], fill) >= 4.5, cls


def test_layout_uses_relative_units_and_allows_zoom():
    assert not re.search(r"font-size:\s*\d+px", CSS)  # text scales with the user's setting
    base = (Path(companion.web.__file__).parent / "templates" / "base.html").read_text()
    assert 'name="viewport"' in base and "user-scalable=no" not in base and "maximum-scale" not in base
