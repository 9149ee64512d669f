""""Teach your set" from a phone: the host uploads a layout photo, the running recogniser uses
the set at once; bad photos are refused with the reason and lose nothing."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pillow_heif
import pytest
from PIL import Image

from companion.vision import scene
from companion.vision.tiles.synth import layout_photo
from companion.vision.tiles.teach import TaughtSet
from companion.web import teach as teach_web
from tests.integration.test_web_api import HOST_CODE, Phone, make_app


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_TAUGHT_SET", str(tmp_path / "taught" / "set.npz"))
    app, services = make_app(tmp_path)
    yield app
    services.stop()
    scene.use_taught_set(None)  # the process's recogniser is shared by every test


@pytest.fixture
def host(app):
    phone = Phone(app)
    assert phone.join(code=HOST_CODE, role="host").status_code == 200
    return phone


def png(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


@pytest.fixture(scope="module")
def layout() -> bytes:
    image, _, _ = layout_photo(np.random.default_rng(2), art="abstract")  # a design the models never saw
    return png(image)


def upload(phone: Phone, data: bytes, name: str = "layout.png"):
    return phone.post("/teach", data={"photo": (io.BytesIO(data), name)}, content_type="multipart/form-data",
                      headers={"Accept": "text/html"})


def test_the_teach_page_is_for_the_host_and_links_the_sheet(app, host):
    player = Phone(app)
    player.join()
    assert player.get("/teach").status_code == 403
    page = host.get("/teach").get_data(as_text=True)
    assert "Nothing taught yet" in page and 'capture="environment"' in page
    sheet = host.get("/teach/sheet.svg")
    assert sheet.mimetype == "image/svg+xml" and sheet.get_data(as_text=True).startswith("<svg")
    assert "/teach" in host.get("/settings").get_data(as_text=True)


def test_a_layout_photo_teaches_the_running_recogniser(app, host, layout, tmp_path):
    live = scene.tile_recognizer()
    assert live.taught is None
    assert len(layout) > 64 * 1024  # larger than any other request body may be
    r = upload(host, layout)
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    page = r.get_data(as_text=True)
    assert "Taught 42 tiles" in page and "Taught set: 42 tiles" in page
    assert "detector trained on many designs" in page  # the shipped models did not know this design
    saved = TaughtSet.load(tmp_path / "taught" / "set.npz")
    assert saved.codes == live.taught.codes and live.taught.detector == saved.detector == "general"

    r = host.post("/teach/forget", data={}, content_type="multipart/form-data")
    assert r.status_code == 303
    assert not (tmp_path / "taught" / "set.npz").exists() and live.taught is None
    assert "Nothing taught yet" in host.get("/teach").get_data(as_text=True)


def test_a_heic_layout_photo_from_a_phone_teaches_too(app, host, layout, tmp_path):
    out = io.BytesIO()
    pillow_heif.from_pillow(Image.open(io.BytesIO(layout))).save(out, quality=95)  # as an iPhone saves it
    r = upload(host, out.getvalue(), "IMG_0001.HEIC")
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    assert "Taught 42 tiles" in r.get_data(as_text=True)
    assert (tmp_path / "taught" / "set.npz").exists()


@pytest.mark.parametrize("data, says", [
    (b"\x89PNG\r\n\x1a\n this is not really a picture", "not a photo the companion can read"),
    (b"", "Choose a photo of the layout first"),
    (png(np.full((480, 640, 3), 90, np.uint8)), "The layout could not be read"),  # a bare table: no rows
])
def test_a_bad_photo_is_refused_with_the_reason_and_the_taught_set_stays(app, host, layout, tmp_path, data, says):
    assert upload(host, layout).status_code == 200
    path = tmp_path / "taught" / "set.npz"
    before = path.read_bytes()
    r = upload(host, data)
    assert r.status_code == 400 and says in r.get_data(as_text=True)
    assert path.read_bytes() == before and scene.tile_recognizer().taught is not None


def test_a_photo_over_the_limit_is_refused_and_other_bodies_keep_theirs(app, host, layout, monkeypatch):
    monkeypatch.setattr(teach_web, "PHOTO_LIMIT", len(layout) // 2)
    r = host.post("/teach", data={"photo": (io.BytesIO(layout), "big.png")}, content_type="multipart/form-data",
                  headers={"Accept": "application/json"})
    assert r.status_code == 413 and r.json["error"]["code"] == "too_large"
    assert f"at most {len(layout) // 2 // 1024} KiB" in r.json["error"]["message"]
    r = host.post("/api/hands", json={"result": "draw", "pad": "x" * (70 * 1024)})
    assert r.status_code == 413 and "at most 64 KiB" in r.json["error"]["message"]


def test_several_photos_teach_together_and_one_bad_file_refuses_them_all(app, host, layout, tmp_path):
    live = scene.tile_recognizer()
    second = png(layout_photo(np.random.default_rng(3), art="abstract")[0])
    files = [(io.BytesIO(layout), "a.png"), (io.BytesIO(b"not a picture"), "b.jpg")]
    r = host.post("/teach", data={"photo": files}, content_type="multipart/form-data")
    assert r.status_code == 400 and not (tmp_path / "taught" / "set.npz").exists()
    files = [(io.BytesIO(layout), "a.png"), (io.BytesIO(second), "b.png")]
    r = host.post("/teach", data={"photo": files}, content_type="multipart/form-data")
    assert r.status_code == 200 and live.taught.info["photos"] == 2


def test_a_set_that_cannot_be_saved_says_so_and_the_old_one_stays(app, host, layout, tmp_path, monkeypatch):
    assert upload(host, layout).status_code == 200
    before = (tmp_path / "taught" / "set.npz").read_bytes()
    taught_before = scene.tile_recognizer().taught

    def full_disk(self, path=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TaughtSet, "save", full_disk)
    r = upload(host, layout)
    assert r.status_code == 500 and "could not be saved" in r.get_data(as_text=True)
    assert (tmp_path / "taught" / "set.npz").read_bytes() == before
    assert scene.tile_recognizer().taught is taught_before
