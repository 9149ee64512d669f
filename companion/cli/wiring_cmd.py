"""`companion wiring`: the wiring diagram (SVG) or table (Markdown) for the configured GPIO pins."""

from __future__ import annotations

from pathlib import Path

import click

from companion.cli.common import config_options, fail, settings_from
from companion.errors import CompanionError


@click.command("wiring")
@config_options
@click.option("--table", "as_table", is_flag=True, help="A Markdown table instead of the SVG drawing.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of printing.")
def wiring(config_file, data_dir, as_table, out):
    """Draw how the lamps, buttons and buzzer connect to the Pi, for the pins in the configuration."""
    from companion.hardware.gpio import wiring as w

    try:
        settings = settings_from(config_file, data_dir)
    except CompanionError as e:
        raise fail(e) from None
    text = w.table(settings.gpio) if as_table else w.svg(settings.gpio)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise fail(f"cannot write {out}: {e.strerror}") from None
    click.echo(f"wrote {out}")
