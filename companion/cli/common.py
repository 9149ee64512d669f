"""Helpers shared by the command-line commands: variant lookup, JSON output, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from companion.config import load_settings
from companion.errors import CompanionError
from companion.rules.variant import Variant, load_variant


def variant_option(default: str | None = None):
    return click.option(
        "--variant", "variant_ref", default=default, metavar="NAME|FILE",
        help="Rule variant: classical, german, mcr, riichi, hongkong, a house-rule name or a .toml file."
        + ("" if default is None else f"  [default: the configured one, {default}]"),
    )


def config_options(f):
    f = click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Data directory (game log, house-rule variants, taught tile set).")(f)
    f = click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Configuration file (TOML).")(f)
    return f


def settings_from(config_file: Path | None, data_dir: Path | None, **overrides: Any):
    extra: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    if data_dir is not None:
        extra["data_dir"] = str(data_dir)
    return load_settings(config_file, overrides=extra)


def resolve_variant(ref: str | None, settings) -> Variant:
    return load_variant(ref or settings.game.variant, settings.variant_dirs)


def emit_json(data: Any) -> None:
    """Print `data` as UTF-8 JSON; a file name's bytes that are not UTF-8 (kept by Python as lone
    surrogates) become U+FFFD, so that every JSON reader can parse the output."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        raw = text.encode("utf-8", "surrogateescape")  # a file name's undecodable byte: one U+FFFD
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")  # any other lone surrogate
    sys.stdout.write(raw.decode("utf-8", "replace") + "\n")


def fail(err: CompanionError | str) -> click.ClickException:
    """A clean, non-zero exit with the message (no traceback)."""
    return click.ClickException(str(err))
