"""The lens's radial distortion, found from the corner markers, and the views taken through it."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision import markers_spec
from companion.vision.bench import score
from companion.vision.calibrate import from_markers
from companion.vision.lens import Lens, fit, view_maps
from companion.vision.render.draw import make_view, render
from companion.vision.render.scenes import random_scene, scene_variant
from companion.vision.scene import SceneSettings, analyse

SIZE = (1280, 720)
#: table points under and inside the walls (cm), where a homography fitted at the corners is worst
INNER = np.array([(x, y) for x in np.linspace(15, 65, 11) for y in np.linspace(15, 65, 11)])


@pytest.mark.parametrize("k", [-0.4, -0.1, 0.15])
def test_undistort_undoes_distort(k):
    """Everywhere the lens shows (a strong barrel term leaves the picture's corners beyond `reach`)."""
    lens = Lens(k, SIZE)
    g = np.array([(x, y) for x in np.linspace(0, 1280, 17) for y in np.linspace(0, 720, 9)])
    g = g[np.hypot(*(g - lens.centre).T) < 0.99 * lens.reach]
    assert len(g) > 50
    assert np.abs(lens.distort(lens.undistort(g)) - g).max() < 1e-6


def _table_error(cal, scene) -> float:
    """The farthest a table point inside the walls lands from where `cal` puts it (cm)."""
    px = make_view(scene.camera, cal.table_size).project(np.c_[INNER, np.zeros(len(INNER))])
    return float(np.linalg.norm(cal.to_table(px) - INNER, axis=1).max())


def _without_lens(cal):
    src = np.concatenate([np.array(cal.markers[i]) for i in sorted(cal.markers)])
    dst = np.concatenate([np.array(markers_spec.marker_corners()[i]) for i in sorted(cal.markers)])
    return replace(cal, lens=None, H=cv2.findHomography(src, dst, 0)[0])


def test_a_barrel_lens_is_found_and_straightens_the_table():
    """Hard 170100: a strong barrel lens. The homography of the corner markers alone puts points
    under the walls up to 2.3 cm off, and a whole wall fell outside the band it was looked for in;
    with the lens term found from the markers' corners, under half a centimetre."""
    sc = random_scene(170100, "hard")
    cal = from_markers(render(sc)[0])
    assert cal.lens is not None and cal.lens.k < -0.2
    assert _table_error(_without_lens(cal), sc) > 2.0
    assert _table_error(cal, sc) < 0.5


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_pinhole_camera_gets_no_lens_term(seed):
    """Easy scenes have no distortion: the markers' corners' own noise is not taken for a lens."""
    sc = random_scene(seed, "easy")
    assert sc.camera.k1 == 0
    cal = from_markers(render(sc)[0])
    assert cal.lens is None
    assert _table_error(cal, sc) < 0.15


def test_fit_finds_k_from_sixteen_corners():
    """Marker corners through a known homography and lens, with 0.2 px of noise: k comes back."""
    lens = Lens(-0.25, SIZE)
    H = np.array([[9.0, 0.4, 280.0], [-0.3, 8.8, 10.0], [0.0002, -0.0001, 1.0]])  # table cm -> pinhole px
    dst = np.concatenate([np.array(c) for c in markers_spec.marker_corners().values()])
    px = lens.distort(cv2.perspectiveTransform(dst.reshape(-1, 1, 2), H).reshape(-1, 2))
    px += np.random.default_rng(1).normal(0, 0.2, px.shape)
    found, H_fit, e0, e1 = fit(px, dst, SIZE)
    assert found is not None and abs(found.k - lens.k) < 0.03
    assert e0 > 1.0 and e1 < 0.4


def test_a_view_through_the_lens_is_the_pixel_by_pixel_one():
    """`Calibration.view` interpolates its map between nodes every `lens.MAP_STEP` pixels: each
    view pixel still samples the picture within a twentieth of a pixel of where the calibration
    puts it, and the view matches the one mapped pixel by pixel."""
    sc = random_scene(170100, "hard")
    image = render(sc)[0]
    cal = from_markers(image)
    k, size = 6.0, (480, 360)
    gx, gy = np.meshgrid(np.arange(size[0]), np.arange(size[1]))
    exact = cal.to_image(np.stack([gx, gy], -1).reshape(-1, 2) / k).reshape(size[1], size[0], 2)
    m1, m2 = view_maps(cal.lens, cal.H_inv @ np.linalg.inv(np.diag([k, k, 1.0])), size)
    fx, fy = cv2.convertMaps(m1, m2, cv2.CV_32FC1)
    assert np.abs(np.stack([fx, fy], -1) - exact).max() < 0.05
    view = cal.view(image, np.diag([k, k, 1.0]), size)
    direct = cv2.remap(image, *exact.astype(np.float32).transpose(2, 0, 1), cv2.INTER_LINEAR)
    assert np.abs(view.astype(int) - direct.astype(int)).mean() < 0.2


def test_the_table_through_a_strong_barrel_lens_is_read_whole():
    """Hard 170100: without the lens term one wall's tops lay 2.6 cm outside the band they are
    looked for in and the wall was lost (so were the live tiles and the loose tiles), and a flat 2
    by a wall was read cocked. Through the lens every measure of the bench is right."""
    sc = random_scene(170100, "hard")
    image, pixels = render(sc)
    truth = {**sc.truth, "dice": pixels["dice"], "hidden": pixels["hidden"]}
    obs = analyse(image, SceneSettings(scene_variant(truth["variant"]), truth["first_east_side"], truth["dealer"]),
                  with_tiles=False).to_json()
    counts = score(obs, truth)
    assert {"walls", "break", "live_tiles", "dice", "east_marker", "wind"} <= set(counts)
    assert {m: ok for m, (ok, n) in counts.items() if ok != n} == {}
