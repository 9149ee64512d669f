"""POST /api/score: a hand's score from JSON or a photo for the phones' "Score the hand" step;
the value the recorder takes per system; bad photos and hands refused with the reason; the
recogniser loaded once; photos kept as data, labelled when the result is recorded."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest

from companion.rules.variant import load_variant
from companion.scoring.kept import FOLDER, ScoredPhotos
from companion.vision import scene
from companion.vision.tiles import recognizer as recognizer_module
from tests.integration.test_web_api import HOST_CODE, Phone, make_app

PHOTO = Path(__file__).resolve().parents[1] / "fixtures" / "tiles" / "real" / "images" / "real_1.jpg"
#: the scoring docs' example hand: pungs of all four winds (MCR "Big Four Winds")
MCR_HAND = {"concealed": ["5p", "5p", "3z", "3z", "3z", "4z", "4z"],
            "melds": [{"tiles": ["1z"] * 3}, {"tiles": ["2z"] * 4}], "winning_tile": "4z", "self_drawn": True}


@pytest.fixture
def table(tmp_path):
    app, services = make_app(tmp_path)
    yield app, services, tmp_path
    services.stop()


def playing(table, variant: str, phone: Phone | None = None) -> Phone:
    """A game of `variant` under way and a phone in East's seat (`phone`, if it has one)."""
    app, services, _ = table
    services.table.start_game(load_variant(variant, services.settings.variant_dirs), ["Ann", "Bob", "Cat", "Dan"])
    if phone is None:
        phone = Phone(app)
        assert phone.join(player=0).status_code == 200
    return phone


def test_a_hand_is_scored_with_its_items_and_the_value_to_record(table):
    phone = playing(table, "mcr")
    r = phone.post("/api/score", MCR_HAND)
    assert r.status_code == 200, r.json
    score = r.json["score"]
    assert score["valid"] and score["system"] == "mcr"
    assert {i["key"] for i in score["items"]} >= {"big_four_winds"}
    assert r.json["record"] == {"value": score["total"], "fu": None}  # MCR: the fans
    assert "tiles" not in r.json and r.json["ms"]["read"] == 0


def test_riichi_records_han_and_fu_and_hong_kong_its_faan_not_its_points(table):
    phone = playing(table, "riichi")
    hand = {"concealed": ["2s", "3s", "4s", "5s", "6s", "7s", "2m", "3m", "4m", "5m", "6m", "2p", "2p"],
            "winning_tile": "7m", "riichi": True, "seat_wind": "S"}
    r = phone.post("/api/score", hand)
    assert r.status_code == 200 and r.json["score"]["valid"]
    assert r.json["record"] == {"value": r.json["score"]["han"], "fu": r.json["score"]["fu"]}
    phone = playing(table, "hongkong", phone)
    hand = {"concealed": ["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m"],
            "winning_tile": "5m", "self_drawn": True}
    r = phone.post("/api/score", hand)
    assert r.status_code == 200 and r.json["score"]["valid"]
    assert r.json["record"]["value"] == r.json["score"]["payments"]["faan"] != r.json["score"]["total"]


def test_a_hand_that_cannot_exist_or_a_bad_body_is_refused_with_the_reason(table):
    phone = playing(table, "mcr")
    r = phone.post("/api/score", {"concealed": ["5p"] * 5, "winning_tile": "5p"})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_hand"
    assert "5p" in r.json["error"]["message"] or "tiles" in r.json["error"]["message"]
    r = phone.post("/api/score", {"concealed": ["xx"], "winning_tile": "1m"})
    assert r.status_code == 400 and "xx" in r.json["error"]["message"]
    r = phone.post("/api/score", data="[1, 2", content_type="application/json")
    assert r.status_code == 400 and r.json["error"]["code"] == "malformed_json"
    r = phone.post("/api/score", data="hand", content_type="text/plain")
    assert r.status_code == 415
    r = phone.post("/api/score", {**MCR_HAND, "photo": "not base64!"})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_photo"
    # no win is no error: the reason comes with the result
    r = phone.post("/api/score", {**MCR_HAND, "concealed": ["5p", "6p", "3z", "3z", "3z", "4z", "4z"]})
    assert r.status_code == 200 and not r.json["score"]["valid"] and r.json["score"]["reason"]
    assert r.json["record"] is None


