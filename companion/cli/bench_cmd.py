"""`companion bench NAME`: benchmarks that print measured figures (never timed tests).

Each benchmark is its own module, imported only when run; add one line to BENCHMARKS.
"""

from __future__ import annotations

import click

from companion.cli import LazyGroup

#: benchmark name -> "module:attribute" of a click command
BENCHMARKS: dict[str, str] = {
    "camera": "companion.hardware.camera.bench:camera_bench",
    "club": "companion.club.bench:club_bench",
    "connections": "companion.web.connbench:connections",
    "dice": "companion.hardware.dice.bench:dice",
    "long-game": "companion.web.longbench:long_game",
    "photo-score": "companion.web.scorebench:photo_score",
    "recognition": "companion.vision.tiles.bench:recognition",
    "scoring": "companion.scoring.bench:scoring_bench",
    "scenes": "companion.vision.bench:scenes",
    "stop": "companion.cli.stop_bench:stop_bench",
    "teach": "companion.vision.tiles.bench_teach:teach_bench",
    "web": "companion.web.loadbench:web",
}


@click.group(cls=LazyGroup, lazy_commands=BENCHMARKS)
def bench() -> None:
    """Run a benchmark and print its figures."""
