"""How the scene benchmark counts a reading right or wrong."""

from companion.vision.bench import score, score_resting_hand


def truth(**kw):
    t = {"walls": {s: [1, 2] for s in "ESWN"}, "break": ["E", 3], "live_tiles": 100, "loose": [],
         "dice": [], "east_marker": "E", "wind_shown": "S", "hidden": {"east_marker": 0.0, "wind": 0.0}}
    t.update(kw)
    return t


def obs(**kw):
    o = {"walls": {"seats": {s: {"standing": [1, 2]} for s in "ESWN"}, "break": ["E", 3], "live_tiles": 100,
                   "loose": []}, "dice": [], "east_marker": "E", "wind_shown": "S"}
    o.update(kw)
    return o


def test_a_right_reading_scores_every_measure():
    s = score(obs(), truth())
    assert s["walls"] == (4, 4) and s["break"] == (1, 1) and s["live_tiles"] == (1, 1)
    assert s["east_marker"] == (1, 1) and s["wind"] == (1, 1) and s["no_false_dice"] == (1, 1)


def test_a_marker_under_a_hand_may_be_not_seen_but_not_misread():
    hidden = truth(hidden={"east_marker": 0.7, "wind": 0.0})
    assert score(obs(east_marker=None), hidden)["east_marker_hidden"] == (1, 1)
    assert score(obs(east_marker="S"), hidden)["east_marker_hidden"] == (0, 1)
    assert "east_marker" not in score(obs(), hidden)
    assert score(obs(east_marker=None), truth())["east_marker"] == (0, 1)


def test_a_split_at_a_corner_is_counted_apart():
    t = truth(break_at_corner=True)
    o = obs()
    o["walls"]["break"] = None
    s = score(o, t)
    assert s["corner_split"] == (1, 1) and "break" not in s
    o["walls"]["break"] = ["S", 4]
    assert score(o, t)["corner_split"] == (0, 1)


def test_under_a_resting_hand_a_break_not_read_is_no_mistake_but_a_wrong_one_is():
    def walls(brk):
        return {"walls": {"break": brk}}

    assert score_resting_hand(walls(["E", 3]), truth()) == {"hand_break_not_wrong": (1, 1), "hand_break_read": (1, 1)}
    assert score_resting_hand(walls(None), truth()) == {"hand_break_not_wrong": (1, 1), "hand_break_read": (0, 1)}
    assert score_resting_hand(walls(["E", 5]), truth()) == {"hand_break_not_wrong": (0, 1), "hand_break_read": (0, 1)}
    assert score_resting_hand(walls(["N", 7]), truth(**{"break": None})) == {"hand_no_false_break": (0, 1)}
    assert score_resting_hand(walls(None), truth(break_at_corner=True)) == {"hand_no_false_break": (1, 1)}


def test_live_tiles_count_only_when_the_break_is_right():
    o = obs()
    o["walls"]["break"], o["walls"]["live_tiles"] = ["E", 4], 90
    s = score(o, truth())
    assert s["break"] == (0, 1) and "live_tiles" not in s


def die(face, x, cocked=False):
    return {"face": face, "box": [x, 10, x + 15, 25], "cocked": cocked}


def test_a_flat_die_flagged_cocked_misses_the_strict_dice_measure_but_not_the_faces():
    t = truth(dice=[die(3, 100), die(5, 200, cocked=True)])
    right = score(obs(dice=[die(5, 198, cocked=True), die(3, 101)]), t)  # found in another order
    assert right["dice"] == right["dice_read"] == right["no_needless_rethrow"] == right["cocked_flagged"] == (1, 1)
    needless = score(obs(dice=[die(3, 100, cocked=True), die(2, 200, cocked=True)]), t)
    assert needless["dice"] == (0, 1) and needless["dice_read"] == (1, 1) and needless["no_needless_rethrow"] == (0, 1)


def test_a_wrong_face_a_cocked_die_let_through_or_a_die_missed_is_a_dice_read_mistake():
    t = truth(dice=[die(3, 100), die(5, 200, cocked=True)])
    for found in ([die(4, 100), die(5, 200, cocked=True)],   # a wrong face
                  [die(3, 100), die(5, 200)],                # the cocked die not flagged
                  [die(3, 100)],                             # a die missed
                  [die(3, 100), die(5, 200, cocked=True), die(1, 300)]):  # a die where there is none
        s = score(obs(dice=found), t)
        assert s["dice"] == (0, 1) and s["dice_read"] == (0, 1), found
    assert "no_needless_rethrow" not in score(obs(dice=[die(2, 0, cocked=True)]), truth(dice=[die(2, 0, cocked=True)]))


def test_face_up_tiles_count_a_box_once_and_a_name_only_on_the_right_tile():
    from companion.vision.bench import score_tiles

    true = [{"tile": "1p", "box": [0, 0, 20, 30]}, {"tile": "7z", "box": [40, 0, 60, 30]}]
    found = [{"tile": "1p", "box": [1, 1, 21, 31], "score": 0.9},   # right
             {"tile": "1p", "box": [0, 0, 19, 29], "score": 0.5},   # a second box on the same tile
             {"tile": "5z", "box": [40, 0, 60, 30], "score": 0.8},  # found, misnamed
             {"tile": "2s", "box": [100, 0, 120, 30], "score": 0.7}]  # on nothing
    s = score_tiles(found, true)
    assert s == {"tiles_found": (2, 2), "tiles_boxes": (2, 4), "tiles_named": (1, 2)}
    assert score_tiles([], true)["tiles_found"] == (0, 2)


