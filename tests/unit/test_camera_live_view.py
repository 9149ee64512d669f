"""The dashboard's live view: MJPEG frames with the recognised things drawn, a 'no camera' picture, limits."""

import time

import cv2
import numpy as np
import pytest

from companion.config import load_settings
from companion.hardware.camera import overlay
from companion.services import build_services
from companion.web import create_app


def bright(i):
    return np.full((360, 640, 3), 200, np.uint8)


@pytest.fixture
def app(tmp_path):
    folder = tmp_path / "scenes"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i}.png"), bright(i))
    settings = load_settings(env={}, overrides={
        "data_dir": str(tmp_path / "data"),
        "camera": {"source": f"replay:{folder}", "fps": 20, "view_fps": 20, "view_width": 320, "max_viewers": 1},
    })
    services = build_services(settings)
    services.start()
    app = create_app(services)
    yield app, services, folder
    services.stop()


def jpegs(response, n):
    """The first n JPEG pictures of an MJPEG response."""
    buf, out = b"", []
    for chunk in response.response:
        buf += chunk
        while b"\r\n\r\n" in buf and len(out) < n:
            head, rest = buf.split(b"\r\n\r\n", 1)
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            if len(rest) < length + 2:
                break
            out.append(cv2.imdecode(np.frombuffer(rest[:length], np.uint8), cv2.IMREAD_COLOR))
            buf = rest[length + 2:]
        if len(out) >= n:
            break
    response.close()
    return out


def test_stream_shows_the_frames_with_the_latest_observation_drawn(app):
    app, services, _ = app
    services.hub.publish("observation", {"size": [640, 360], "tiles": [{"tile": "5p", "box": [100, 100, 200, 200],
                                                                        "score": 0.97}],
                                         "dice": [{"face": 4, "box": [400, 50, 450, 100], "cocked": True}]})
    client = app.test_client()
    r = client.get("/camera/stream.mjpg", buffered=False)
    assert r.status_code == 200 and r.mimetype == "multipart/x-mixed-replace"
    pictures = jpegs(r, 3)
    assert len(pictures) == 3
    pic = pictures[-1]
    assert pic.shape[1] == 320  # scaled to view_width before encoding
    # the tile's green box edge (x=50 at half scale) and the cocked die's red box are drawn on the grey frame
    b, g, rr = (int(v) for v in pic[75, 50])
    assert g > 150 and g > rr + 40 and g > b + 40
    b, g, rr = (int(v) for v in pic[40, 200])
    assert rr > 150 and rr > g + 60


def test_viewers_beyond_the_limit_are_refused(app):
    app, services, _ = app
    client = app.test_client()
    first = client.get("/camera/stream.mjpg", buffered=False)
    next(iter(first.response))
    second = client.get("/camera/stream.mjpg", buffered=False, headers={"Accept": "application/json"})
    error = second.get_json()["error"]  # the API's error shape
    assert second.status_code == 503 and error["code"] == "too_many_viewers" and "1 viewers" in error["message"]
    first.close()
    third = client.get("/camera/stream.mjpg", buffered=False)
    assert third.status_code == 200
    third.close()


