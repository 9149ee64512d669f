"""The live cross-checks on rendered frames: wrong break, cocked die, hands over the table."""

import dataclasses

import msgspec
import pytest

from companion.config import load_settings
from companion.game.events import DiceThrown, SeatsChosen, WallBroken
from companion.hardware.camera.base import Frame
from companion.hardware.camera.sim import scene_for_state
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.rules.wall import Stack
from companion.storage import EventStore
from companion.table import Table
from companion.vision.render.draw import FELT, render
from companion.vision.render.scene import Hand
from companion.vision.render.scenes import resting_hand
from companion.vision.watch import StillScene, TableWatcher


@pytest.fixture
def table(tmp_path):
    store = EventStore(tmp_path / "games.sqlite3")
    t = Table(store, Hub())
    t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    yield t
    store.close()


@pytest.fixture
def watcher(table):
    vs = msgspec.structs.replace(load_settings(env={}).vision, still_seconds=0.5)
    w = TableWatcher(table, table.hub, None, vs)
    heard = []
    table.hub.subscribe(lambda m: heard.append(m), {"warning", "observation"})
    w.heard = heard
    return w


def still_frames(watcher, image, start=0.0, n=4, dt=0.25):
    """Feed the same picture for long enough to count as a still scene; returns the observation."""
    obs = None
    for i in range(n):
        got = watcher.process(Frame(image=image, seq=i, t=start + i * dt))
        obs = got or obs
    return obs


def throw_into_view(watcher, table, dice_shown, start=0.0, before=()):
    """A real throw as the camera sees it: the square as it was (`before` dice) held still, a
    hand sweeping over the table, then the new dice lying still. Returns the last observation."""
    first, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=list(before)))
    still_frames(watcher, first, start=start)
    for i in range(3):
        hand = Hand(x=30 + 8 * i, y=40, angle=180, height=10)
        image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=list(before), hands=[hand]))
        watcher.process(Frame(image=image, seq=100 + i, t=start + 1.0 + 0.25 * i))
    after, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=list(dice_shown)))
    return still_frames(watcher, after, start=start + 2.0)


def camera_throws(table):
    return [r.event for r in table.records() if isinstance(r.event, DiceThrown) and r.event.source == "camera"]


def test_a_wrong_break_warns_with_the_expected_position(table, watcher):
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    brk = table.state.brk  # R17/R19: 3+4 → West breaks, 7+11 = 18 stacks: West's 18th
    assert (brk.wall, brk.stack) == ("W", 18)
    wrong = Stack("W", 16)
    image, _ = render(scene_for_state(table.state, watcher.settings, broken_at=wrong, dice_shown=[]))
    obs = still_frames(watcher, image)
    assert obs["walls"]["break"] == ["W", 16]
    warnings = [m.data for m in watcher.heard if m.topic == "warning" and m.data["code"] == "wrong_break"]
    assert len(warnings) == 1
    assert warnings[0]["expected"] == ["W", 18] and warnings[0]["observed"] == ["W", 16]
    assert warnings[0]["message"] == ("The break should be at West's 18th stack from the right end — "
                                      "you broke at the 16th stack from the right end")
    assert table.state.break_check()["ok"] is False
    camera_breaks = [r for r in table.records() if isinstance(r.event, WallBroken)]
    assert [(r.event.seat, r.event.stack, r.event.source) for r in camera_breaks] == [("W", 16, "camera")]
    # the same still scene again: nothing new is recorded or said
    still_frames(watcher, image, start=10.0)
    assert len([r for r in table.records() if isinstance(r.event, WallBroken)]) == 1


def whole_walls(scene):
    """The same table with every wall standing whole (not broken yet)."""
    return dataclasses.replace(scene, walls={side: [2] * len(w) for side, w in scene.walls.items()},
                               offsets={side: [0.0] * len(o) for side, o in scene.offsets.items()})


