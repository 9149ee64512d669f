"""Composition root: build the table and its adapters from the settings, start and stop them.

Adapters (dice link, camera, GPIO panel, web server) are components with `start()` and
`stop()`; they are started in order and stopped in reverse. Each hardware adapter has a
simulated twin chosen here from the configuration, never by a test flag inside it.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from typing import Protocol

from companion.config import Settings
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

log = logging.getLogger(__name__)

#: "module:function" of each adapter builder, called as function(services) in this order. A builder
#: reads its section of the settings, picks the real adapter or its simulated twin, and adds components.
#: Imported lazily so that, e.g., OpenCV is loaded only when a camera is configured.
ADAPTER_BUILDERS: list[str] = [
    "companion.hardware.dice.builder:build",
    "companion.hardware.camera.service:build_camera",
    "companion.vision.watch:build",  # after the camera: watches the table, cross-checks with the game
    "companion.hardware.gpio.panel:build_panel",
    "companion.club.publisher:build",  # only with a [club] broker: the log published to the club's hub
]


class Component(Protocol):
    name: str

    def start(self) -> None: ...

    def stop(self) -> None: ...


@dataclass
class Services:
    settings: Settings
    store: EventStore
    hub: Hub
    table: Table
    components: list[Component] = field(default_factory=list)
    _started: list[Component] = field(default_factory=list)

    def add(self, component: Component) -> Component:
        self.components.append(component)
        return component

    def find(self, name: str) -> Component | None:
        """The component called `name` (e.g. "camera"), if one was added."""
        return next((c for c in self.components if c.name == name), None)

    def start(self) -> None:
        for c in self.components:
            log.info("starting %s", c.name)
            c.start()
            self._started.append(c)

    def stop(self) -> None:
        """Stop what was started, newest first; one failing stop does not skip the others."""
        while self._started:
            c = self._started.pop()
            try:
                c.stop()
            except Exception:
                log.exception("stopping %s failed", c.name)
        self.store.close()


def build_services(settings: Settings) -> Services:
    """The table on its game log, with a first game started on the configured variant if none exists."""
    from companion.vision.tiles.teach import use_data_dir

    use_data_dir(settings.data_path)  # the tile set taught here or by `companion teach` lives beside the log
    store = EventStore(settings.db_path)
    hub = Hub()
    table = Table(store, hub)
    if table.state is None:
        table.start_game(load_variant(settings.game.variant, settings.variant_dirs), settings.game.players)
    services = Services(settings=settings, store=store, hub=hub, table=table)
    for ref in ADAPTER_BUILDERS:
        module, func = ref.split(":")
        getattr(importlib.import_module(module), func)(services)
    return services
