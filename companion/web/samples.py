"""Camera samples on the dashboard: the still scenes the camera acted on, for the host to send on.

`GET /samples.zip` is every sample kept (`companion.vision.samples`), each with what the
players did next in the game log ("afterwards"), so that a camera event they undid or corrected
marks a reading gone wrong; `POST /samples/delete` deletes them all. Host only: the frames show
the table and the hands over it. The settings page says how many there are (`summary`).
"""

from __future__ import annotations

import datetime

from flask import Blueprint, Response, redirect, url_for
from flask_babel import gettext as _

from companion.web.errors import WebError
from companion.web.guard import require_host, services

samples_view = Blueprint("samples", __name__)

#: events of the game log after a sample that go with it in the zip (a hand is about 20)
AFTERWARDS = 40


def _keeper():
    watcher = services().find("vision")
    return getattr(watcher, "samples", None)


def summary() -> dict | None:
    """{"count", "bytes", "limit", "newest"} of the samples kept, or None when none are kept here."""
    keeper = _keeper()
    return keeper.summary() if keeper is not None else None


def _kept():
    keeper = _keeper()
    if keeper is None:
        raise WebError(404, "no_samples", _("This companion keeps no camera samples (no camera, or "
                                             "[vision] keep_samples is 0 in the configuration)."))
    return keeper


@samples_view.get("/samples.zip")
def download():
    require_host()
    keeper = _kept()
    store = services().table.store

    def afterwards(record: dict) -> list[dict]:
        game = record.get("game")
        if not isinstance(game, int):
            return []
        after = record.get("after_event") if isinstance(record.get("after_event"), int) else 0
        return [r.to_json() for r in store.events(game, after=after, limit=AFTERWARDS)]

    data = keeper.zip_bytes(afterwards)
    name = f"camera-samples-{datetime.datetime.now():%Y%m%d-%H%M}.zip"
    return Response(data, mimetype="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@samples_view.post("/samples/delete")
def delete():
    require_host()
    _kept().clear()
    return redirect(url_for("views.settings_page") + "#samples-h", 303)