def test_a_break_seen_on_walls_that_then_stand_whole_is_withdrawn(table, watcher):
    """What the camera took for a break (here drawn as one at North's 5th: in play, most often a
    hand resting on a wall that it did not see as a hand) is undone when the walls are next seen
    whole, so the phones stop saying the wall was broken wrong; seen there again, it is recorded
    and said again, and the real break is recorded as ever. A break a player recorded stays."""
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))  # R17/R19: West's 18th
    scene = scene_for_state(table.state, watcher.settings, broken_at=Stack("N", 5), dice_shown=[])
    taken = render(scene)[0]
    still_frames(watcher, taken)
    assert table.state.observed_break == ("N", 5) and table.state.break_check()["ok"] is False
    obs = still_frames(watcher, render(whole_walls(scene))[0], start=10.0)
    assert obs["walls"]["break"] is None
    assert table.state.observed_break is None and table.state.break_check() is None
    still_frames(watcher, taken, start=20.0)  # the same again
    assert table.state.observed_break == ("N", 5)
    assert len([m for m in watcher.heard if m.topic == "warning" and m.data["code"] == "wrong_break"]) == 2
    still_frames(watcher, render(scene_for_state(table.state, watcher.settings, dice_shown=[]))[0], start=30.0)
    assert table.state.observed_break == ("W", 18) and table.state.break_check()["ok"] is True
    # a player says where the wall was broken: the walls seen whole after that undo nothing
    table.record(WallBroken(seat="W", stack=17))
    count = len(table.records())
    hand = Hand(x=40, y=40, angle=180, height=10)  # moving over the table first: a new still scene
    watcher.process(Frame(image=render(whole_walls(dataclasses.replace(scene, hands=[hand])))[0], seq=0, t=39.0))
    assert still_frames(watcher, render(whole_walls(scene))[0], start=40.0)["walls"]["break"] is None
    assert table.state.observed_break == ("W", 17) and len(table.records()) == count


def test_a_wrong_break_is_told_as_a_german_table_counts(tmp_path, watcher):
    """Seed 003 counts the break "von links nach rechts": the warning counts from the left end too."""
    store = EventStore(tmp_path / "german.sqlite3")
    table = Table(store, watcher.hub)
    table.start_game(load_variant("german"), ["Ann", "Bob", "Cat", "Dan"])
    table.record(SeatsChosen(order=[0, 1, 2, 3]))  # seated as entered: the throws below break the wall
    w = TableWatcher(table, table.hub, None, watcher.settings)
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    assert (table.state.brk.wall, table.state.brk.stack) == ("W", 1)  # 18 from the left of 18
    image, _ = render(scene_for_state(table.state, w.settings, broken_at=Stack("W", 2), dice_shown=[]))
    still_frames(w, image)
    said = [m.data for m in watcher.heard if m.topic == "warning" and m.data["code"] == "wrong_break"]
    assert [d["message"] for d in said] == ["The break should be at West's 18th stack from the left end — "
                                            "you broke at the 17th stack from the left end"]
    assert said[0]["expected"] == ["W", 1] and said[0]["observed"] == ["W", 2]  # the position contract: from the right
    store.close()


def test_a_right_break_is_recorded_without_a_warning(table, watcher):
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))
    still_frames(watcher, image)
    assert table.state.break_check()["ok"] is True
    assert not [m for m in watcher.heard if m.topic == "warning" and m.data["code"] in ("wrong_break", "wrong_wall_length")]


def test_walls_built_longer_than_the_games_variant_warn_once(tmp_path, table, watcher):
    """A table that plays with 19 stacks a side (jokers) while the game was started as classical
    (18): every stack number would be off, so the phones are asked whether the variant is right."""
    from companion.vision.render.scenes import scene_variant

    store = EventStore(tmp_path / "nineteen.sqlite3")
    other = Table(store, Hub())
    other.start_game(scene_variant("classical-19"), ["Ann", "Bob", "Cat", "Dan"])
    image, _ = render(scene_for_state(other.state, watcher.settings, dice_shown=[]))  # four whole walls
    store.close()
    obs = still_frames(watcher, image)
    assert obs["walls"]["stacks_seen"] == 19 and "is the variant right?" in obs["walls"]["note"]
    still_frames(watcher, image, start=10.0)
    said = [m.data for m in watcher.heard if m.topic == "warning" and m.data["code"] == "wrong_wall_length"]
    assert len(said) == 1
    assert (said[0]["observed"], said[0]["expected"], said[0]["variant"]) == (19, 18, "Classical Chinese")


