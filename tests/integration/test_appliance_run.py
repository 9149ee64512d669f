"""The appliance as a user meets it: `companion run` on a replayed camera, /healthz, the live view,
`companion doctor` asking the running companion, a camera that goes away and comes back; and the
replay source feeding a recognition pipeline (calibration-marker detection) frame by frame."""

import json
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest

from companion.hardware.camera import markers as m
from companion.hardware.camera.replay import ReplaySource
from companion.hardware.camera.service import CameraService
from companion.hub import Hub
from companion.vision import markers_spec as spec

PX_PER_CM = 8.0


def table_picture(turn: int = 0) -> np.ndarray:
    """A top-down picture of an 80 cm table with the four corner markers where the spec puts them."""
    w_cm, h_cm = spec.TABLE_SIZE_CM
    img = np.full((int(h_cm * PX_PER_CM), int(w_cm * PX_PER_CM), 3), (60, 120, 40), np.uint8)  # green cloth
    for mid, corners in spec.marker_corners().items():
        cells = m.modules(mid)
        n = cells.shape[0]
        (x0, y0) = corners[0]
        side = spec.MARKER_SIZE_CM * PX_PER_CM
        q = side / n
        pad = int(q)
        cv2.rectangle(img, (int(x0 * PX_PER_CM) - pad, int(y0 * PX_PER_CM) - pad),
                      (int(x0 * PX_PER_CM + side) + pad, int(y0 * PX_PER_CM + side) + pad), (255, 255, 255), -1)
        for r in range(n):
            for c in range(n):
                if cells[r, c]:
                    x, y = x0 * PX_PER_CM + c * q, y0 * PX_PER_CM + r * q
                    cv2.rectangle(img, (int(x), int(y)), (int(x + q) - 1, int(y + q) - 1), (0, 0, 0), -1)
    img = np.rot90(img, turn)
    frame = np.full((720, 960, 3), 90, np.uint8)  # the camera sees the floor round the table too
    y, x = (720 - img.shape[0]) // 2, (960 - img.shape[1]) // 2
    frame[y:y + img.shape[0], x:x + img.shape[1]] = img
    return frame


@pytest.fixture
def scenes(tmp_path):
    folder = tmp_path / "scenes"
    folder.mkdir()
    for i in range(4):
        cv2.imwrite(str(folder / f"table-{i}.jpg"), table_picture(i % 2))
    return folder


def test_replay_feeds_the_recognition_pipeline_frame_by_frame(scenes):
    """A consumer that recognises the corner markers in every frame it takes from the camera service."""
    detector = cv2.aruco.ArucoDetector(m.dictionary(), cv2.aruco.DetectorParameters())
    camera = CameraService(ReplaySource(scenes, fps=30), Hub(), spec=f"replay:{scenes}")
    camera.start()
    try:
        seen, analysed = None, []
        while len(analysed) < 8:
            frame = camera.latest(after_seq=seen, timeout=3)
            assert frame is not None
            seen = frame.seq
            _, ids, _ = detector.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
            analysed.append(sorted(ids.ravel().tolist()) if ids is not None else [])
    finally:
        camera.stop()
    assert analysed == [sorted(spec.CORNER_IDS.values())] * 8


def start(tmp_path, config):
    cfg = tmp_path / "companion.toml"
    cfg.write_text(config)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0", "--data-dir",
         str(tmp_path / "data"), "--config", str(cfg)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"http://([\d.]+):(\d+)/", line)
    assert found, f"no dashboard URL in {line!r}"
    return proc, f"http://{found[1]}:{found[2]}"


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_health(url, want, timeout=20, until=lambda report: True):
    """The first /healthz report with status `want` for which `until(report)` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = get(f"{url}/healthz")
        if status == want and until(json.loads(body)):
            return json.loads(body)
        time.sleep(0.2)
    raise AssertionError(f"/healthz never answered {want} as wanted: {status} {body[:300]!r}")


def camera_check(report):
    return next(c for c in report["checks"] if c["name"] == "camera")


def doctor(url):
    return subprocess.run([sys.executable, "-m", "companion", "doctor", "--url", f"{url}/healthz"],
                          capture_output=True, text=True, timeout=60)


def test_run_on_a_replayed_camera_that_goes_away_and_comes_back(tmp_path, scenes):
    proc, url = start(tmp_path, f'[camera]\nsource = "replay:{scenes}"\nfps = 10\nview_fps = 10\n')
    try:
        # healthy as soon as the camera is open; the size is known from the first frame on
        report = wait_health(url, 200, until=lambda r: camera_check(r)["details"]["frames"] > 0)
        camera = camera_check(report)
        assert camera["level"] == "ok" and "960x720" in camera["summary"]
        with urllib.request.urlopen(f"{url}/camera/stream.mjpg", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("multipart/x-mixed-replace")
            head = r.read(200)
        assert b"Content-Type: image/jpeg" in head
        ok = doctor(url)
        assert ok.returncode == 0 and "Health of the running companion" in ok.stdout, ok.stdout + ok.stderr

        unplugged = shutil.move(str(scenes), str(tmp_path / "unplugged"))
        report = wait_health(url, 503)
        camera = next(c for c in report["checks"] if c["name"] == "camera")
        assert camera["level"] == "fail" and "not connected" in camera["summary"]
        broken = doctor(url)
        assert broken.returncode == 1 and "FAIL  camera      not connected" in broken.stdout

        shutil.move(unplugged, str(scenes))
        report = wait_health(url, 200)
        assert next(c for c in report["checks"] if c["name"] == "camera")["details"]["reconnects"] >= 1
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
