"""Calibration from the printed markers, by hand, or none at all."""

import numpy as np
import pytest

from companion.vision import markers_spec
from companion.vision.calibrate import CalibrationError, CalibrationTracker, from_markers, manual, uncalibrated
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene


def test_markers_give_table_centimetres():
    sc = random_scene(4, "medium")
    image, truth = render(sc)
    cal = from_markers(image)
    assert cal is not None and cal.calibrated and sorted(cal.markers) == [0, 1, 2, 3]
    for mid, centre in markers_spec.marker_centres().items():
        px = np.array(truth["markers"][mid]).mean(0)
        assert np.allclose(cal.to_table([px])[0], centre, atol=0.5)


def test_no_markers_means_uncalibrated():
    sc = random_scene(4, "easy")
    sc.markers = False
    image, _ = render(sc)
    assert from_markers(image) is None
    cal = uncalibrated(image)
    assert not cal.calibrated and cal.source == "image"


def test_manual_corners_map_to_the_table_corners():
    cal = manual([[100, 50], [700, 60], [690, 650], [110, 640]], (80, 80))
    assert np.allclose(cal.to_table([[100, 50], [690, 650]]), [[0, 0], [80, 80]], atol=1e-6)


@pytest.mark.parametrize("corners", [[[0, 0], [1, 1]], [[0, 0], [100, 0], [0, 100], [100, 100]]])
def test_manual_corners_that_are_not_a_table_are_refused(corners):
    with pytest.raises(CalibrationError):
        manual(corners)


def test_manual_corners_given_round_the_other_way_are_refused_not_mirrored():
    """Top left, bottom left, bottom right, top right outline the same table, mirrored: East and
    West would swap. A camera looking down never sees a table mirrored, so it is a mistake."""
    with pytest.raises(CalibrationError, match="the wrong way"):
        manual([[100, 50], [110, 640], [690, 650], [700, 60]], (80, 80))


def test_a_bumped_camera_is_calibrated_again():
    a = random_scene(5, "easy")
    tracker = CalibrationTracker()
    first = tracker.update(render(a)[0])
    a.camera.shift = (a.camera.shift[0] + 3.0, a.camera.shift[1])
    second = tracker.update(render(a)[0])
    assert tracker.recalibrations == 1 and not np.allclose(first.H, second.H)


def test_corners_set_by_hand_calibrate_until_markers_are_seen():
    """The dashboard's corners replace even a calibration from markers seen before (a camera
    bumped off them); markers seen again take over; forgetting the corners leaves a markers'
    calibration alone."""
    sc = random_scene(5, "easy")
    with_markers = render(sc)[0]
    sc.markers = False
    without = render(sc)[0]
    tracker = CalibrationTracker()
    assert tracker.update(without) is None
    corners = [[100, 50], [700, 60], [690, 650], [110, 640]]
    tracker.set_manual(corners)
    assert tracker.update(without).source == "manual"
    with pytest.raises(CalibrationError):  # a crossed outline changes nothing
        tracker.set_manual([[0, 0], [100, 0], [0, 100], [100, 100]])
    assert tracker.current.source == "manual"
    assert tracker.update(with_markers).source == "markers"
    tracker.set_manual(None)
    assert tracker.current.source == "markers"
    tracker.set_manual(corners)
    assert tracker.update(without).source == "manual"
    tracker.set_manual(None)
    assert tracker.current is None


@pytest.mark.parametrize("seed,level,tol_cm", [(3, "easy", 0.5), (3, "hard", 4.0), (8, "medium", 4.0)])
def test_where_the_camera_hangs(seed, level, tol_cm):
    from companion.vision.calibrate import camera_position
    from companion.vision.render.draw import make_view

    sc = random_scene(seed, level)
    cal = from_markers(render(sc)[0])
    x, y, height = camera_position(cal)
    truth = make_view(sc.camera, sc.table_size).centre
    assert np.hypot(x - truth[0], y - truth[1]) < tol_cm
    assert abs(height / abs(truth[2]) - 1) < 0.25


@pytest.mark.parametrize("seed,level", [(6, "hard"), (3, "hard"), (8, "medium"), (14, "hard")])
def test_a_measured_camera_height_puts_the_camera_where_it_hangs(seed, level):
    """`[vision] camera_height_cm`: the focal length is the one that puts the camera at the
    height measured, and the point below it follows within about 2 cm, where the markers alone
    leave it up to 10 cm off (hard 6 with the render extra: three markers, 141 cm for 105)."""
    from dataclasses import replace

    from companion.vision.calibrate import camera_position
    from companion.vision.render.draw import make_view

    sc = random_scene(seed, level)
    cal = from_markers(render(sc)[0])
    truth = make_view(sc.camera, sc.table_size).centre
    measured = round(abs(truth[2]))  # to the centimetre, as a tape measure gives it
    x, y, height = camera_position(replace(cal, camera_height_cm=measured))
    assert height == pytest.approx(measured, abs=0.01)
    assert np.hypot(x - truth[0], y - truth[1]) < 2.5


def test_the_scene_reads_with_the_measured_camera_height(monkeypatch):
    """SceneSettings.camera_height_cm reaches every use of where the camera hangs."""
    from companion.rules.variant import load_variant
    from companion.vision import scene, walls

    seen = []

    def spy(cal):
        seen.append(cal.camera_height_cm)
        return None

    monkeypatch.setattr(scene, "camera_position", spy)
    monkeypatch.setattr(walls, "camera_position", spy)
    image, _ = render(random_scene(3, "easy"))
    scene.analyse(image, scene.SceneSettings(load_variant("classical"), camera_height_cm=118.0), with_tiles=False)
    assert seen and set(seen) == {118.0}


@pytest.mark.parametrize("height", [5, 1000])
def test_a_camera_height_out_of_reach_is_refused(height):
    from companion.config import load_settings
    from companion.errors import ConfigError

    with pytest.raises(ConfigError, match="camera_height_cm must be the lens's height over the table"):
        load_settings(env={}, overrides={"vision": {"camera_height_cm": height}})


def test_camera_position_needs_the_image_size():
    from companion.vision.calibrate import camera_position

    assert camera_position(manual([[100, 50], [700, 60], [690, 650], [110, 640]], (80, 80))) is None


@pytest.mark.parametrize("seed,level", [(6, "hard"), (3, "easy"), (8, "medium")])
def test_the_quick_marker_search_finds_enough_of_the_same_corners(seed, level):
    """The fast search may stop at three markers (enough for the homography), but every
    marker it reports must sit where the truth (and the thorough search, where it found it too) puts it."""
    from companion.vision.calibrate import _detect, find_markers

    image, truth = render(random_scene(seed, level))
    grey = image.mean(axis=2).astype(np.uint8)
    quick, thorough = find_markers(image), _detect(grey, "thorough")
    assert len(quick) >= 3
    for mid in quick:
        assert np.abs(quick[mid] - np.array(truth["markers"][mid])).max() < 2.5
        if mid in thorough:
            assert np.abs(quick[mid] - thorough[mid]).max() < 1.0


@pytest.mark.parametrize("corners", [[[0, 0], [1, 0]], [[0, 0], [1, 0], [1, 1], [0]]])
def test_manual_corners_in_the_settings_must_be_four_points(corners):
    from companion.config import load_settings
    from companion.errors import ConfigError

    with pytest.raises(ConfigError, match="manual_corners must be the table's four corners"):
        load_settings(env={}, overrides={"vision": {"manual_corners": corners}})