def test_walls_built_shorter_than_the_games_variant_warn_once(tmp_path, table, watcher):
    """The other way round: a game started with jokers (19 a side) on a table built with 18. A
    shorter wall may be one with stacks taken, so only four whole walls all as short say so."""
    from companion.vision.render.scenes import scene_variant

    store = EventStore(tmp_path / "jokers.sqlite3")
    game = Table(store, watcher.hub)
    game.start_game(scene_variant("classical-19"), ["Ann", "Bob", "Cat", "Dan"])
    w = TableWatcher(game, game.hub, None, watcher.settings)
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))  # 18 a side, whole
    obs = still_frames(w, image)
    assert obs["walls"]["stacks_seen"] == 18 and "the walls look 18 stacks long" in obs["walls"]["note"]
    said = [m.data for m in watcher.heard if m.topic == "warning" and m.data["code"] == "wrong_wall_length"]
    assert [(d["observed"], d["expected"]) for d in said] == [(18, 19)]
    # read with its own variant, the same table says nothing of its length
    assert "stacks_seen" not in still_frames(watcher, image)["walls"]
    store.close()


def test_a_cocked_die_asks_for_a_rethrow_and_waits(table, watcher):
    obs = throw_into_view(watcher, table, [(4, True), (1, False)])
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[(4, True), (1, False)]))
    assert sorted((d["face"], d["cocked"]) for d in obs["dice"])[0] == (1, False)
    assert any(d["cocked"] for d in obs["dice"])
    rethrow = [m.data for m in watcher.heard if m.topic == "warning" and m.data["code"] == "rethrow"]
    assert len(rethrow) == 1
    thrown = [r.event for r in table.records() if isinstance(r.event, DiceThrown)]
    assert len(thrown) == 1 and thrown[0].source == "camera" and len(thrown[0].cocked) == 1
    assert table.state.expected_throw()["rethrow"] == thrown[0].cocked  # R18: the throw waits
    still_frames(watcher, image, start=10.0)  # still lying there: not recorded twice
    assert len([r for r in table.records() if isinstance(r.event, DiceThrown)]) == 1


def test_dice_read_by_the_camera_are_a_throw(table, watcher):
    throw_into_view(watcher, table, [(3, False), (5, False)])
    assert table.state.throws == [[3, 5]] or table.state.throws == [[5, 3]]
    assert table.state.throw_sources == ["camera"]


def test_dice_lying_there_when_the_camera_first_looks_are_not_a_throw(table, watcher):
    """After a restart the last throw's dice still lie in the square: they were recorded before."""
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)]))
    obs = still_frames(watcher, image)
    assert sorted(d["face"] for d in obs["dice"]) == [3, 5]
    assert camera_throws(table) == [] and table.state.throws == []


def test_dice_a_phone_reported_are_not_recorded_again_even_when_misread(table, watcher):
    """Real dice typed on a phone lie in the square; whatever the camera reads there, the throw
    is already recorded (no double throw, the known complaint about smart dice)."""
    empty, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))
    still_frames(watcher, empty)  # the camera watches the empty square
    table.record(DiceThrown(faces=[3, 6], source="phone"))  # dice thrown, typed on a phone
    throw_into_view(watcher, table, [(3, False), (5, False)], start=10.0)  # the camera would read 3 and 5
    assert table.state.throws == [[3, 6]]
    assert camera_throws(table) == []


def test_nudged_dice_are_not_a_new_throw(table, watcher):
    """Picking the dice up a little or pushing them aside is not a roll (issue 3, scope 4)."""
    from dataclasses import replace

    throw_into_view(watcher, table, [(3, False), (5, False)])
    assert len(camera_throws(table)) == 1
    moved = scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)])
    moved.dice = [replace(d, x=d.x + 1.0, angle=d.angle + 20) for d in moved.dice]  # 1 cm aside, turned
    hand = Hand(x=30, y=40, angle=180, height=10)
    sweep = scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)], hands=[hand])
    for i in range(3):
        watcher.process(Frame(image=render(sweep)[0], seq=200 + i, t=20.0 + 0.25 * i))
    still_frames(watcher, render(moved)[0], start=21.0)
    assert len(camera_throws(table)) == 1, "a nudge was taken for a throw"


def test_the_simulated_table_shows_dice_only_after_a_throw_of_real_dice(table, watcher):
    """The dice box shows its dice on LEDs: the simulated camera must not invent dice for it."""
    table.record(DiceThrown(faces=[2, 2], source="sim"))
    assert scene_for_state(table.state, watcher.settings).dice == []
    table.record(DiceThrown(faces=[4, 1], source="phone"))
    assert [d.face for d in scene_for_state(table.state, watcher.settings).dice] == [4, 1]


