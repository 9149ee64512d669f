"""The SVG wall diagram is the CLI's geometry (Square.grid + cell_marks), seen from the viewer's seat."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

import pytest
from flask import Flask
from flask_babel import Babel

from companion.game.events import DiceThrown, GameStarted, Recorded, SeatsChosen
from companion.game.fold import fold
from companion.rules.diagram import cell_marks
from companion.rules.variant import load_variant
from companion.rules.wall import Square
from companion.web.wallsvg import CELL, MARGIN, STYLES, describe, wall_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def request_context():
    app = Flask(__name__)
    Babel(app)
    with app.test_request_context():
        yield


def state_after(variant: str, *throws):
    v = load_variant(variant)
    at = datetime(2024, 1, 1, tzinfo=UTC)
    records = [Recorded(id=1, game=1, at=at, event=GameStarted(variant=v, players=["Ann", "Bob", "Cat", "Dan"]))]
    if v.seating.first_east != "typed":  # seed 003 throws for the first East: here the seats are as entered
        records.append(Recorded(id=2, game=1, at=at, event=SeatsChosen(order=[0, 1, 2, 3])))
    for i, faces in enumerate(throws, len(records) + 1):
        records.append(Recorded(id=i, game=1, at=at, event=DiceThrown(faces=list(faces))))
    return fold(records)


def stacks(svg: str) -> dict[tuple[str, int], ET.Element]:
    root = ET.fromstring(svg)
    return {(r.get("data-seat"), int(r.get("data-stack"))): r for r in root.iter(f"{SVG}rect")}


@pytest.mark.parametrize("viewer", ["E", "S", "W", "N"])
def test_every_stack_sits_where_square_grid_puts_it_for_the_viewer(viewer):
    state = state_after("classical", (3, 4), (5, 6))
    cells = Square.for_variant(state.variant).grid(viewer)
    drawn = stacks(str(wall_svg(state, viewer)))
    assert len(drawn) == 4 * 18
    for stack, (col, row) in cells.items():
        rect = drawn[(stack.seat, stack.stack)]
        assert (float(rect.get("x")), float(rect.get("y"))) == (MARGIN + col * CELL + 1, MARGIN + row * CELL + 1)
    # the viewer's own wall runs along the bottom, its stack 1 at the right end (position contract)
    n = state.variant.stacks_per_wall
    assert cells[next(s for s in cells if s.seat == viewer and s.stack == 1)] == (n, n + 1)


def test_marks_are_cell_marks_of_the_break():
    state = state_after("classical", (3, 4), (5, 6))  # README: West's stack 18 is lifted
    marks = cell_marks(state.brk)
    drawn = stacks(str(wall_svg(state, "E")))
    for (seat, k), rect in drawn.items():
        expected = STYLES[marks.get((seat, k), "o")][0]
        assert rect.get("class") == f"stack {expected}"
    assert drawn[("W", 18)].get("class") == "stack gap"
    assert drawn[("S", 1)].get("class") == "stack deal"
    assert sum(r.get("class") in ("stack dead", "stack loose") for r in drawn.values()) == 7  # R20


def test_riichi_split_shows_the_dora_indicator_and_uses_the_variant_words():
    state = state_after("riichi", (2, 3))
    svg = str(wall_svg(state, "S", you=1))
    assert "stack dora" in svg
    # riichi's own wind names (variant terms) beside the phone's words
    assert "South (Nan) · Bob (you)" in svg and "East (Ton) · Ann" in svg


def test_a_variants_word_that_is_only_a_translation_is_not_put_into_another_language():
    state = state_after("german", (2, 3))  # its terms are the German words: Ost, Süd, West, Nord
    svg = str(wall_svg(state, "S", you=1))
    assert "South · Bob (you)" in svg and "Süd" not in svg


def test_text_description_names_the_break_and_escapes_names():
    state = state_after("classical", (3, 4), (5, 6))
    text = describe(state)
    assert "stack 18 of West's wall" in text and "South's stack 1" in text
    state.players[0] = "<script>"
    svg = str(wall_svg(state, "E"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)  # still well-formed


def test_a_table_that_counts_from_the_left_is_told_its_own_count():
    """Seed 003 counts the break "von links nach rechts": stack 1 from the right is the 18th from the left."""
    text = describe(state_after("german", (3, 4), (5, 6)))
    assert "stack 1 of West's wall. Counted from the left end of that wall, it is stack 18." in text
    assert "Counted from the left" not in describe(state_after("classical", (3, 4), (5, 6)))


def test_before_the_dice_every_stack_is_live():
    state = state_after("classical")
    drawn = stacks(str(wall_svg(state, "W")))
    assert {r.get("class") for r in drawn.values()} == {"stack live"}
    assert re.search(r"waiting for the dice", describe(state))
