"""The seat book: one phone per seat, kept across a restart, a damaged file costs only who sits where."""

from __future__ import annotations

from companion.web.seats import SeatBook


def test_a_seat_is_held_by_the_latest_claim_while_its_player_keeps_the_name(tmp_path):
    book = SeatBook(tmp_path / "seats.json")
    assert book.holds(0, "Ann", None) and book.taken(["Ann", "Bob", "Cat", "Dan"]) == {}
    book.claim(0, "Ann", "phone-a")
    assert book.holds(0, "Ann", "phone-a") and not book.holds(0, "Ann", "phone-b")
    book.claim(0, "Ann", "phone-b")
    book.took_over(0, "phone-a")
    assert not book.holds(0, "Ann", "phone-a") and book.lost(0, "Ann", "Ann", "phone-a")
    assert not book.lost(0, "Ann", "Ann", "phone-b")
    assert book.taken(["Ann", "Bob", "Cat", "Dan"]) == {0: "Ann"}
    assert book.taken(["Eve", "Bob", "Cat", "Dan"]) == {}  # another game's players: the seat is free
    book.renamed(0, "Ann", "Annie")
    assert book.holds(0, "Annie", "phone-b") and book.taken(["Annie", "Bob", "Cat", "Dan"]) == {0: "Annie"}
    # a restart keeps who sits where
    again = SeatBook(tmp_path / "seats.json")
    assert again.holds(0, "Annie", "phone-b") and not again.holds(0, "Annie", "phone-a")


def test_a_damaged_file_frees_every_seat(tmp_path):
    path = tmp_path / "seats.json"
    path.write_text("{not json")
    book = SeatBook(path)
    assert book.taken(["Ann", "Bob", "Cat", "Dan"]) == {}
    book.claim(1, "Bob", "phone-b")  # and is written whole again
    assert SeatBook(path).holds(1, "Bob", "phone-b")


def test_a_phone_that_leaves_frees_its_seat_and_only_its_own(tmp_path):
    book = SeatBook(tmp_path / "seats.json")
    book.claim(2, "Cat", "phone-c")
    book.release(2, "phone-x")  # not the holder: nothing changes
    assert book.taken(["Ann", "Bob", "Cat", "Dan"]) == {2: "Cat"}
    book.release(2, "phone-c")
    assert book.taken(["Ann", "Bob", "Cat", "Dan"]) == {} and SeatBook(tmp_path / "seats.json").taken(
        ["Ann", "Bob", "Cat", "Dan"]) == {}