def test_only_a_joined_phone_with_its_token_may_score(table):
    app, _, _ = table
    playing(table, "mcr")
    stranger = Phone(app)
    assert stranger.post("/api/score", MCR_HAND).status_code in (401, 403)
    phone = Phone(app)
    phone.join(player=1)
    r = phone.post("/api/score", MCR_HAND, token="forged")
    assert r.status_code == 403 and r.json["error"]["code"] == "csrf"


def test_a_photo_is_read_with_boxes_and_certainty_kept_and_scored(table):
    _, _services, tmp_path = table
    phone = playing(table, "mcr")
    r = phone.post("/api/score", data={"hand": json.dumps({"self_drawn": True}),
                                        "photo": (io.BytesIO(PHOTO.read_bytes()), "hand.jpg")},
                   content_type="multipart/form-data")
    assert r.status_code == 200, r.json
    tiles = r.json["tiles"]
    assert len(tiles) >= 13
    assert all(len(t["box"]) == 4 and 0 <= t["score"] <= 1 and t["unsure"] == (t["score"] < 0.5) for t in tiles)
    hand = r.json["hand"]
    codes = [t["tile"] for t in tiles]
    # the last playing tile read is taken for the winning tile; flowers go to `flowers`
    assert hand["winning_tile"] == [c for c in codes if not c.endswith("f")][-1]
    assert sorted(hand["concealed"] + [hand["winning_tile"]] + hand["flowers"]) == sorted(codes)
    assert hand["self_drawn"] is True
    assert "reason" in r.json["score"]
    kept = ScoredPhotos(tmp_path / FOLDER)
    assert kept.names() == [r.json["photo"]]
    assert [t["tile"] for t in kept.get(r.json["photo"])["read"]] == codes
    # the same photo base64 in the JSON hand reads the same
    b64 = {"photo": "data:image/jpeg;base64," + base64.b64encode(PHOTO.read_bytes()).decode(), "winning_tile": None}
    again = phone.post("/api/score", b64)
    assert again.status_code == 200 and [t["tile"] for t in again.json["tiles"]] == codes
    assert again.json["hand"]["winning_tile"] is None  # a losing hand asked for: none taken


def test_a_bad_photo_is_refused_with_the_reason_and_a_named_tile_must_be_in_it(table):
    phone = playing(table, "mcr")
    r = phone.post("/api/score", data={"photo": (io.BytesIO(b"\x89PNG\r\n\x1a\n not a picture"), "x.png")},
                   content_type="multipart/form-data")
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_photo"
    r = phone.post("/api/score", data={"hand": json.dumps({"winning_tile": "9m", "melds": [{"tiles": ["9p"] * 3}]}),
                                        "photo": (io.BytesIO(PHOTO.read_bytes()), "hand.jpg")},
                   content_type="multipart/form-data")
    assert r.status_code == 400 and "the photo shows no 9p" in r.json["error"]["message"]


def test_the_running_recogniser_is_loaded_once_not_per_request(table, monkeypatch):
    phone = playing(table, "mcr")
    def send():
        return phone.post("/api/score", data={"photo": (io.BytesIO(PHOTO.read_bytes()), "h.jpg")},
                          content_type="multipart/form-data")
    assert send().status_code == 200
    loaded = scene.tile_recognizer()

    def no_new_recogniser(*a, **k):
        raise AssertionError("a recogniser was loaded for a request")

    monkeypatch.setattr(recognizer_module.TileRecognizer, "__init__", no_new_recogniser)
    assert send().status_code == 200
    assert scene.tile_recognizer() is loaded


def test_kept_photos_are_bounded_and_labelled_with_the_corrections(tmp_path):
    import numpy as np

    kept = ScoredPhotos(tmp_path, limit=2)
    image = np.full((40, 60, 3), 200, np.uint8)
    read = [{"tile": "1m", "box": [0, 0, 10, 10], "score": 0.9}, {"tile": "2m", "box": [10, 0, 20, 10], "score": 0.3}]
    names = [kept.keep(image, read) for _ in range(3)]
    assert all(names) and kept.names() == sorted(names)[1:]
    assert len(list(tmp_path.glob("*.jpg"))) == 2 and not list(tmp_path.glob("*.tmp"))
    name = kept.names()[-1]
    assert kept.label(name, {"concealed": ["1m", "3m"]}, ["1m", "3m"], game=1, event=7)
    record = kept.get(name)
    assert record["labelled"] and record["corrected"] == [{"position": 2, "read": "2m", "tile": "3m"}]
    assert record["event"] == 7 and record["hand"] == {"concealed": ["1m", "3m"]}
    assert not kept.label("../../etc/passwd", {}, None) and not kept.label("20260101-000000-00000000", {}, None)


