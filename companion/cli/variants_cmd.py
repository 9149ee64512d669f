"""`companion variants`: list the rule variants, show one, or check a house-rule file."""

from __future__ import annotations

import click
import tomli_w

from companion.cli.common import config_options, emit_json, fail, settings_from
from companion.errors import CompanionError
from companion.rules.variant import assumptions, builtin_names, load_variant
from companion.validation import without_none


@click.group("variants")
def variants() -> None:
    """Rule variants: built-in ones and a club's own house rules."""


@variants.command("list")
@config_options
def list_(config_file, data_dir):
    """List the variants this companion knows."""
    try:
        settings = settings_from(config_file, data_dir)
    except CompanionError as e:
        raise fail(e) from None
    names = set(builtin_names())
    for d in settings.variant_dirs:
        if d.is_dir():
            names |= {p.stem for p in d.glob("*.toml")}
    for name in sorted(names):
        try:
            v = load_variant(name, settings.variant_dirs)
            click.echo(f"{name:<12} {v.title}  ({v.tiles.total} tiles, {len(v.rounds.winds)} round(s), "
                       f"{v.scoring} scoring)")
        except CompanionError as e:
            click.echo(f"{name:<12} INVALID: {e}")


@variants.command("show")
@click.argument("ref", metavar="NAME|FILE")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of TOML.")
@config_options
def show(ref, as_json, config_file, data_dir):
    """Print a variant with every setting filled in (a starting point for house rules)."""
    try:
        v = load_variant(ref, settings_from(config_file, data_dir).variant_dirs)
    except CompanionError as e:
        raise fail(e) from None
    data = v.to_dict()
    if as_json:
        emit_json(data)
    else:
        try:  # where the rule text is silent and the variant chose: as TOML comments, base first
            chosen = assumptions(ref, settings_from(config_file, data_dir).variant_dirs)
        except (CompanionError, OSError):
            chosen = []
        if chosen:
            click.echo("# Where the rule text is silent, this variant chose:")
            for line in chosen:
                click.echo(f"#   {line}")
            click.echo()
        click.echo(tomli_w.dumps(without_none(data)))


@variants.command("check")
@click.argument("ref", metavar="NAME|FILE")
@config_options
def check(ref, config_file, data_dir):
    """Check a variant file; explains the first error and names its field."""
    from companion.scoring import ScoringUnavailable, check_variant

    try:
        v = load_variant(ref, settings_from(config_file, data_dir).variant_dirs)
        try:
            scoring = f"{check_variant(v)} scoring"
        except ScoringUnavailable as e:
            scoring = str(e)
    except CompanionError as e:
        raise fail(e) from None
    click.echo(f"{ref}: OK — {v.title}, {v.tiles.total} tiles, {v.stacks_per_wall} stacks per wall, {scoring}")
