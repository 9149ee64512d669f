"""`POST /api/score`: what a hand is worth under the game's variant, from the hand (JSON) or from a
photo of it, for the phones' "Score the hand" step (docs/scoring.md).

A computation: nothing is recorded in the game (the value goes into the result the players then
record, `POST /api/hands`), so the route has no If-Match or Idempotency-Key; like every POST it
needs a joined phone's session and its CSRF token. A photo is read by the running companion's
tile recogniser (`companion.vision.scene.tile_recognizer`, loaded once per process, with the
taught set) and kept in the data folder (`companion.scoring.kept`) so that the players'
corrections, recorded with the result, make it labelled data.

The body is the hand (JSON) or multipart with the hand as field `hand` and the picture as file
`photo`; a JSON hand may carry the picture base64-encoded in `photo` (a data: URL too). With a
photo, the tiles read are the hand: the hand's `melds` and `winning_tile` are taken out of them
(`companion.scoring.photo`), and without a `winning_tile` the last tile read is taken for it (a
player lays the winning tile last); `concealed` and `flowers` come from the photo.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import time
from typing import Any

from flask import Blueprint, jsonify, request
from flask_babel import gettext as _

from companion.web.errors import WebError
from companion.web.guard import check_origin, require_write, services

scoring_view = Blueprint("scoring", __name__)

#: a phone photo is a few MB (base64 in JSON: a third more)
PHOTO_LIMIT = 24 * 1024 * 1024
#: one photo read at a time: a reading keeps both cores busy for a moment; others wait their turn
_reading = threading.Semaphore(1)
READ_WAIT_S = 20.0


@scoring_view.app_context_processor
def _scoring_words() -> dict:
    """`scoring_words()` for the seat page: score.js's words in the page's language."""
    def scoring_words() -> dict:
        from companion.web.i18n import current_language
        from companion.web.scoring_words import scoring_strings

        state = services().table.state
        return scoring_strings(current_language(), state.variant.terms if state is not None else None)

    def scored_photos() -> int:
        return len(_kept().names())
    return {"scoring_words": scoring_words, "scored_photos": scored_photos}


def allow_score_photo() -> None:
    """Raise the body limit for `POST /api/score` only, and only for a joined phone of this site:
    who may upload is checked before a byte of the body is read (the CSRF token next)."""
    if request.endpoint == "scoring.post_score" and request.method == "POST":
        check_origin()
        require_write()
        request.max_content_length = PHOTO_LIMIT


def _kept():
    from companion.scoring.kept import FOLDER, ScoredPhotos

    return ScoredPhotos(services().settings.data_path / FOLDER)


def label_photos(record) -> None:
    """Label the kept photos of the hands scored for a recorded win with the hand as recorded and
    the tiles as corrected (a photo that is gone, or a full card, loses the label, not the game)."""
    event = getattr(record, "event", None)
    for scored in getattr(event, "scored", None) or []:
        if scored.photo is not None:
            _kept().label(scored.photo, scored.hand, scored.tiles, game=record.game, event=record.id,
                          player=scored.player)


def record_value(score, system: str) -> dict[str, int | None] | None:
    """What the recorder takes for a scored hand (`POST /api/hands` "value", "fu"): MCR fans,
    riichi han and fu, Hong Kong faan (the settlement counts faan, `total` is points),
    classical/German points; None for a hand that is no win."""
    if not score.valid:
        return None
    if system == "riichi":
        return {"value": score.han, "fu": score.fu}
    if system == "hongkong":
        from companion.scoring.hongkong import faan_of

        return {"value": faan_of(score), "fu": None}
    return {"value": score.total, "fu": None}


def _body() -> tuple[dict[str, Any], bytes | None]:
    """The hand (decoded JSON object) and the photo's bytes, if any; 400/415 saying what is wrong."""
    if request.mimetype == "multipart/form-data":
        raw = request.form.get("hand") or "{}"
        photo = request.files.get("photo")
        data = photo.read() if photo is not None else None
        if photo is not None and not data:
            raise WebError(400, "bad_photo", _("The photo is empty."))
    elif request.mimetype == "application/json":
        raw, data = request.get_data(as_text=True), None
    else:
        raise WebError(415, "unsupported_media_type",
                       _("Send the hand as JSON, or as multipart with the fields hand and photo."))
    try:
        hand = json.loads(raw)
    except ValueError as e:
        raise WebError(400, "malformed_json", _("The hand is not valid JSON: %(error)s", error=str(e))) from None
    if not isinstance(hand, dict):
        raise WebError(400, "bad_hand", _("The hand must be a JSON object."))
    if isinstance(hand.get("photo"), str):
        text = hand.pop("photo")
        text = text.split(",", 1)[1] if text.startswith("data:") else text
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise WebError(400, "bad_photo", _("photo: not base64-encoded picture data")) from None
    elif "photo" in hand:
        raise WebError(400, "bad_hand", _("photo: base64-encoded picture data is needed"))
    return hand, data


