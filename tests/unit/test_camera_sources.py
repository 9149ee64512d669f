"""Camera sources: spec parsing, folder/video replay, USB (OpenCV) capture, the Pi camera off a Pi."""

import json
import time

import cv2
import numpy as np
import pytest

from companion.config import load_settings
from companion.errors import ConfigError
from companion.hardware.camera.base import CameraError
from companion.hardware.camera.opencv import OpenCVSource
from companion.hardware.camera.picamera import PiCameraSource
from companion.hardware.camera.replay import ReplaySource
from companion.hardware.camera.sources import SourceSpec, make_source, parse_source


@pytest.mark.parametrize("text, spec", [
    ("sim", SourceSpec("sim")),
    ("picamera2", SourceSpec("picamera2")),
    ("opencv:0", SourceSpec("opencv", 0)),
    ("opencv:/dev/video2", SourceSpec("opencv", "/dev/video2")),
    ("/dev/video0", SourceSpec("opencv", "/dev/video0")),
    ("replay:/srv/scenes", SourceSpec("replay", "/srv/scenes")),
    ("off", SourceSpec("off")),
])
def test_source_specs(text, spec):
    assert parse_source(text) == spec


@pytest.mark.parametrize("bad", ["webcam", "opencv:", "replay:", "sim:1", ""])
def test_bad_source_specs_name_the_accepted_forms(bad):
    with pytest.raises(ValueError, match="picamera2"):
        parse_source(bad)


def test_a_bad_camera_in_the_config_file_is_explained(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[camera]\nsource = "usb"\n')
    with pytest.raises(ConfigError, match=r"camera: camera source 'usb' is not one of"):
        load_settings(cfg, env={})


def image(i, size=(64, 48)):
    img = np.full((size[1], size[0], 3), 40 * i % 256, np.uint8)
    cv2.putText(img, str(i), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 2)
    return img


def test_folder_replay_skips_a_corrupt_photo_and_passes_truth_on(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), image(i))
    (tmp_path / "01.json").write_text(json.dumps({"dice": [3, 4]}))
    (tmp_path / "015.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    whole = cv2.imencode(".jpg", image(7, (640, 480)))[1].tobytes()
    (tmp_path / "016.jpg").write_bytes(whole[: len(whole) // 2])  # cut short: it would decode half grey
    (tmp_path / "notes.txt").write_text("not an image")
    with ReplaySource(tmp_path, fps=0) as src:
        frames = [src.read() for _ in range(4)]
        # each left out of the loop once and for all (not decoded, and complained of, at every round)
        assert src.describe()["skipped"] == ["015.jpg", "016.jpg"] and src.describe()["images"] == 3
    assert [f.seq for f in frames] == [1, 2, 3, 4]
    assert np.array_equal(frames[0].image, image(0)) and np.array_equal(frames[3].image, image(0))  # loops
    assert frames[1].truth == {"dice": [3, 4]} and frames[0].truth is None


def test_replay_is_paced_like_a_camera(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), image(1))
    with ReplaySource(tmp_path, fps=20) as src:
        start = time.monotonic()
        for _ in range(5):
            src.read()
        assert time.monotonic() - start >= 0.15  # 4 intervals of 50 ms after the first frame


def test_replay_of_a_missing_or_empty_folder_is_a_camera_error(tmp_path):
    with pytest.raises(CameraError, match="no such folder"):
        ReplaySource(tmp_path / "gone").open()
    with pytest.raises(CameraError, match="no images"):
        ReplaySource(tmp_path).open()
    (tmp_path / "bad.png").write_bytes(b"garbage")
    with ReplaySource(tmp_path, fps=0) as src, pytest.raises(CameraError, match="can be read"):
        src.read()


def write_video(path, n=6, size=(64, 48)):
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, size)
    assert out.isOpened()
    for i in range(n):
        out.write(image(i, size))
    out.release()


def test_video_replay_loops(tmp_path):
    write_video(tmp_path / "table.avi", n=3)
    with ReplaySource(tmp_path / "table.avi", fps=0) as src:
        frames = [src.read() for _ in range(5)]
    assert all(f.image.shape == (48, 64, 3) for f in frames)
    assert abs(int(frames[3].image.mean()) - int(frames[0].image.mean())) <= 3  # back at the start


def test_opencv_source_reads_a_stream_and_reports_its_end(tmp_path):
    write_video(tmp_path / "cam.avi", n=3)
    src = OpenCVSource(str(tmp_path / "cam.avi"), size=(64, 48))
    src.open()
    try:
        assert [src.read().seq for _ in range(3)] == [1, 2, 3]
        assert src.describe()["resolution"] == [64, 48]
        with pytest.raises(CameraError, match="unplugged"):
            src.read()
    finally:
        src.close()


def test_opencv_source_without_a_camera_says_so(tmp_path):
    with pytest.raises(CameraError, match="no camera at"):
        OpenCVSource(str(tmp_path / "video9")).open()


def test_pi_camera_off_a_pi_explains_how_to_install_it():
    pytest.importorskip("companion.hardware.camera.picamera")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("picamera2 is installed here: tests/hardware covers the real camera")
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        PiCameraSource().open()


def test_make_source_builds_each_kind(tmp_path):
    def settings(source):
        return load_settings(env={}, overrides={"camera": {"source": source}, "data_dir": str(tmp_path)}).camera
    assert isinstance(make_source(settings(f"replay:{tmp_path}")), ReplaySource)
    assert isinstance(make_source(settings("opencv:3")), OpenCVSource)
    assert isinstance(make_source(settings("picamera2")), PiCameraSource)
    assert make_source(settings("off")) is None


def test_exposure_lock_on_a_device_that_cannot_lock_stays_automatic(tmp_path, caplog):
    write_video(tmp_path / "cam.avi", n=20)
    src = OpenCVSource(str(tmp_path / "cam.avi"), size=(64, 48), exposure_lock=True)
    src.open()
    try:
        assert src.describe()["exposure_locked"] is False
        assert "does not let its exposure be locked" in caplog.text
        assert src.read().image.shape == (48, 64, 3)
    finally:
        src.close()
