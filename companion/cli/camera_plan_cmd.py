"""`companion camera-plan`: how high to mount which camera over your table, and whether it sees enough."""

from __future__ import annotations

import math
from pathlib import Path

import click

from companion.cli.common import emit_json, fail


def _pair(text: str, what: str, cast=float) -> tuple:
    parts = text.lower().replace(" ", "").split("x")
    try:
        values = tuple(cast(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) not in (1, 2) or not all(math.isfinite(v) and v > 0 for v in values):
        raise click.BadParameter(f"{what}: give one number or two as AxB, not {text!r}")
    return values if len(values) == 2 else (values[0], values[0])


@click.command("camera-plan")
@click.option("--table-cm", default="80", show_default=True, metavar="SIDE|WxD",
              help="Table top size in cm (one number for a square table).")
@click.option("--height-cm", type=float, required=True, help="Height of the lens above the table top, cm.")
@click.option("--sensor", default="imx708", show_default=True,
              help="Camera: imx708, imx708_wide, imx219, ov5647, imx477, imx296, c920.")
@click.option("--focal-mm", type=float, default=None, help="Lens focal length, for the HQ and Global Shutter cameras.")
@click.option("--resolution", default="1280x720", show_default=True, metavar="WxH",
              help="Frame size the vision pipeline analyses (camera.width x camera.height).")
@click.option("--tile-mm", default="30x22", show_default=True, metavar="HxW",
              help="Your tiles' height x width in mm (measure one).")
@click.option("--die-mm", type=float, default=16.0, show_default=True, help="Your dice's side in mm.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the mount seen from the side, to scale, into this SVG file.")
def camera_plan(table_cm, height_cm, sensor, focal_mm, resolution, tile_mm, die_mm, as_json, svg_file):
    """Field of view, pixels per tile and per wall stack, and the range of good mounting heights."""
    from companion.hardware.camera.geometry import SENSORS, describe, plan, sensor_with_lens, side_view_svg

    table = _pair(table_cm, "--table-cm")
    frame = _pair(resolution, "--resolution", int)
    tile = _pair(tile_mm, "--tile-mm")
    try:
        s = sensor_with_lens(sensor.lower(), focal_mm)
        p = plan(s, table, height_cm, frame, tile, die_mm)
    except ValueError as e:
        raise fail(str(e)) from None
    if svg_file is not None:
        try:
            svg_file.write_text(side_view_svg(p), encoding="utf-8")
        except OSError as e:
            raise fail(f"cannot write {svg_file}: {e.strerror}") from None
    if as_json:
        emit_json(p.to_json())
    else:
        click.echo(describe(p))
        if s.note:
            click.echo(f"  ({SENSORS[s.key].note})")