def test_hands_moving_over_the_table_produce_no_event(table, watcher):
    before = len(table.records())
    for i in range(8):  # a hand sweeping across the table, a new position every frame
        hand = Hand(x=20 + 6 * i, y=40 + 2 * i, angle=180, height=10)
        scene = scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)], hands=[hand])
        image, _ = render(scene)
        assert watcher.process(Frame(image=image, seq=i, t=i * 0.25)) is None
    assert len(table.records()) == before
    assert not watcher.heard


@pytest.mark.parametrize("sleeve", ["skin", "felt"])
def test_a_hand_resting_on_a_wall_breaks_nothing(table, watcher, sleeve):
    """A hand resting on North's wall holds as still as the walls, and the stacks under it look
    lifted (read, before the walls learnt to see hands, as a break at North's 5th; one the felt's
    colour, before they learnt to see its shadow, the same). Nothing is recorded or said from
    them: the break recorded is the one on West's wall, whichever wall the hand rests on (with
    it on North's, none was read before a gap had to be one the rules could leave: R20 lays the
    loose tiles beside West's gap, none lie beside the hand's)."""
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))  # R17/R19: West's 18th
    scene = scene_for_state(table.state, watcher.settings, dice_shown=[])
    colour = FELT[scene.look.felt % len(FELT)] if sleeve == "felt" else None

    def breaks() -> list:
        return [(r.event.seat, r.event.stack) for r in table.records() if isinstance(r.event, WallBroken)]

    on_north = resting_hand(scene, 0, colour)
    obs = still_frames(watcher, render(on_north)[0])
    assert obs["walls"]["hidden"][0][0] == "N" and obs["walls"]["break"] == ["W", 18]
    assert breaks() == [("W", 18)] and table.state.break_check()["ok"] is True
    assert not [m for m in watcher.heard if m.topic == "warning"]
    on_east = resting_hand(scene, 7, colour)
    obs = still_frames(watcher, render(on_east)[0], start=10.0)
    assert obs["walls"]["hidden"][0][0] == "E"
    assert breaks() == [("W", 18)]  # seen again, not recorded again
    assert table.state.break_check()["ok"] is True
    assert not [m for m in watcher.heard if m.topic == "warning"]


def test_still_scene_reports_once_per_still_period():
    import numpy as np

    still = StillScene(hold=1.0, threshold=2.0)
    a = np.full((90, 160, 3), 100, np.uint8)
    b = a.copy()
    b[20:60, 40:100] = 200
    seen = [still.feed(a, t * 0.5) for t in range(6)]
    assert seen.count(True) == 1 and seen.index(True) == 2
    assert not still.feed(b, 3.5)  # movement
    assert [still.feed(b, 3.5 + t * 0.5) for t in range(1, 4)].count(True) == 1


def test_a_small_change_without_big_motion_is_a_new_scene_but_camera_noise_is_not():
    import numpy as np

    rng = np.random.default_rng(0)
    table_img = np.full((720, 1280, 3), (40, 110, 60), np.uint8)

    def noisy(img):  # a camera's noise, new in every frame
        return np.clip(img + rng.normal(0, 10, img.shape), 0, 255).astype(np.uint8)

    still = StillScene(hold=1.0, threshold=2.0)
    seen = [still.feed(noisy(table_img), t * 0.25) for t in range(20)]
    assert seen.count(True) == 1  # noise alone: one scene, read once
    dice = table_img.copy()
    dice[340:355, 600:615] = dice[340:355, 640:655] = 240  # two dice rolled in: 0.05 grey levels on average
    seen = [still.feed(noisy(dice), 5 + t * 0.25) for t in range(8)]
    assert seen.count(True) == 1 and seen.index(True) == 4  # read once they have lain still for `hold`


def test_the_watcher_reads_face_up_tiles_unless_told_not_to(table, watcher):
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    image, truth = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))
    obs = still_frames(watcher, image)
    assert isinstance(obs["tiles"], list) and "tiles_note" not in obs
    quick = TableWatcher(table, table.hub, None, msgspec.structs.replace(watcher.settings, read_tiles=False))
    obs = still_frames(quick, image)
    assert obs["tiles"] == [] and obs["tiles_note"] == "not asked"


