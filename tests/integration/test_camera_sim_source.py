"""The camera source "sim" of `companion run`: the table drawn as the running game says it looks."""

from types import SimpleNamespace

from companion.config import load_settings
from companion.game.events import DiceThrown
from companion.hardware.camera.sources import sim_source
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table


def test_the_sim_camera_draws_the_game_and_draws_it_again_when_the_game_changes(tmp_path):
    store = EventStore(tmp_path / "games.sqlite3")
    table = Table(store, Hub())
    table.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    settings = load_settings(env={})
    source = sim_source(settings.camera, SimpleNamespace(table=table, settings=settings))
    source.open()
    try:
        before = source.read(10.0)
        assert before.image.ndim == 3 and before.truth["wind_shown"] == table.state.prevalent
        assert before.truth["dice"] == []
        table.record(DiceThrown(faces=[3, 4], source="phone"))  # real dice: they lie on the table
        after = source.read(10.0)
        assert sorted(d["face"] for d in after.truth["dice"]) == [3, 4]
    finally:
        source.close()
        store.close()
