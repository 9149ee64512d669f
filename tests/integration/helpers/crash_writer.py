"""Append game events as fast as possible, printing each committed id; killed by the crash test."""

import random
import sys

from companion.game.events import DiceThrown, HandDrawn, HandWon
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

path, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
table = Table(EventStore(path), Hub())
if table.state is None:
    table.start_game(load_variant("mcr"), ["A", "B", "C", "D"])
print("ready", flush=True)
while True:
    state = table.state
    if state.game_over:
        record = table.start_game(load_variant(rng.choice(["mcr", "classical"])), ["A", "B", "C", "D"])
    else:
        kind = rng.random()
        if kind < 0.5:
            event = DiceThrown(faces=[rng.randint(1, 6), rng.randint(1, 6)], source="sim")
        elif kind < 0.8:
            event = HandWon(winner=rng.randrange(4), value=rng.randint(8, 40))
        else:
            event = HandDrawn()
        record = table.record(event)
    print(record.id, flush=True)
