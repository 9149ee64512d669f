"""`companion camera-plan`: how high to mount which camera over your table, and whether it sees enough."""

from __future__ import annotations

import math
import re
from pathlib import Path

import click

from companion.cli.common import config_options, emit_json, settings_from


def _numbers(text: str, cast=float) -> tuple:
    """The numbers in "A", "AxB" or "A×B" (any case, spaces allowed); () when they are not all above 0."""
    try:
        values = tuple(cast(p) for p in re.split("[x×]", text.lower().replace(" ", "")))
    except ValueError:
        return ()
    return values if all(math.isfinite(v) and v > 0 for v in values) else ()


def _size(form: str):
    """A click callback for a size AxB or, for a square, one number; None is left to the configuration."""
    def parse(ctx, param, text):
        if text is None:
            return None
        values = _numbers(text)
        if len(values) not in (1, 2):
            raise click.BadParameter(f"give one number or two as {form}, not {text!r}")
        return values if len(values) == 2 else (values[0], values[0])
    return parse


def _frame(ctx, param, text):
    """The analysed frame: both sides, since a single number is no camera mode."""
    if text is None:
        return None
    values = _numbers(text, int)
    if len(values) != 2:
        raise click.BadParameter(f"give WIDTHxHEIGHT, e.g. 1280x720, not {text!r}")
    return values


@click.command("camera-plan")
@click.option("--table-cm", default=None, metavar="SIDE|WxD", callback=_size("WxD"),
              help="Table top size in cm, one number for a square table  [default: vision.table_size_cm "
                   "in the configuration]")
@click.option("--height-cm", type=float, required=True, help="Height of the lens above the table top, cm.")
@click.option("--sensor", default="imx708", show_default=True,
              help="Camera: imx708, imx708_wide, imx219, ov5647, imx477, imx296, c920.")
@click.option("--focal-mm", type=float, default=None, help="Lens focal length, for the HQ and Global Shutter cameras.")
@click.option("--resolution", default=None, metavar="WIDTHxHEIGHT", callback=_frame,
              help="Frame size the vision pipeline analyses  [default: camera.width x camera.height in the "
                   "configuration]")
@click.option("--tile-mm", default=None, metavar="HxW", callback=_size("HxW"),
              help="Your tiles' height x width in mm (measure one)  [default: vision.tile_cm in the configuration]")
@click.option("--die-mm", type=float, default=None,
              help="Your dice's side in mm  [default: vision.die_cm in the configuration]")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the mount seen from the side, to scale, into this SVG file.")
@config_options
def camera_plan(table_cm, height_cm, sensor, focal_mm, resolution, tile_mm, die_mm, as_json, svg_file,
                config_file, data_dir):
    """Field of view, pixels per tile and per wall stack, and the range of good mounting heights.

    Sizes not given come from the configuration ([vision] and [camera]). Exit status: 0 the
    plan works, 1 it does not (the verdict says what to change), 2 a mistake in the options
    or the configuration.
    """
    from companion.errors import CompanionError
    from companion.hardware.camera.geometry import SENSORS, describe, plan, sensor_with_lens, side_view_svg

    try:
        settings = settings_from(config_file, data_dir)
    except CompanionError as e:
        raise click.UsageError(str(e)) from None
    vision, camera = settings.vision, settings.camera
    table = table_cm or tuple(vision.table_size_cm)
    frame = resolution or (camera.width, camera.height)
    # vision.tile_cm is width along the wall, depth across it (the face's height), thickness
    tile = tile_mm or (round(vision.tile_cm[1] * 10, 2), round(vision.tile_cm[0] * 10, 2))
    die = round(vision.die_cm * 10, 2) if die_mm is None else die_mm
    try:
        s = sensor_with_lens(sensor.lower(), focal_mm)
        p = plan(s, table, height_cm, frame, tile, die)
    except ValueError as e:  # the sizes or the camera asked for: a mistake in the options
        raise click.UsageError(str(e)) from None
    if svg_file is not None:
        try:
            svg_file.write_text(side_view_svg(p), encoding="utf-8")
        except OSError as e:
            raise click.BadParameter(f"cannot write {svg_file}: {e.strerror}", param_hint="'--svg'") from None
    if as_json:
        emit_json(p.to_json())
    else:
        click.echo(describe(p))
        if s.note:
            click.echo(f"  ({SENSORS[s.key].note})")
    raise SystemExit(0 if p.ok else 1)
