"""`companion observe` as a user runs it: several images, JSON, a corrupt file, a plain photo."""

import json
import re
import subprocess
import sys

import cv2
import pytest

from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, resting_hand


def run(*args):
    return subprocess.run([sys.executable, "-m", "companion", "observe", *args], capture_output=True, text=True,
                          timeout=120)


def test_observe_reads_a_table_and_survives_a_corrupt_file(tmp_path):
    sc = random_scene(2, "easy", stage="broken", variant_name="classical")
    image, _ = render(sc)
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), image)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), image[300:500, 500:800])  # no markers in it
    t = sc.truth
    r = run(str(good), str(bad), str(plain), "--json", "--variant", "classical",
            "--first-east-side", t["first_east_side"], "--dealer", str(t["dealer"]))
    assert r.returncode == 1 and "broken.jpg" in r.stderr and "Traceback" not in r.stderr
    table, corrupt, photo = json.loads(r.stdout)
    assert table["calibrated"] is True and table["ms"] > 0
    assert {s: w["standing"] for s, w in table["walls"]["seats"].items()} == t["walls"]
    assert table["walls"]["break"] == t["break"]
    assert table["east_marker"] == t["east_marker"] and table["wind_shown"] == t["wind_shown"]
    assert isinstance(table["tiles"], list)
    assert "error" in corrupt
    assert photo["calibrated"] is False and photo["walls"] is None


def test_observe_prints_a_summary(tmp_path):
    image, _ = render(random_scene(1, "easy", stage="built", variant_name="riichi"))
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), image)
    r = run(str(path), "--variant", "riichi")
    assert r.returncode == 0, r.stderr
    assert "calibrated" in r.stdout and "break: not broken" in r.stdout and "17 stacks standing" in r.stdout
    assert re.search(r"East marker: (dealer button|wind box) at \w+'s seat \(pixel \d+, \d+\); "
                     r"wind disc: shows South \(pixel \d+, \d+\)", r.stdout)
    assert "walls:" not in r.stdout  # the walls are as long as the variant builds them


def test_observe_says_which_stacks_lie_under_a_hand(tmp_path):
    image, _ = render(resting_hand(random_scene(1, "easy", stage="built", variant_name="riichi"), 1))
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), image)
    r = run(str(path), "--variant", "riichi")
    assert r.returncode == 0, r.stderr
    assert "gaps: 6-8" in r.stdout and "under a hand: 5, 6, 7, 8, 9" in r.stdout and "break: not read" in r.stdout
    assert "walls: something lies over 5 stacks of the walls (a hand?)" in r.stdout


@pytest.mark.parametrize("built,said", [
    # 19 stacks a side (a set with jokers) read as classical (18): one wall too long is enough
    ("classical-19", "a wall looks 19 stacks long"),
    # a riichi table (17 a side) read as classical: four whole walls, all one stack short
    ("riichi", "the walls look 17 stacks long"),
])
def test_observe_says_when_the_walls_are_not_as_long_as_the_variant_builds(tmp_path, built, said):
    image, _ = render(random_scene(1, "easy", stage="built", variant_name=built))
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), image)
    r = run(str(path), "--variant", "classical")
    assert r.returncode == 0, r.stderr
    assert f"walls: {said}, but the variant classical builds 18: is the variant right?" in r.stdout
    obs = json.loads(run(str(path), "--variant", "classical", "--json").stdout)[0]
    assert obs["walls"]["stacks_seen"] == int(said.split()[3])


def test_the_summary_names_half_stacks_and_where_the_marker_and_disc_are():
    from companion.cli.observe_cmd import _summary

    seat = {"side": "bottom", "standing": [1, 2, 3], "count": 3, "gaps": [[4, 18]], "splits": [], "half": [3]}
    obs = {"image": "t.png", "ms": 12.0, "calibrated": True, "dice": [], "tiles": [],
           "walls": {"seats": {"E": seat}, "break": ["E", 4], "loose": [], "live_tiles": 5},
           "east_marker": "S", "east_marker_at": {"side": "right", "kind": "button", "px": [640.4, 610.0]},
           "wind_shown": None}
    text = _summary(obs)
    assert "East  wall (bottom): 3 stacks standing; gaps: 4-18; half stacks: 3" in text
    assert "East marker: dealer button at South's seat (pixel 640, 610); wind disc: not seen" in text


def test_the_summary_says_which_dice_faces_are_unsure():
    from companion.cli.observe_cmd import _summary

    obs = {"image": "t.png", "ms": 12.0, "calibrated": False, "walls": None, "tiles": [],
           "dice": [{"face": 3, "cocked": False, "face_p": 0.97}, {"face": 5, "cocked": False, "face_p": 0.41},
                    {"face": 2, "cocked": True, "face_p": 0.3}, {"face": 6, "cocked": False}]}
    assert "  dice: 3, 5 (unsure: 0.41), 2 (cocked), 6\n" in _summary(obs)


def test_observe_names_the_face_up_tiles_in_its_summary(tmp_path):
    sc = random_scene(6, "easy", stage="dealt")
    image, _ = render(sc)
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), image)
    t = sc.truth
    r = run(str(path), "--variant", t["variant"], "--first-east-side", t["first_east_side"], "--dealer", str(t["dealer"]))
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("tiles:"))
    count, names = line.split(":", 1)[1].split(":", 1)
    assert int(count) >= 10 and len(names.split()) == int(count)