def test_dice_half_hidden_at_the_first_look_are_no_throw_when_they_come_into_view(table, watcher):
    def die(face, x, y):
        return {"face": face, "box": [x, y, x + 15, y + 15], "cocked": False}

    watcher.check({"dice": [die(5, 100, 100)], "calibrated": False})  # a restart; a hand lies over the other die
    watcher.check({"dice": [die(5, 100, 100), die(2, 200, 100)], "calibrated": False})  # the hand is lifted
    assert camera_throws(table) == []  # the 5 never moved: nothing was thrown
    watcher.check({"dice": [die(3, 400, 300), die(6, 450, 320)], "calibrated": False})  # a real throw moves both
    assert [t.faces for t in camera_throws(table)] == [[3, 6]]


def test_the_watchers_status_says_when_the_camera_gives_no_pictures(table):
    import time

    import numpy as np

    class Camera:  # unplugged at first, then plugged in again
        connected = False

        def latest(self, after_seq=None, timeout=1.0):
            time.sleep(0.02)
            if not self.connected:
                return None
            return Frame(image=np.full((720, 1280, 3), 90, np.uint8), seq=(after_seq or 0) + 1, t=time.monotonic())

        def status(self):
            return {"connected": self.connected}

    camera = Camera()
    vs = msgspec.structs.replace(load_settings(env={}).vision, fps=20.0)
    watcher = TableWatcher(table, table.hub, camera, vs)
    watcher.start()
    try:
        deadline = time.monotonic() + 20
        while table.hub.status.get("vision", {}).get("ok", True) and time.monotonic() < deadline:
            time.sleep(0.05)
        status = table.hub.status["vision"]
        assert status["ok"] is False and "camera is not connected" in status["error"]
        camera.connected = True
        while not table.hub.status["vision"]["ok"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert table.hub.status["vision"]["ok"] is True
    finally:
        watcher.stop()



def _die(face, x, face_p, cocked=False):
    """One die as `scene.analyse` reports it."""
    return {"face": face, "box": [x, 100.0, x + 30.0, 130.0], "cocked": cocked, "face_p": face_p}


def _warned(watcher, code):
    return [m.data for m in watcher.heard if m.topic == "warning" and m.data["code"] == code]


def test_a_die_read_unsure_is_recorded_and_the_players_are_asked_to_check_it(table, watcher):
    """A die whose face the reader doubts (its probability under UNSURE_FACE_P) still makes the
    throw, and the phones ask to check that die; dice read surely ask nothing."""
    from companion.vision.dice import UNSURE_FACE_P

    watcher.check({"dice": [], "calibrated": False})  # the first look: an empty square
    watcher.check({"dice": [_die(3, 100.0, 0.97), _die(5, 300.0, UNSURE_FACE_P - 0.15)], "calibrated": False})
    assert table.state.throws == [[3, 5]] and table.state.throw_sources == ["camera"]
    said = _warned(watcher, "dice_unsure")
    assert [(w["die"], w["face"], w["faces"]) for w in said] == [(1, 5, [3, 5])]
    assert said[0]["message"].startswith("Die 2 reads 5, but the camera is not sure")
    thrown = [r for r in table.records() if isinstance(r.event, DiceThrown)]
    assert said[0]["event"] == thrown[-1].id  # the phones offer to undo this record
    # the second throw (R17), both dice read surely enough
    watcher.check({"dice": [_die(2, 500.0, 0.99), _die(6, 700.0, UNSURE_FACE_P + 0.05)], "calibrated": False})
    assert table.state.throws == [[3, 5], [2, 6]]
    assert len(_warned(watcher, "dice_unsure")) == 1


def test_a_camera_throw_undone_is_not_recorded_again_from_the_same_dice(table, watcher):
    """The players take back a throw the camera misread (from the dice_unsure warning) and type
    the dice: the dice still lying there are not recorded again."""
    from companion.game.events import Undone

    unsure = {"dice": [_die(3, 100.0, 0.97), _die(5, 300.0, 0.3)], "calibrated": False}
    watcher.check({"dice": [], "calibrated": False})
    watcher.check(unsure)
    event = _warned(watcher, "dice_unsure")[0]["event"]
    table.record(Undone(target=event))
    assert table.state.throws == []
    watcher.check(unsure)
    assert table.state.throws == [] and len(camera_throws(table)) == 1
    table.record(DiceThrown(faces=[3, 6], source="phone"))
    watcher.check(unsure)
    assert table.state.throws == [[3, 6]] and table.state.throw_sources == ["phone"]


def test_a_cocked_die_is_thrown_again_however_unsure_its_face(table, watcher):
    watcher.check({"dice": [], "calibrated": False})
    watcher.check({"dice": [_die(1, 150.0, 0.3, cocked=True), _die(6, 400.0, 0.99)], "calibrated": False})
    assert [w["die"] for w in _warned(watcher, "rethrow")] == [0]
    assert _warned(watcher, "dice_unsure") == []


def test_the_watcher_reads_with_the_camera_height_from_the_settings(table):
    """`[vision] camera_height_cm` reaches the analysis of every still scene (where the camera
    hangs, `calibrate.camera_position`); left out, the markers tell it."""
    settings = load_settings(env={}, overrides={"vision": {"camera_height_cm": 121.5}}).vision
    w = TableWatcher(table, table.hub, None, settings)
    assert w.scene_settings(load_variant("classical"), 0).camera_height_cm == 121.5
    plain = TableWatcher(table, table.hub, None, load_settings(env={}).vision)
    assert plain.scene_settings(load_variant("classical"), 0).camera_height_cm is None


def test_the_still_scenes_the_camera_acted_on_are_kept_as_samples(tmp_path, table, watcher):
    """A wrong break: the frame is kept with why (the break recorded, the warning), what was read
    and what the game expected; the same scene again, or one with nothing to say, keeps none."""
    import json

    from companion.vision.samples import SampleKeeper

    watcher.samples = SampleKeeper(tmp_path / "samples", 10)
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    last = table.records()[-1].id
    image, _ = render(scene_for_state(table.state, watcher.settings, broken_at=Stack("W", 16), dice_shown=[]))
    still_frames(watcher, image)
    [name] = watcher.samples.names()
    record = json.loads((tmp_path / "samples" / f"{name}.json").read_text())
    assert record["why"] == ["break", "wrong_break"]
    assert record["recorded"] == [r.id for r in table.records() if isinstance(r.event, WallBroken)]
    assert record["after_event"] == last and record["game"] == table.state.game
    assert record["expected"]["break"] == ["W", 18] and record["expected"]["variant"] == "classical"
    assert record["read"]["walls"]["break"] == ["W", 16] and record["calibration"] == "markers"
    still_frames(watcher, image, start=10.0)  # nothing new done: nothing kept
    assert watcher.samples.names() == [name]


def test_a_still_scene_with_nothing_to_say_keeps_no_sample(tmp_path, table, watcher):
    from companion.vision.samples import SampleKeeper

    watcher.samples = SampleKeeper(tmp_path / "samples", 10)
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))  # walls built, no dice
    assert still_frames(watcher, image) is not None
    assert watcher.samples.names() == []


