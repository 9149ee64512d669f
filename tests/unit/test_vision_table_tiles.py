"""Face-up tiles on a calibrated table are read on the top-down view, in windows at the
detector's scale, and reported in camera pixels (issue 7: `tiles` of `companion observe`)."""

import numpy as np
import pytest

from companion.vision.bench import score_tiles
from companion.vision.render import tiles as tile_art
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, scene_variant
from companion.vision.scene import SceneSettings, analyse, recognise_tiles


@pytest.fixture(params=["tile art", "stand-in"])
def look(request, monkeypatch):
    """Both looks of the simulated camera's discards: the `render` extra's art, or the stand-in."""
    if request.param == "stand-in":
        monkeypatch.setattr(tile_art, "_tile_art", lambda: None)
    elif not tile_art.art_installed():
        pytest.skip("the render extra's tile art is not installed")
    return request.param


def test_discards_on_a_table_frame_are_found_in_camera_pixels(look):
    # the scene with the most discards among the first dealt easy scenes: 21 tiles about 25 px
    # long in a 1280x720 frame; found 19 of 20 boxes (tile art) and 14 of 14 (stand-in) when
    # this was written
    sc = random_scene(6, "easy", stage="dealt")
    image, pixels = render(sc)
    t = sc.truth
    obs = analyse(image, SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])).to_json()
    assert obs["calibrated"] and len(pixels["tiles"]) == 21
    got = score_tiles(obs["tiles"], pixels["tiles"])
    found, true = got["tiles_found"]
    hits, boxes = got["tiles_boxes"]
    assert found >= 0.55 * true, got
    assert hits >= 0.85 * boxes, got  # no half tiles, no dice or disc taken for tiles
    # the whole frame squashed into the detector's input, as before, leaves tiles a few pixels long
    squashed, _ = recognise_tiles(image)
    assert score_tiles(squashed, pixels["tiles"])["tiles_found"][0] < 0.3 * found


def test_tiles_can_be_left_out():
    sc = random_scene(6, "easy", stage="dealt")
    image, _ = render(sc)
    t = sc.truth
    obs = analyse(image, SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"]), with_tiles=False).to_json()
    assert obs["tiles"] == [] and obs["tiles_note"] == "not asked"


def _no_tiles_scene(seed: int):
    """A rendered easy scene with built walls and no face-up tile: (settings, analysis, its
    calibration, what the windows find when nothing is excluded)."""
    from companion.vision.calibrate import from_markers
    from companion.vision.scene import recognise_table_tiles

    sc = random_scene(seed, "easy")
    image, pixels = render(sc)
    t = sc.truth
    settings = SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])
    obs = analyse(image, settings).to_json()
    assert pixels["tiles"] == []
    cal = from_markers(image)
    alone, _ = recognise_table_tiles(image, cal, settings.tile)
    return settings, obs, cal, alone


def test_dice_and_the_wind_disc_are_not_taken_for_tiles():
    # two dice and the wind disc: read alone, the detector takes the dice and the disc (ivory
    # with black marks) for tiles; the analysis knows better
    _, obs, _, alone = _no_tiles_scene(3)
    assert len(obs["dice"]) == 2 and "wind_at" in obs
    assert obs["tiles"] == []
    assert alone  # what the exclusion removed


def test_the_walls_tile_backs_are_not_taken_for_tiles():
    from companion.vision.geometry import TableLayout
    from companion.vision.observation import Observation
    from companion.vision.scene import _not_tiles

    # two dice, the wind disc and the East marker: read alone, the windows take a dozen things
    # for tiles, most of them the backs of standing wall stacks
    settings, obs, cal, alone = _no_tiles_scene(5034)
    assert obs["tiles"] == []
    layout = TableLayout(cal.table_size, settings.variant.stacks_per_wall, settings.tile)
    stacks = [layout.stack_centre(seat["side"], k) for seat in obs["walls"]["seats"].values() for k in seat["standing"]]
    centres = cal.to_table([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for b in (a["box"] for a in alone)])
    on_walls = [c for c in centres if min(np.hypot(*(c - s)) for s in stacks) < settings.tile.depth / 2]
    assert len(on_walls) >= 5
    # two circles per standing stack (where it stands, and where its top is seen: farther from
    # the camera's foot), then the dice, the wind disc and the East marker
    circles = _not_tiles(Observation.from_json(obs), cal, settings)
    assert len(circles) == 2 * len(stacks) + 4
    from companion.vision.calibrate import camera_position

    fx, fy, _ = camera_position(cal)
    for (x, y, _), (tx, ty, _) in zip(circles[0:2 * len(stacks):2], circles[1:2 * len(stacks):2]):
        assert np.hypot(tx - fx, ty - fy) > np.hypot(x - fx, y - fy)


def test_only_boxes_of_a_tiles_size_are_kept_and_mapped_to_camera_pixels(monkeypatch):
    from companion.vision import scene
    from companion.vision.calibrate import manual
    from companion.vision.geometry import TileSize
    from companion.vision.tiles.recognizer import Tile

    k = scene.TILES_PX_PER_CM

    def at(x_cm, y_cm, w_cm, h_cm):  # a box on the top-down view, from table centimetres
        return (x_cm * k, y_cm * k, (x_cm + w_cm) * k, (y_cm + h_cm) * k)

    class Recognizer:
        def recognize(self, view, tile_px):
            assert tile_px == 2.9 * k and view.shape[:2] == (int(80 * k), int(80 * k))
            return [Tile("1p", at(10, 10, 2.2, 2.9), 0.9),   # a tile face
                    Tile("2p", at(30, 30, 2.9, 2.2), 0.8),   # one lying sideways
                    Tile("3p", at(50, 50, 2.2, 1.4), 0.7),   # half a tile
                    Tile("4p", at(60, 20, 6.0, 5.0), 0.6),   # something larger
                    Tile("5p", at(40, 60, 2.2, 2.9), 0.9)]   # on a die

    monkeypatch.setattr(scene, "tile_recognizer", lambda: Recognizer())
    cal = manual([[280, 0], [1000, 0], [1000, 720], [280, 720]])  # 80 cm across 720 px: 9 px/cm
    image = np.zeros((720, 1280, 3), np.uint8)
    tiles, note = scene.recognise_table_tiles(image, cal, TileSize(), not_tiles=[(41.1, 61.4, 1.8)])
    assert note is None and [t["tile"] for t in tiles] == ["1p", "2p"]
    assert tiles[0]["box"] == pytest.approx([280 + 90, 90, 280 + 12.2 * 9, 12.9 * 9], abs=1.0)
