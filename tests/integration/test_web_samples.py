"""Camera samples on the dashboard: the host sees how many are kept, downloads them as one zip with
what the players did next in the game log, and deletes them; players cannot."""

from __future__ import annotations

import io
import json
import zipfile

from companion.config import load_settings
from companion.game.events import DiceThrown, Undone, WallBroken
from companion.hardware.camera.sim import scene_for_state
from companion.rules.wall import Stack
from companion.services import build_services
from companion.vision.render.draw import render
from companion.vision.samples import samples_path
from companion.web import create_app
from tests.integration.test_crosscheck import still_frames
from tests.integration.test_web_api import HOST_CODE, TABLE_CODE, Phone, app  # noqa: F401  (the fixture)


def services(app):  # noqa: F811
    return app.extensions["companion"]


def host_of(app):  # noqa: F811
    phone = Phone(app)
    assert phone.join(code=HOST_CODE, role="host").status_code == 200
    return phone


def a_camera_break_undone(app):  # noqa: F811
    """The camera reads a break at the wrong stack (a sample is kept), then a player undoes it."""
    s = services(app)
    table, watcher = s.table, s.find("vision")
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    image, _ = render(scene_for_state(table.state, watcher.settings,
                                      broken_at=Stack("W", 16), dice_shown=[]))
    assert table.state.variant.name == "classical"
    still_frames(watcher, image, n=6)  # held still past `still_seconds` (1 s by default)
    [camera] = [r for r in table.records() if isinstance(r.event, WallBroken)]
    table.undo(target=camera.id)
    return camera


def test_the_settings_page_shows_the_host_what_is_kept(app, tmp_path):  # noqa: F811
    host = host_of(app)
    page = host.get("/settings").get_data(as_text=True)
    assert "Camera samples" in page and "Kept now: 0 (0.0 MB)" in page and "/samples.zip" not in page
    a_camera_break_undone(app)
    page = host.get("/settings").get_data(as_text=True)
    assert "Kept now: 1 (" in page and 'href="/samples.zip"' in page
    player = Phone(app)
    player.join()
    assert "Camera samples" not in player.get("/settings").get_data(as_text=True)


def test_the_host_downloads_the_samples_with_what_happened_afterwards(app, tmp_path):  # noqa: F811
    camera = a_camera_break_undone(app)
    r = host_of(app).get("/samples.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert r.headers["Content-Disposition"].startswith('attachment; filename="camera-samples-')
    z = zipfile.ZipFile(io.BytesIO(r.data))
    [name] = [n for n in z.namelist() if n.endswith(".json")]
    record = json.loads(z.read(name))
    assert record["why"] == ["break", "wrong_break"] and record["recorded"] == [camera.id]
    later = record["afterwards"]
    assert later[0]["id"] == camera.id and later[0]["type"] == "wall_broken" and later[0]["source"] == "camera"
    assert [e for e in later if e["type"] == Undone.__struct_config__.tag and e["target"] == camera.id]
    assert "README.txt" in z.namelist() and name.replace(".json", ".jpg") in z.namelist()


def test_players_may_not_download_or_delete_and_the_host_deletes_them(app, tmp_path):  # noqa: F811
    a_camera_break_undone(app)
    player = Phone(app)
    player.join()
    assert player.get("/samples.zip").status_code == 403
    assert player.post("/samples/delete").status_code == 403
    kept = samples_path(tmp_path)
    assert len(list(kept.glob("*.json"))) == 1
    r = host_of(app).post("/samples/delete", headers={"Accept": "text/html"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/settings#samples-h")
    assert list(kept.iterdir()) == []


def test_with_no_samples_kept_the_download_says_why(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "vision": {"keep_samples": 0},
                                                "server": {"table_code": TABLE_CODE, "host_code": HOST_CODE}})
    svc = build_services(settings)
    try:
        host = host_of(create_app(svc))
        r = host.get("/samples.zip")
        assert r.status_code == 404 and "keep_samples" in r.get_data(as_text=True)
        assert "Camera samples" not in host.get("/settings").get_data(as_text=True)
    finally:
        svc.stop()
