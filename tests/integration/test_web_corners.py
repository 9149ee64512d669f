"""The table's corners set by hand on the dashboard (scope 1 of the table-watching issue: the
four-corner fallback): a table without markers is calibrated from four taps, the corners outlive
a restart, bad corners are refused with the reason and change nothing."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.hardware.camera.base import Frame
from companion.vision.render.draw import make_view, render
from companion.vision.render.scenes import random_scene
from companion.vision.watch import TableWatcher
from tests.integration.test_web_api import HOST_CODE, Phone, make_app


class StillCamera:
    """A camera showing one picture: the watcher's `latest` and nothing more."""

    def __init__(self, image: np.ndarray) -> None:
        self.image, self.seq = image, 0

    def latest(self, after_seq=None, timeout=1.0):
        self.seq += 1
        return Frame(self.image, self.seq, time.monotonic())


@pytest.fixture(scope="module")
def table():
    """A built table drawn without its corner markers, and its four corners in the picture (TL, TR, BR, BL)."""
    sc = replace(random_scene(1, "easy", stage="built", variant_name="classical"), markers=False)
    image, _ = render(sc)
    w, h = sc.table_size
    corners = make_view(sc.camera, sc.table_size).project([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]])
    return image, corners, sc.truth


@pytest.fixture
def app(tmp_path, table):
    app, services = make_app(tmp_path)
    services.find("vision").camera = StillCamera(table[0])
    yield app
    services.stop()


@pytest.fixture
def host(app):
    phone = Phone(app)
    assert phone.join(code=HOST_CODE, role="host").status_code == 200
    return phone


def watcher(app) -> TableWatcher:
    return app.extensions["companion"].find("vision")


def form(corners_px, size) -> dict:
    w, h = size
    return {f"{a}{k}": f"{100 * v / s:.2f}" for k, (x, y) in enumerate(corners_px, 1)
            for a, v, s in (("x", x, w), ("y", y, h))}


def post(phone: Phone, path: str, data: dict):
    return phone.post(path, data=data, content_type="multipart/form-data", headers={"Accept": "text/html"})