def test_a_missing_camera_shows_a_picture_saying_so_and_recovers(app, tmp_path):
    app, services, folder = app
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    gone = folder.rename(tmp_path / "unplugged")
    deadline = time.monotonic() + 10
    while services.hub.status["camera"]["connected"] and time.monotonic() < deadline:
        time.sleep(0.05)
    r = client.get("/camera/snapshot.jpg")
    pic = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
    assert pic.mean() < 60  # the dark 'not connected' picture, not the grey table
    health = client.get("/healthz")
    assert health.status_code == 503
    camera = next(c for c in health.get_json()["checks"] if c["name"] == "camera")
    assert camera["level"] == "fail" and "not connected" in camera["summary"]
    gone.rename(folder)
    deadline = time.monotonic() + 15
    while not services.hub.status["camera"]["connected"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.get("/healthz").status_code == 200
    pic = cv2.imdecode(np.frombuffer(client.get("/camera/snapshot.jpg").data, np.uint8), cv2.IMREAD_COLOR)
    assert pic.mean() > 150


def test_overlay_skips_malformed_items_and_draws_unknown_kinds():
    img = np.zeros((100, 100, 3), np.uint8)
    obs = {"tiles": [{"tile": "1m", "box": "nonsense"}, {"tile": "2m", "box": [10, 10, 30, 30]}],
           "dice": "not a list",
           "walls": {"S": {"quad": [[50, 50], [90, 50], [90, 60], [50, 60]]}},
           "markers": [{"id": 2, "corners": [[1, 1], [5, 1], [5, 5]]}, {"id": 3}],
           "east_marker_at": {"side": "right", "px": [70, 80]}, "wind_at": {"px": "?"}}
    out, drawn = overlay.draw(img, obs)
    assert drawn == 4
    assert out[10, 20].any() and out[50, 70].any() and out[80, 84].any() and not img.any()


def test_a_die_is_captioned_with_how_sure_its_face_is():
    assert overlay.die_label({"face": 5, "box": [0, 0, 9, 9], "cocked": False, "face_p": 0.456}) == "5 0.46"
    assert overlay.die_label({"face": 4, "cocked": True, "face_p": 1.0}) == "4 1.00 cocked: throw again"  # R18
    assert overlay.die_label({"face": 2, "face_p": "?"}) == "2"  # malformed: left out


def test_overlay_writes_what_has_no_place_in_the_picture():
    img = np.zeros((100, 400, 3), np.uint8)
    obs = {"walls": {"break": ["S", 16], "live_tiles": 83}, "east_marker": "E", "wind_shown": "S"}  # as `observe` says
    assert overlay._summary(obs) == "break at S16 | 83 live tiles | East marker at E | wind disc S"
    covered = {"walls": {"break": None, "live_tiles": None, "hidden": [["N", 5], ["N", 6]]}}
    assert overlay._summary(covered) == "2 stacks under a hand"
    assert overlay._summary({"walls": {"hidden": [["N", 5]]}}) == "1 stack under a hand"
    assert overlay._summary({"walls": {"break": "S16", "live_tiles": "83"}}) == ""  # malformed: left out
    out, drawn = overlay.draw(img, obs)
    assert drawn == 0 and out[:22].any() and not out[30:].any()


def test_the_live_views_caption_reads_what_the_scene_analysis_gives():
    """The caption once looked for the break as a dict, which `analyse` never gives: checked on
    a real observation so that the two cannot drift apart again."""
    from companion.vision.render.draw import render
    from companion.vision.render.scenes import random_scene, scene_variant
    from companion.vision.scene import SceneSettings, analyse

    sc = random_scene(2, "easy", stage="broken", variant_name="classical")
    t = sc.truth
    obs = analyse(render(sc)[0], SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"]),
                  with_tiles=False).to_json()
    assert overlay._summary(obs).startswith(f"break at {t['break'][0]}{t['break'][1]} | {t['live_tiles']} live tiles")


def test_no_camera_configured_gives_the_no_camera_picture(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "camera": {"source": "off"}})
    services = build_services(settings)
    services.start()
    try:
        client = create_app(services).test_client()
        r = client.get("/camera/stream.mjpg", buffered=False)
        pictures = jpegs(r, 1)
        assert pictures[0].mean() < 60
        assert services.find("camera") is None
    finally:
        services.stop()


def test_camera_benchmark_runs_and_prints_its_figures():
    from click.testing import CliRunner

    from companion.cli import main

    r = CliRunner().invoke(main, ["bench", "camera", "--seconds", "0.3"])
    assert r.exit_code == 0, r.output
    rows = [line.split() for line in r.output.splitlines()[2:]]
    assert [row[0] for row in rows] == ["0", "1", "3", "3"]
    cpu = [float(row[4] if row[1] == "shared" else row[3]) for row in rows]
    assert all(c > 0 for c in cpu)  # CPU use was measured, not assumed
