"""The camera's warnings are judged against the game as it stood when the frame was taken.

Right after the change of round the simulated camera warned "the wind disc shows East, but this is
the South round": a frame taken before the result was read (which takes a while) and then compared
with the state after it. A reading whose game changed meanwhile is set aside and the scene read
again (R13: the disc shows the round's wind).
"""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from companion.config import load_settings
from companion.game.events import HandWon
from companion.hardware.camera.base import Frame
from companion.hardware.camera.sim import scene_for_state
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table
from companion.vision import watch
from companion.vision.render.draw import render
from companion.vision.watch import TableWatcher


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
    w.heard = []
    table.hub.subscribe(lambda m: w.heard.append(m), {"warning"})
    return w


def dealer_passes(table) -> None:
    """A hand the dealer does not win: the deal passes on (four of them end the round)."""
    dealer = table.state.dealer
    table.record(HandWon(winner=(dealer + 1) % 4, discarder=(dealer + 2) % 4, value=8))


def feed_still(w, image, start: float, n: int = 4, dt: float = 0.25, version=None):
    """The same picture long enough to be a still scene; returns the observations read."""
    return [o for i in range(n) if (o := w.process(Frame(image=image, seq=int(start * 100) + i, t=start + i * dt),
                                                     version=version))]


def wind_warnings(w) -> list[dict]:
    return [m.data for m in w.heard if m.data.get("code") == "wrong_wind"]


def test_a_frame_read_while_the_round_changed_is_not_judged_against_the_new_round(table, watcher, monkeypatch):
    for _ in range(3):
        dealer_passes(table)  # the East round's last hand
    assert table.state.prevalent == "E"
    east_disc, _ = render(scene_for_state(table.state, watcher.settings))
    real = watch.analyse
    changed = []

    def slow_read(*args, **kwargs):  # the result comes in while the frame is being read
        obs = real(*args, **kwargs)
        if not changed:
            dealer_passes(table)
            changed.append(table.version)
        return obs

    monkeypatch.setattr(watch, "analyse", slow_read)
    assert feed_still(watcher, east_disc, start=0.0, n=3) == []  # the third frame completes the still scene
    assert table.state.prevalent == "S" and changed
    assert watcher.stale_readings == 1
    assert wind_warnings(watcher) == []  # the East disc was right when the picture was taken
    # the camera's next pictures show the table after the result (the disc turned to South): read
    # against the South round, nothing to say
    south_disc, _ = render(scene_for_state(table.state, watcher.settings))
    assert feed_still(watcher, south_disc, start=10.0)
    assert wind_warnings(watcher) == [] and watcher.stale_readings == 1


def test_a_frame_taken_before_a_result_is_set_aside_and_the_scene_read_again(table, watcher, monkeypatch):
    """The version is taken when the frame is taken (the camera loop passes it): a result recorded
    after that and before the reading is compared sets the reading aside; the same still scene is
    then read again at once, and a disc still showing East is now rightly told (R13)."""
    for _ in range(3):
        dealer_passes(table)
    east_disc, _ = render(scene_for_state(table.state, watcher.settings))
    taken = table.version
    feed_still(watcher, east_disc, start=0.0, n=2)  # not yet still for long enough
    dealer_passes(table)  # the South round from here
    read = feed_still(watcher, east_disc, start=0.5, n=1, version=taken)
    assert read == [] and watcher.stale_readings == 1 and wind_warnings(watcher) == []
    # the next frame of the same still scene, taken now: the disc was not turned
    read = feed_still(watcher, east_disc, start=0.75, n=1)
    assert read and watcher.stale_readings == 1
    assert [(w["observed"], w["expected"]) for w in wind_warnings(watcher)] == [("E", "S")]


def test_without_a_change_meanwhile_a_wrong_disc_is_told_at_once(table, watcher):
    """The check still works: a disc showing another wind than the round's warns (R13)."""
    for _ in range(4):
        dealer_passes(table)
    assert table.state.prevalent == "S"
    scene = scene_for_state(table.state, watcher.settings)
    east_disc, _ = render(_with_wind(scene, "E"))
    feed_still(watcher, east_disc, start=0.0)
    assert watcher.stale_readings == 0
    assert [(w["observed"], w["expected"]) for w in wind_warnings(watcher)] == [("E", "S")]


def _with_wind(scene, wind: str):
    """The rendered scene with the wind disc showing `wind` (the players did not turn it)."""
    return dataclasses.replace(scene, wind=dataclasses.replace(scene.wind, wind=wind))
