"""`companion config check [FILE]` explains every problem in a configuration file; `config show` prints one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import click
import msgspec

from companion.cli.common import fail
from companion.config import Settings, config_path, load_settings, read_config_file
from companion.errors import CompanionError
from companion.validation import explain, without_none


def _is_section(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, msgspec.Struct)


def _choices(t: Any) -> list[str]:
    """The allowed values of a Literal field (or of the Literal in a union such as `int | "none"`)."""
    if get_origin(t) is Literal:
        return [repr(v) if isinstance(v, str) else str(v) for v in get_args(t)]
    return [c for a in get_args(t) for c in _choices(a)]


def problems(data: dict[str, Any], struct: type = Settings, path: str = "") -> tuple[list[str], dict[str, Any]]:
    """Every problem in `data` for `struct`, and the data without the keys that have problems.

    Each unknown key and each value of the wrong kind is named; then the section's own checks
    (ranges, a pin used twice …) run on the keys that were fine and name all they refuse.
    """
    fields = {f.encode_name: f for f in msgspec.structs.fields(struct)}
    found: list[str] = []
    good: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{path}{key}"
        field = fields.get(key)
        if field is None:
            found.append(f"{where}: unknown key (known {'here' if path else 'at the top'}: {', '.join(fields)})")
        elif _is_section(field.type):
            if isinstance(value, dict):
                inner, cleaned = problems(value, field.type, f"{where}.")
                found += inner
                good[key] = cleaned
            else:
                found.append(f"{where}: must be a [{where}] section, not a {type(value).__name__}")
        else:
            try:
                msgspec.convert(value, field.type)
            except msgspec.ValidationError as e:
                choices = _choices(field.type)
                found.append(f"{where}: {e}" + (f" (one of: {', '.join(choices)})" if choices else ""))
            else:
                good[key] = value
    if struct is not Settings:
        try:  # the section's own checks, on the keys that were fine
            msgspec.convert(good, struct)
        except msgspec.ValidationError as e:
            found += [f"{path.rstrip('.')}: {p.strip()}" for p in explain(e, struct).split(";")]
            good = {}
    return found, good


def advice(settings: Settings) -> tuple[list[str], list[str]]:
    """Problems (errors) and notices (warnings) that need more than the file: variants, players, devices."""
    from companion.hardware.camera.sources import parse_source
    from companion.rules.variant import load_variant
    from companion.table import check_players

    errors, notes = [], []
    try:
        load_variant(settings.game.variant, settings.variant_dirs)
    except CompanionError as e:
        errors.append(f"game.variant: {e}")
    try:
        check_players(settings.game.players)
    except CompanionError as e:
        errors.append(f"game.players: {e}")
    spec = parse_source(settings.camera.source)
    if spec.kind == "replay" and not Path(str(spec.target)).expanduser().exists():
        notes.append(f"camera.source: {spec.target} is not there now (the companion waits for it)")
    if spec.kind == "opencv" and isinstance(spec.target, str) and not os.path.exists(spec.target):
        notes.append(f"camera.source: {spec.target} is not there now (is the webcam plugged in?)")
    if settings.dice.url.startswith("/dev/") and not os.path.exists(settings.dice.url):
        notes.append(f"dice.url: {settings.dice.url} is not there now (is the dice box plugged in?)")
    notes += [f"gpio.{w}" for w in settings.gpio.warnings()]
    return errors, notes


@click.group("config")
def config() -> None:
    """Check or show the configuration file (TOML)."""


@config.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), required=False)
def check(file: Path | None) -> None:
    """Explain every problem in FILE (default: $COMPANION_CONFIG, else the user's companion.toml,
    else the appliance's /etc/companion/companion.toml)."""
    path = config_path(file)
    origin = str(path) if path else "defaults (no config file)"
    found: list[str] = []
    cleaned: dict[str, Any] = {}
    if path is not None:
        try:
            data = read_config_file(path)
        except CompanionError as e:
            raise fail(e) from None
        found, cleaned = problems(data)
    notes: list[str] = []
    try:  # what is left once the faulty keys are set aside, over the environment and the defaults
        settings = load_settings(overrides=cleaned, no_file=True, overrides_from=str(path))
    except CompanionError as e:  # the environment (COMPANION_PORT …) can be wrong too
        found.append(str(e))
    else:
        errors, notes = advice(settings)
        found += errors
    for note in notes:
        click.echo(f"note: {note}")
    if found:
        click.echo(f"{origin}: {len(found)} problem{'s' if len(found) != 1 else ''}:", err=True)
        for p in found:
            click.echo(f"  - {p}", err=True)
        raise SystemExit(1)
    click.echo(f"{origin}: OK")


@config.command("show")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--defaults", is_flag=True, help="Show the built-in defaults, ignoring any file and the environment.")
def show(file: Path | None, defaults: bool) -> None:
    """Print the settings in effect (file + environment over the defaults) as TOML."""
    import tomli_w

    try:
        settings = Settings() if defaults else load_settings(file)
    except CompanionError as e:
        raise fail(e) from None
    data = msgspec.to_builtins(settings)
    if defaults:
        data.pop("data_dir", None)  # the default depends on the user: it is chosen at start
    click.echo(tomli_w.dumps(without_none(data)), nl=False)
