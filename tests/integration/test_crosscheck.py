"""The live cross-checks on rendered frames: wrong break, cocked die, hands over the table."""

import msgspec
import pytest

from companion.config import load_settings
from companion.game.events import DiceThrown, WallBroken
from companion.hardware.camera.base import Frame
from companion.hardware.camera.sim import scene_for_state
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.rules.wall import Stack
from companion.storage import EventStore
from companion.table import Table
from companion.vision.render.draw import render
from companion.vision.render.scene import Hand
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
    assert "West's 18th stack" in warnings[0]["message"] and "16th" in warnings[0]["message"]
    assert table.state.break_check()["ok"] is False
    camera_breaks = [r for r in table.records() if isinstance(r.event, WallBroken)]
    assert [(r.event.seat, r.event.stack, r.event.source) for r in camera_breaks] == [("W", 16, "camera")]
    # the same still scene again: nothing new is recorded or said
    still_frames(watcher, image, start=10.0)
    assert len([r for r in table.records() if isinstance(r.event, WallBroken)]) == 1


def test_a_right_break_is_recorded_without_a_warning(table, watcher):
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[]))
    still_frames(watcher, image)
    assert table.state.break_check()["ok"] is True
    assert not [m for m in watcher.heard if m.topic == "warning" and m.data["code"] == "wrong_break"]


def test_a_cocked_die_asks_for_a_rethrow_and_waits(table, watcher):
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[(4, True), (1, False)]))
    obs = still_frames(watcher, image)
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
    image, _ = render(scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)]))
    still_frames(watcher, image)
    assert table.state.throws == [[3, 5]] or table.state.throws == [[5, 3]]


def test_hands_moving_over_the_table_produce_no_event(table, watcher):
    before = len(table.records())
    for i in range(8):  # a hand sweeping across the table, a new position every frame
        hand = Hand(x=20 + 6 * i, y=40 + 2 * i, angle=180, height=10)
        scene = scene_for_state(table.state, watcher.settings, dice_shown=[(3, False), (5, False)], hands=[hand])
        image, _ = render(scene)
        assert watcher.process(Frame(image=image, seq=i, t=i * 0.25)) is None
    assert len(table.records()) == before
    assert not watcher.heard


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