def _read_photo(data: bytes) -> tuple[Any, list[dict]]:
    """The picture and the tiles read in it (the process's recogniser, never one per request)."""
    from companion.errors import CompanionError, ImageError
    from companion.scoring.photo import read_tiles
    from companion.vision.scene import tile_recognizer
    from companion.vision.tiles.recognizer import decode_image

    try:
        image = decode_image(data, "photo")
    except ImageError as e:
        raise WebError(400, "bad_photo", _("That file is not a photo the companion can read (JPEG, PNG or HEIC): "
                                           "%(reason)s", reason=str(e))) from None
    if not _reading.acquire(timeout=READ_WAIT_S):
        raise WebError(503, "busy", _("Other photos are being read; try again in a moment."))
    try:
        return image, read_tiles(tile_recognizer(), image)
    except CompanionError as e:  # the model files missing from this installation
        raise WebError(503, "no_recognizer", _("The tile recogniser is not available: %(reason)s",
                                               reason=str(e))) from None
    finally:
        _reading.release()


def score_request(hand: dict[str, Any], photo: bytes | None, variant, *, keep: bool = True) -> dict[str, Any]:
    """The answer to one request (the API's and the benchmark's path)."""
    from companion.scoring import BadHand, parse_hand, score_hand, system_of
    from companion.scoring.photo import hand_from_tiles

    t0 = time.perf_counter()
    out: dict[str, Any] = {}
    from_photo = photo is not None
    if from_photo:
        image, tiles = _read_photo(photo)
        codes = [t["tile"] for t in tiles]
        if "winning_tile" not in hand:  # laid last, as players do: the phone shows it marked
            playing = [c for c in codes if not c.endswith("f")]
            hand["winning_tile"] = playing[-1] if playing else None
        try:
            hand = hand_from_tiles(codes, hand)
        except BadHand as e:
            raise WebError(400, "bad_hand", str(e)) from None
        out["tiles"] = tiles
        out["photo"] = _kept().keep(image, tiles) if keep else None
    t1 = time.perf_counter()
    system = system_of(variant)
    try:
        score = score_hand(parse_hand(hand), variant)
    except BadHand as e:
        if not from_photo:
            raise WebError(400, "bad_hand", str(e)) from None
        from companion.scoring import Score

        score = Score.invalid(str(e), system)  # a reading to correct: the tiles go back with the reason
    t2 = time.perf_counter()
    out.update(hand=hand, score=score.to_json(), record=record_value(score, system),
               ms={"read": round(1000 * (t1 - t0), 1), "score": round(1000 * (t2 - t1), 1)})
    return out


@scoring_view.get("/scored-hands.zip")
def download():
    """The kept photos of scored hands with their labels (host only: they show the players' hands)."""
    import datetime

    from flask import Response

    from companion.web.guard import require_host

    require_host()
    name = f"scored-hands-{datetime.datetime.now():%Y%m%d-%H%M}.zip"
    return Response(_kept().zip_bytes(), mimetype="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@scoring_view.post("/api/score")
def post_score():
    """Score a hand (and read it from a photo): the score, its items, the value to record."""
    require_write()
    from companion.errors import VariantError

    state = services().table.state
    if state is None:
        raise WebError(409, "no_game", _("No game has been started."))
    hand, photo = _body()
    try:
        return jsonify(score_request(hand, photo, state.variant))
    except VariantError as e:  # the variant keeps no scores, or its [scoring] table is bad
        raise WebError(409, "no_scoring", str(e)) from None
