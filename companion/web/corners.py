"""The table's corners set by hand from a phone: the calibration for a table without markers.

`GET /calibrate` says what calibrates the camera now and shows a picture from it, on which the
host taps the table's four corners (`static/corners.js` fills in the form; the form alone works
too); `GET /calibrate/picture.jpg` is that picture, as the camera took it; `POST /calibrate`
takes the corners as percentages of the picture's width and height (`x1`…`x4`, `y1`…`y4`:
top left, top right, bottom right, bottom left as the picture shows them), keeps them in the
data folder and calibrates with them at once (`TableWatcher.set_corners`); `POST
/calibrate/forget` goes back to the markers. Host only. Corners that outline no table are
refused with the reason, and the calibration before stays.
"""

from __future__ import annotations

import datetime

import cv2
from flask import Blueprint, Response, redirect, request, url_for
from flask_babel import gettext as _

from companion.web.errors import WebError
from companion.web.guard import require_host, services
from companion.web.i18n import error_message
from companion.web.views import page

corners_view = Blueprint("corners", __name__)

#: the corners' fields, in the order the calibration takes them
CORNERS = ("1", "2", "3", "4")
FRAME_WAIT_S = 2.0


def _watcher():
    """The running table watcher, or a 409 saying why there is none."""
    watcher = services().find("vision")
    if watcher is None or getattr(watcher, "camera", None) is None:
        raise WebError(409, "no_camera", _("The camera does not watch the table (no camera, or vision is off in "
                                           "the configuration), so there is nothing to calibrate."))
    return watcher


def _frame(watcher):
    frame = watcher.camera.latest(timeout=FRAME_WAIT_S)
    if frame is None:
        raise WebError(503, "no_picture", _("No picture from the camera yet; check that it is connected and try "
                                            "again."))
    return frame


def _page(watcher, **context):
    from companion.errors import CompanionError

    cal = watcher.calibration.current
    try:
        saved = watcher.saved_corners()
    except CompanionError as e:  # a damaged file: say so; setting the corners again mends it
        saved, context["damaged"] = None, error_message(e)
    typed = context.pop("typed", None)
    if typed is None and saved is not None:  # the saved corners, as percentages of their picture
        w, h = saved["image_size"]
        typed = {f"{a}{k}": round(100 * v / size, 1) for k, (x, y) in zip(CORNERS, saved["corners"])
                 for a, v, size in (("x", x, w), ("y", y, h))}
    when = None
    if saved is not None:
        try:
            when = datetime.datetime.fromtimestamp(watcher.corners_file.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        except OSError:  # forgotten meanwhile from another phone
            saved = None
    return page("calibrate.html", source=cal.source if cal is not None else None, saved=saved, when=when,
                typed=typed or {}, corners=CORNERS, **context)


@corners_view.get("/calibrate")
def calibrate_page():
    require_host()
    return _page(_watcher())


@corners_view.get("/calibrate/picture.jpg")
def picture():
    require_host()
    frame = _frame(_watcher())
    data = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1]  # finer than the live view's
    return Response(data.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@corners_view.post("/calibrate")
def set_corners():
    require_host()
    from companion.vision.calibrate import CalibrationError

    watcher = _watcher()
    typed = {f"{a}{k}": request.form.get(f"{a}{k}", "") for k in CORNERS for a in "xy"}
    try:
        shares = {name: float(value) for name, value in typed.items()}
    except ValueError:
        shares = None
    if shares is None or not all(0.0 <= v <= 100.0 for v in shares.values()):
        return _page(watcher, typed=typed, status=400,
                     error=_("Give each corner as two numbers from 0 to 100 (per cent of the picture's width "
                             "and height), or tap the four corners on the picture."))
    image = _frame(watcher).image
    h, w = image.shape[:2]
    corners = [[shares[f"x{k}"] * w / 100, shares[f"y{k}"] * h / 100] for k in CORNERS]
    try:
        watcher.set_corners(corners, (w, h))
    except CalibrationError:
        return _page(watcher, typed=typed, status=400,
                     error=_("These four points do not outline the table: tap its corners in the order top left, "
                             "top right, bottom right, bottom left, as the picture shows them."))
    except OSError as e:  # the data folder is full or read-only: nothing changed
        return _page(watcher, typed=typed, status=500,
                     error=_("The corners could not be saved: %(reason)s", reason=str(e)))
    return _page(watcher, done=_("The camera is calibrated from the corners you set. Markers, when the camera "
                                 "sees them, still take over."))


@corners_view.post("/calibrate/forget")
def forget():
    require_host()
    _watcher().forget_corners()
    return redirect(url_for("corners.calibrate_page"), 303)