def test_dice_read_otherwise_than_a_phone_typed_them_are_kept_once_as_a_labelled_sample(tmp_path, table, watcher):
    """The typed faces are the truth: the scene is a sample of a misreading, kept once for the
    throw; nothing is recorded or said (the players' word stands)."""
    import json

    from companion.vision.samples import SampleKeeper

    watcher.samples = SampleKeeper(tmp_path / "samples", 10)
    empty, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))
    still_frames(watcher, empty)
    table.record(DiceThrown(faces=[3, 6], source="phone"))
    throw_into_view(watcher, table, [(3, False), (5, False)], start=10.0)  # dice showing 3 and 5
    [name] = watcher.samples.names()
    record = json.loads((tmp_path / "samples" / f"{name}.json").read_text())
    assert record["why"] == ["dice_disagree"] and record["typed"] == [3, 6] and record["recorded"] == []
    assert sorted(d["face"] for d in record["read"]["dice"]) == [3, 5]
    assert table.state.throws == [[3, 6]] and not [m for m in watcher.heard if m.topic == "warning"]
    moved = scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)],
                            hands=[Hand(x=10, y=10, angle=180, height=10)])  # another still scene, same dice
    still_frames(watcher, render(moved)[0], start=30.0)
    assert len(watcher.samples.names()) == 1


def test_dice_read_as_a_phone_typed_them_keep_no_sample(tmp_path, table, watcher):
    from companion.vision.samples import SampleKeeper

    watcher.samples = SampleKeeper(tmp_path / "samples", 10)
    empty, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))
    still_frames(watcher, empty)
    table.record(DiceThrown(faces=[5, 3], source="phone"))
    throw_into_view(watcher, table, [(3, False), (5, False)], start=10.0)
    assert watcher.samples.names() == []