def test_the_corners_page_is_the_hosts_and_shows_the_camera_picture(app, host, table):
    player = Phone(app)
    player.join()
    assert player.get("/calibrate").status_code == 403
    page = host.get("/calibrate").get_data(as_text=True)
    assert "Not calibrated" in page and 'src="/calibrate/picture.jpg"' in page and "corners.js" in page
    picture = host.get("/calibrate/picture.jpg")
    assert picture.mimetype == "image/jpeg"
    shown = cv2.imdecode(np.frombuffer(picture.data, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == table[0].shape  # the whole picture, so per cents of it are the camera's
    assert "/calibrate" in host.get("/settings").get_data(as_text=True)


def test_four_corners_tapped_calibrate_a_table_without_markers(app, host, table, tmp_path):
    image, corners, truth = table
    size = (image.shape[1], image.shape[0])
    w = watcher(app)
    assert w.process(Frame(image, 1, 0.0)) is None  # the first frame only starts the still period
    assert w.process(Frame(image, 2, 5.0))["calibrated"] is False  # no markers: the picture is read as a photo

    r = post(host, "/calibrate", form(corners, size))
    assert r.status_code == 200 and "calibrated from the corners you set" in r.get_data(as_text=True)
    saved = json.loads((tmp_path / "table_corners.json").read_text())
    assert saved["image_size"] == list(size)
    assert np.abs(np.array(saved["corners"]) - corners).max() < 0.2  # two decimals of a per cent

    w.still = type(w.still)(0.0)  # a new still scene at once
    w.process(Frame(image, 3, 10.0))
    obs = w.process(Frame(image, 4, 11.0))
    assert obs["calibrated"] is True and w.calibration.current.source == "manual"
    status = app.extensions["companion"].hub.status["vision"]  # what Settings -> Links shows
    assert status["connected"] is True and status["calibrated"] is True and status["calibration"] == "manual"
    assert {s: v["standing"] for s, v in obs["walls"]["seats"].items()} == truth["walls"]
    assert "Calibrated by corners set by hand" in host.get("/calibrate").get_data(as_text=True)


def test_the_corners_outlive_a_restart_and_can_be_forgotten(app, host, table, tmp_path):
    image, corners, _ = table
    assert post(host, "/calibrate", form(corners, (image.shape[1], image.shape[0]))).status_code == 200
    w = watcher(app)
    again = TableWatcher(w.table, w.hub, w.camera, w.settings, corners_file=w.corners_file)
    assert again.calibration.current.source == "manual"
    assert np.allclose(again.calibration.current.H, w.calibration.current.H, atol=1e-6)

    page = host.get("/calibrate").get_data(as_text=True)
    assert "Corners set here on" in page
    r = post(host, "/calibrate/forget", {})
    assert r.status_code == 303
    assert not (tmp_path / "table_corners.json").exists() and w.calibration.current is None
    assert "Not calibrated" in host.get("/calibrate").get_data(as_text=True)


@pytest.mark.parametrize("change, says", [
    (lambda f: {**f, "x2": f["x4"], "y2": f["y4"], "x4": f["x2"], "y4": f["y2"]}, "do not outline the table"),
    (lambda f: {**f, "x3": "far"}, "two numbers from 0 to 100"),
    (lambda f: {**f, "y1": "140"}, "two numbers from 0 to 100"),
    (lambda f: {k: v for k, v in f.items() if k != "y4"}, "two numbers from 0 to 100"),
])
def test_bad_corners_are_refused_with_the_reason_and_change_nothing(app, host, table, tmp_path, change, says):
    image, corners, _ = table
    good = form(corners, (image.shape[1], image.shape[0]))
    assert post(host, "/calibrate", good).status_code == 200
    before = (tmp_path / "table_corners.json").read_bytes()
    H = watcher(app).calibration.current.H.copy()
    r = post(host, "/calibrate", change(good))
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and says in page
    assert (tmp_path / "table_corners.json").read_bytes() == before
    assert np.array_equal(watcher(app).calibration.current.H, H)
    bad = change(good)
    assert all(f'value="{bad[k]}"' in page for k in bad)  # what was typed stays in the form


def test_a_damaged_corners_file_is_said_and_setting_them_again_mends_it(app, host, table, tmp_path):
    (tmp_path / "table_corners.json").write_text('{"corners": [[1, 2]]')
    page = host.get("/calibrate").get_data(as_text=True)
    assert "cannot be read" in page and "set them again" in page
    image, corners, _ = table
    assert post(host, "/calibrate", form(corners, (image.shape[1], image.shape[0]))).status_code == 200
    assert "cannot be read" not in host.get("/calibrate").get_data(as_text=True)


def test_without_a_camera_the_page_says_there_is_nothing_to_calibrate(app, host):
    watcher(app).camera = None
    r = host.get("/calibrate", headers={"Accept": "text/html"})
    assert r.status_code == 409 and "nothing to calibrate" in r.get_data(as_text=True)


@pytest.mark.parametrize("size, kept", [((640, 360), True), ((640, 480), False)])
def test_corners_set_on_another_resolution_are_scaled_or_dropped_never_misplaced(app, host, table, tmp_path, size, kept):
    """The camera's resolution changed after the corners were set: the same shape is the same view
    at another scale, so they are scaled; another shape is another view, so they are dropped and
    the table is not calibrated from the wrong place."""
    image, corners, _ = table
    assert post(host, "/calibrate", form(corners, (image.shape[1], image.shape[0]))).status_code == 200
    w = watcher(app)
    smaller = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    w.process(Frame(smaller, 1, 0.0))
    w.process(Frame(smaller, 2, 5.0))
    cal = w.calibration.current
    if kept:
        f = size[0] / image.shape[1]
        assert cal.source == "manual"
        assert np.allclose(cal.to_table(corners * f), [[0, 0], [80, 0], [80, 80], [0, 80]], atol=0.1)
    else:
        assert cal is None