def test_teach_needs_tiles_and_the_tile_art(monkeypatch):
    from click.testing import CliRunner

    from companion.cli import main
    from companion.vision.render import tiles as tile_art

    res = CliRunner().invoke(main, ["bench", "scenes", "--count", "3", "--teach"])
    assert res.exit_code == 2 and "only with --tiles" in res.output
    monkeypatch.setattr(tile_art, "_tile_art", lambda: None)
    res = CliRunner().invoke(main, ["bench", "scenes", "--count", "3", "--tiles", "--teach"])
    assert res.exit_code == 1 and "render extra" in res.output


def test_resting_hands_can_be_drawn_in_the_felts_colour():
    """`--hand-colour felt` measures the known limit: a hand the wall reader cannot tell from the felt."""
    import numpy as np

    from companion.vision.render.draw import FELT, render
    from companion.vision.render.scenes import random_scene, resting_hand

    sc = random_scene(4, "easy")
    felt = FELT[sc.look.felt % len(FELT)]
    bare, skin, felted = (render(s)[0].astype(int) for s in (sc, resting_hand(sc, 4), resting_hand(sc, 4, felt)))
    hand = np.abs(skin - bare).sum(2) > 120  # the hand (and the darkest of its shadow)
    assert hand.sum() > 500
    off_felt = lambda img: np.abs(img[hand] - np.array(felt)).sum(1).mean()  # noqa: E731
    assert off_felt(felted) < 0.5 * off_felt(skin)

    from click.testing import CliRunner

    from companion.cli import main

    res = CliRunner().invoke(main, ["bench", "scenes", "--count", "3", "--levels", "easy", "--resting-hands",
                                    "--hand-colour", "felt", "--json"])
    assert res.exit_code == 0, res.output
    assert "hand_break_not_wrong" in res.output or "hand_no_false_break" in res.output


def test_the_scene_bench_can_give_each_camera_height_as_measured(monkeypatch):
    """`bench scenes --camera-height` reads each scene as with `[vision] camera_height_cm`: its
    camera's drawn height to the centimetre, as a tape measure would give it."""
    import json

    from click.testing import CliRunner

    from companion.cli import main
    from companion.vision import scene
    from companion.vision.render.draw import make_view
    from companion.vision.render.scenes import random_scene

    given = []
    analyse = scene.analyse

    def spy(image, settings, *a, **kw):
        given.append(settings.camera_height_cm)
        return analyse(image, settings, *a, **kw)

    monkeypatch.setattr(scene, "analyse", spy)
    res = CliRunner().invoke(main, ["bench", "scenes", "--count", "3", "--seed", "40", "--levels", "easy",
                                    "--camera-height", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["camera_height"] == "measured"
    drawn = [round(abs(make_view(sc.camera, sc.table_size).centre[2])) for sc in (random_scene(40 + i, "easy") for i in range(3))]
    assert given[-3:] == drawn  # (the first: the warm-up frame before the clock starts)


def test_only_real_mistakes_count_as_a_scene_read_wrong():
    from companion.vision.bench import missed

    # under a resting hand, a break not read is no mistake (`hand_break_read` only says how often)
    assert missed(score_resting_hand(obs(walls={"seats": {}, "break": None}), truth())) == []
    assert missed(score(obs(wind_shown="N"), truth())) == ["wind"]
    assert missed(score(obs(), truth())) == []


def test_the_scene_bench_keeps_each_scene_read_wrong_to_be_looked_at(monkeypatch, tmp_path):
    """`--misses DIR`: the frame and a JSON of the measures missed, the truth and the reading,
    for each scene read wrong (here the wind disc misread on purpose), listed at the end."""
    import json

    import cv2
    from click.testing import CliRunner

    from companion.cli import main
    from companion.vision import scene

    analyse = scene.analyse
    seen = []

    def misread_the_wind(image, settings, *a, **kw):
        got = analyse(image, settings, *a, **kw)
        seen.append(got.wind_shown)
        if len(seen) == 3:  # the third scene (the first call is the warm-up frame)
            got.wind_shown = {"E": "S", "S": "W", "W": "N", "N": "E"}.get(got.wind_shown, "E")
        return got

    monkeypatch.setattr(scene, "analyse", misread_the_wind)
    res = CliRunner().invoke(main, ["bench", "scenes", "--count", "3", "--seed", "40", "--levels", "easy",
                                    "--misses", str(tmp_path / "wrong")])
    assert res.exit_code == 0, res.output
    assert "scenes read wrong: 1" in res.output and "easy-41: wind disc" in res.output
    kept = json.loads((tmp_path / "wrong" / "easy-41.json").read_text())
    assert kept["measures"] == ["wind"]
    assert kept["read"]["wind_shown"] != kept["truth"]["wind_shown"]
    assert cv2.imread(str(tmp_path / "wrong" / "easy-41.png")).shape == (720, 1280, 3)
    assert sorted(p.name for p in (tmp_path / "wrong").iterdir())[-2:] == ["easy-41.json", "easy-41.png"]

    # the command kept with it reads the frame again as the bench did (its variant, seats and dealer)
    monkeypatch.undo()
    assert kept["observe"][:2] == ["companion", "observe"]
    again = CliRunner().invoke(main, kept["observe"][1:])
    assert again.exit_code == 0, again.output
    [read] = json.loads(again.output)
    assert read["walls"]["break"] == kept["read"]["walls"]["break"]
    assert read["walls"]["seats"] == kept["read"]["walls"]["seats"]
    assert read["dice"] == kept["read"]["dice"] and read["east_marker"] == kept["read"]["east_marker"]