def test_a_folder_an_oversized_picture_and_stdin_are_each_reported_and_the_rest_still_read(tmp_path):
    import io

    from PIL import Image

    image, _ = render(random_scene(2, "easy", stage="broken", variant_name="classical"))
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), image)
    folder = tmp_path / "photos.jpg"
    folder.mkdir()
    huge = tmp_path / "huge.png"  # 9000 x 8000 one-bit pixels: a small file, 72 megapixels
    buf = io.BytesIO()
    Image.new("1", (9000, 8000)).save(buf, "PNG")
    huge.write_bytes(buf.getvalue())
    r = run(str(folder), str(huge), "-", str(good), "--json", "--variant", "classical")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    f, h, dash, table = json.loads(r.stdout)
    assert "is a folder" in f["error"]
    assert "too large to read (72 megapixels; at most 64 megapixels)" in h["error"]
    assert "standard input" in dash["error"]
    assert table["calibrated"] is True  # the good picture after them is read as ever


def test_markers_that_do_not_lie_at_a_tables_corners_do_not_calibrate(tmp_path):
    import numpy as np

    from companion.vision import markers_spec
    from companion.vision.calibrate import read_markers

    page = np.full((400, 1400, 3), 255, np.uint8)  # the four markers side by side, as on a test print
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, markers_spec.DICTIONARY))
    for n, i in enumerate(sorted(markers_spec.CORNER_IDS.values())):
        page[100:300, 100 + 320 * n:300 + 320 * n] = cv2.cvtColor(cv2.aruco.generateImageMarker(dictionary, i, 200),
                                                                   cv2.COLOR_GRAY2BGR)
    cal, why = read_markers(page)
    assert cal is None and "do not lie at a table's corners" in why
    path = tmp_path / "sheet.png"
    cv2.imwrite(str(path), page)
    r = run(str(path))
    assert r.returncode == 0 and "not calibrated (the markers do not lie at a table's corners" in r.stdout
    assert "stacks standing" not in r.stdout  # no walls made up from a blank page


def test_wall_backs_seen_at_a_slant_are_not_face_up_tiles():
    # the left wall of this scene is far from the camera's foot: parallax moves its tops inwards
    # by more than half a tile's depth, where the stacks' own circles do not reach
    from companion.vision.render.scenes import scene_variant
    from companion.vision.scene import SceneSettings, analyse

    sc = random_scene(2, "medium", "broken")
    image, _ = render(sc)
    t = sc.truth
    obs = analyse(image, SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])).to_json()
    assert {s: w["standing"] for s, w in obs["walls"]["seats"].items()} == t["walls"]
    assert obs["tiles"] == []  # built and broken: nothing lies face up


def test_a_grey_picture_gives_no_made_up_walls_and_a_photo_no_tiles_on_its_dice(tmp_path):
    from pathlib import Path

    from companion.vision.render.scenes import scene_variant
    from companion.vision.scene import SceneSettings, analyse

    sc = random_scene(2, "easy", stage="broken", variant_name="classical")
    image, _ = render(sc)
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    t = sc.truth
    obs = analyse(grey, SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])).to_json()
    assert obs["calibrated"] is True and obs["walls"] is None and obs["east_marker"] is None
    assert "grey picture" in obs["note"]

    photo = cv2.imread(str(Path(__file__).parents[2] / "models" / "dice" / "fixtures" / "IMG_20191208_112340.jpg"))
    obs = analyse(photo, SceneSettings(scene_variant("classical"), "bottom", 0)).to_json()
    assert obs["calibrated"] is False and obs["calibration_note"] == "no markers" and obs["dice"]
    for tile in obs["tiles"]:
        x, y = (tile["box"][0] + tile["box"][2]) / 2, (tile["box"][1] + tile["box"][3]) / 2
        assert not any(d["box"][0] <= x <= d["box"][2] and d["box"][1] <= y <= d["box"][3] for d in obs["dice"])


def test_a_photo_of_tiles_gives_its_tiles_not_dice_and_a_photo_of_dice_keeps_them():
    """Without markers a circles tile's dots read as a die's pips: where a die and a tile overlap,
    the surer reading stands (real_3: 35 dice read on 36 tiles before; a dice photo loses none)."""
    from pathlib import Path

    from companion.vision.dice import find_dice
    from companion.vision.render.scenes import scene_variant
    from companion.vision.scene import SceneSettings, analyse

    root = Path(__file__).parents[2]
    settings = SceneSettings(scene_variant("classical"), "bottom", 0)
    tiles = cv2.imread(str(root / "tests" / "fixtures" / "tiles" / "real" / "images" / "real_3.jpg"))
    assert len(find_dice(tiles)) > 20  # what the dice reader alone makes of it
    obs = analyse(tiles, settings).to_json()
    assert obs["dice"] == [] and len(obs["tiles"]) >= 30
    for name in ("IMG_20191208_111328.jpg", "IMG_20191208_112340.jpg", "IMG_20191208_112920.jpg"):
        dice = cv2.imread(str(root / "models" / "dice" / "fixtures" / name))
        assert len(analyse(dice, settings).to_json()["dice"]) == len(find_dice(dice)) >= 10


def test_tile_boxes_stay_inside_a_cut_off_picture():
    from companion.vision.render.scenes import scene_variant
    from companion.vision.scene import SceneSettings, analyse

    sc = random_scene(4, "easy", "dealt")
    image, _ = render(sc)
    cut = image[:600]  # the bottom wall's discards run off the picture
    t = sc.truth
    obs = analyse(cut, SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])).to_json()
    assert obs["tiles"]
    for tile in obs["tiles"]:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 <= x2 <= 1280 and 0 <= y1 <= y2 <= 600
