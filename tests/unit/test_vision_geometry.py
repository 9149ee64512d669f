"""Which seat sits at which table side, and the wall layout the camera reads (position contract)."""

import numpy as np
import pytest

from companion.rules.wall import Square
from companion.vision.geometry import SIDES, TableLayout, seat_sides, side_seats


def test_classical_seating_puts_south_on_easts_right():
    # R23 / README picture: East at the bottom, South on the right, West at the top, North on the left
    assert seat_sides(0, "bottom") == {"E": "bottom", "S": "right", "W": "top", "N": "left"}


def test_seat_winds_follow_the_dealer_round_the_table():
    # R11: when South becomes East, the player who began as South (right side) is now East
    assert side_seats(1, "bottom")["right"] == "E"
    assert side_seats(1, "bottom")["bottom"] == "N"


def test_compass_seating_mirrors_the_table():
    assert seat_sides(0, "bottom", "clockwise") == {"E": "bottom", "S": "left", "W": "top", "N": "right"}


@pytest.mark.parametrize("seating", ["anticlockwise", "clockwise"])
def test_walking_from_stack_n_to_the_next_walls_stack_1_is_one_step(seating):
    # the clockwise ring of companion.rules.wall agrees with where the layout puts each stack
    sq = Square(18, seating)
    layout = TableLayout((80, 80), 18)
    sides = seat_sides(0, "bottom", seating)
    pts = [layout.stack_centre(sides[s.seat], s.stack) for s in sq.all_stacks()]
    steps = [np.linalg.norm(pts[(i + 1) % len(pts)] - pts[i]) for i in range(len(pts))]
    assert max(steps) < 5.0  # neighbours in the ring are neighbours on the table (a corner is ~4 cm)


def test_every_side_is_one_seat():
    assert sorted(side_seats(2, "left").values()) == ["E", "N", "S", "W"]
    assert set(side_seats(2, "left")) == set(SIDES)
