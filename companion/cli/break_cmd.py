"""`companion break`: where must the wall be broken for these dice?"""

from __future__ import annotations

import click

from companion.cli.common import config_options, emit_json, fail, resolve_variant, settings_from, variant_option
from companion.errors import CompanionError
from companion.game.notation import NotationError, parse_dice
from companion.rules.diagram import ascii_square, describe
from companion.rules.wall import Square, break_wall


@click.command("break")
@variant_option()
@click.option("--dice", "dice", multiple=True, metavar="D1,D2",
              help="One throw, e.g. 3,4. Give it once per throw: East's throw first, then the breaker's.")
@click.option("--view", type=click.Choice(["E", "S", "W", "N"]), default="E", show_default=True,
              help="Draw the square as seen from this seat.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of text.")
@config_options
def break_(variant_ref, dice, view, as_json, config_file, data_dir):
    """Where to break the wall, the dead wall, the loose tiles and where the deal starts.

    \b
    Example: companion break --variant classical --dice 3,4 --dice 5,6
    """
    try:
        settings = settings_from(config_file, data_dir)
        variant = resolve_variant(variant_ref, settings)
        if not dice:
            want = len(variant.dice.throws)
            raise click.UsageError(f"give the dice: --dice D1,D2 ({want} throw{'s' * (want > 1)} for {variant.title})")
        throws = [parse_dice(d) for d in dice]
        brk = break_wall(variant, throws)
    except (CompanionError, NotationError) as e:
        raise fail(e) from None
    if as_json:
        emit_json(brk.to_json())
        return
    click.echo(f"{variant.title}")
    click.echo(describe(brk))
    click.echo()
    click.echo(ascii_square(brk, Square.for_variant(variant), viewer=view))
