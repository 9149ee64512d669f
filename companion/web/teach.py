""""Teach your set" from a phone: the host photographs the layout sheet and the companion learns
the club's tiles (the same flow as `companion teach`, see companion.vision.tiles.teach).

`GET /teach` says what is taught now and how to teach; `GET /teach/sheet.svg` is the printable
sheet; `POST /teach` takes the photo or photos (multipart, field `photo`; the phone's camera
opens from the file field), teaches, saves the set and hands it to the running recogniser; `POST
/teach/forget` goes back to the shipped models. Host only. A photo that is not a picture or
does not show the layout is refused with the reason, and the set taught before stays.
"""

from __future__ import annotations

import datetime
import threading

from flask import Blueprint, Response, redirect, request, url_for
from flask_babel import gettext as _

from companion.web.errors import WebError
from companion.web.guard import require_host
from companion.web.i18n import error_message
from companion.web.views import page

teach_view = Blueprint("teach", __name__)

#: a phone photo is a few MB; the rest of the dashboard keeps its 64 KiB limit
PHOTO_LIMIT = 16 * 1024 * 1024
#: one teaching at a time (it loads a second copy of the models for a few seconds)
_teaching = threading.Lock()


def allow_photo_upload() -> None:
    """Raise the body limit for the photo upload only, and only for the host from this site's own
    page: who may upload is checked before a byte of the body is read (the CSRF token, in the
    form, is checked next by the guard), so nobody else can make the server take in 16 MiB."""
    if request.endpoint == "teach.upload" and request.method == "POST":
        from companion.web.guard import check_origin

        check_origin()
        require_host()
        request.max_content_length = PHOTO_LIMIT


def _current() -> dict | None:
    """What is taught now: {"tiles", "detector", "threshold", "when"}, or None."""
    from companion.vision.tiles.teach import TaughtSet, taught_path

    path = taught_path()
    taught = TaughtSet.load(path)
    if taught is None:
        return None
    when = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return {"tiles": len(taught.codes), "detector": taught.detector, "threshold": taught.threshold, "when": when}


def _page(**context):
    from companion.errors import CompanionError

    try:
        current = _current()
    except CompanionError as e:  # a damaged file: say so, and offer to forget it
        current, context["damaged"] = None, error_message(e)
    return page("teach.html", current=current, limit_mb=PHOTO_LIMIT // (1024 * 1024), **context)


@teach_view.get("/teach")
def teach_page():
    require_host()
    return _page()


@teach_view.get("/teach/sheet.svg")
def sheet():
    from companion.vision.tiles.sheet import layout_sheet_svg

    return Response(layout_sheet_svg(), mimetype="image/svg+xml",
                    headers={"Content-Disposition": 'inline; filename="mahjong-layout-sheet.svg"'})


@teach_view.post("/teach")
def upload():
    require_host()
    from companion.errors import CompanionError, ImageError
    from companion.vision.scene import use_taught_set
    from companion.vision.tiles.recognizer import TileRecognizer, decode_image
    from companion.vision.tiles.teach import teach

    images = []
    for photo in request.files.getlist("photo"):  # one to three photos; different light helps
        data = photo.read()
        if not data:
            continue
        try:
            images.append(decode_image(data, photo.filename or "photo"))
        except ImageError:
            return _page(error=_("That file is not a photo the companion can read (JPEG, PNG or HEIC)."), status=400)
    if not images:
        return _page(error=_("Choose a photo of the layout first."), status=400)
    if not _teaching.acquire(blocking=False):
        raise WebError(409, "busy", _("Another photo is being taught; try again in a moment."))
    try:
        # a recogniser of its own: teaching changes its threshold for a moment, which must not
        # reach the one the camera is using
        taught = teach(TileRecognizer(taught=None), images)
        taught.save()
    except CompanionError as e:
        return _page(error=_("The layout could not be read: %(reason)s", reason=error_message(e)), status=400)
    except OSError as e:  # the data folder is full or read-only: the set taught before stays
        return _page(error=_("The taught set could not be saved: %(reason)s", reason=str(e)), status=500)
    finally:
        _teaching.release()
    use_taught_set(taught)
    i = taught.info
    return _page(done=_("Taught %(tiles)d tiles in %(seconds)s s.", tiles=i["tiles"], seconds=i["seconds"]),
                 familiar=f"{100 * i['familiar']:.0f} %")


@teach_view.post("/teach/forget")
def forget():
    require_host()
    from companion.vision.scene import use_taught_set
    from companion.vision.tiles.teach import taught_path

    taught_path().unlink(missing_ok=True)
    use_taught_set(None)
    return redirect(url_for("teach.teach_page"), 303)