def test_the_photo_score_benchmark_reports_what_the_api_answers():
    """`companion bench photo-score`: the photos fully right are those whose answer matches every
    label (checked here against the recogniser itself), and the latencies are measured figures."""
    import cv2
    from click.testing import CliRunner

    from companion.cli import main
    from companion.vision.tiles.codes import TILE_CODES
    from companion.vision.tiles.dataset import load_split
    from companion.vision.tiles.metrics import Score

    folder = PHOTO.parents[1]
    r = CliRunner().invoke(main, ["bench", "photo-score", "--data", str(folder), "--json"])
    assert r.exit_code == 0, r.output
    figures = json.loads(r.output)
    truth = load_split(folder, size=None)
    expected = Score()
    for item in truth:
        tiles = scene.tile_recognizer().recognize(cv2.imread(str(item.path)))
        expected.add([t.box for t in tiles], [t.tile for t in tiles], [t.score for t in tiles],
                      item.boxes, [TILE_CODES[c] for c in item.classes])
    assert figures["photos"] == len(truth) and figures["every_tile_right"] == expected.perfect
    assert 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["max_ms"]
    r = CliRunner().invoke(main, ["bench", "photo-score", "--data", str(folder / "images")])
    assert r.exit_code != 0 and "no images/ folder" in r.output


def test_a_scored_hand_is_kept_with_the_win_and_labels_its_photo(table):
    """Record with `scored`: the event keeps the hand and the photo's name; the kept photo gets the
    hand and the corrections; a hand that cannot exist is refused before anything is recorded."""
    _app, services, tmp_path = table
    phone = playing(table, "mcr")
    read = phone.post("/api/score", data={"photo": (io.BytesIO(PHOTO.read_bytes()), "hand.jpg")},
                      content_type="multipart/form-data").json
    tiles = [t["tile"] for t in read["tiles"]]
    corrected = ["5p" if i == 0 else t for i, t in enumerate(tiles)]
    scored = {"player": 0, "hand": MCR_HAND, "photo": read["photo"], "tiles": corrected}
    before = len(services.table.records())
    bad = phone.post("/api/hands", {"result": "win", "winner": 0, "value": 88,
                                    "scored": [{**scored, "hand": {"concealed": ["5p"] * 5}}]})
    assert bad.status_code == 400 and "scored hand" in bad.json["error"]["message"]
    r = phone.post("/api/hands", {"result": "win", "winner": 0, "value": 88, "scored": [scored]})
    assert r.status_code == 201, r.json
    assert len(services.table.records()) == before + 1
    event = services.table.records()[-1].event
    assert event.value == 88 and event.scored[0].hand == MCR_HAND and event.scored[0].photo == read["photo"]
    label = ScoredPhotos(tmp_path / FOLDER).get(read["photo"])
    assert label["labelled"] and label["hand"] == MCR_HAND and label["event"] == r.json["record"]["id"]
    assert label["corrected"] == ([] if tiles[0] == "5p" else [{"position": 1, "read": tiles[0], "tile": "5p"}])


def test_a_win_logged_before_scored_hands_existed_still_folds():
    import msgspec

    from companion.game.events import GameEvent, HandWon

    old = b'{"type": "hand_won", "winner": 2, "discarder": 1, "value": 24}'
    event = msgspec.json.decode(old, type=GameEvent)
    assert isinstance(event, HandWon) and event.scored == [] and event.value == 24
    assert b"scored" not in msgspec.json.encode(event)


def test_the_host_downloads_the_kept_photos_with_their_labels(table):
    import zipfile

    app, _services, _ = table
    phone = playing(table, "mcr")
    read = phone.post("/api/score", data={"photo": (io.BytesIO(PHOTO.read_bytes()), "hand.jpg")},
                      content_type="multipart/form-data").json
    assert phone.get("/scored-hands.zip").status_code == 403  # a player: the photos show hands
    host = Phone(app, address="192.0.2.11")
    assert host.join(code=HOST_CODE, role="host").status_code == 200
    assert "scored-download" in host.get("/settings").get_data(as_text=True)
    r = host.get("/scored-hands.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(r.data)).namelist()
    assert {"README.txt", f"{read['photo']}.jpg", f"{read['photo']}.json"} <= set(names)
