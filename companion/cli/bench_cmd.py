"""`companion bench NAME`: benchmarks that print measured figures (never timed tests).

Each benchmark is its own module, imported only when run; add one line to BENCHMARKS.
"""

from __future__ import annotations

import click

from companion.cli import LazyGroup

#: benchmark name -> "module:attribute" of a click command
BENCHMARKS: dict[str, str] = {
    "recognition": "companion.vision.tiles.bench:recognition",
    "teach": "companion.vision.tiles.bench_teach:teach_bench",
}


@click.group(cls=LazyGroup, lazy_commands=BENCHMARKS)
def bench() -> None:
    """Run a benchmark and print its figures."""
