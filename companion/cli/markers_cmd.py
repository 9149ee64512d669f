"""`companion markers`: print-ready ArUco corner markers for the camera's calibration."""

from __future__ import annotations

from pathlib import Path

import click

from companion.cli.common import fail


@click.command("markers")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("markers"),
              show_default=True, help="Folder to write the files into (created if needed).")
@click.option("--format", "formats", type=click.Choice(["svg", "pdf"]), multiple=True,
              help="File formats to write  [default: both]")
def markers(out_dir: Path, formats: tuple[str, ...]) -> None:
    """Write the four calibration markers as an A4 sheet (SVG/PDF) and one SVG per marker."""
    from companion.hardware.camera import markers as m
    from companion.vision import markers_spec as spec

    formats = formats or ("svg", "pdf")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        layout = m.sheet()
        if "svg" in formats:
            written.append(out_dir / "markers-a4.svg")
            written[-1].write_text(m.to_svg(layout), encoding="utf-8")
            for corner, mid in spec.CORNER_IDS.items():
                written.append(out_dir / f"marker-{mid}-{corner}.svg")
                written[-1].write_text(m.marker_svg(mid), encoding="utf-8")
        if "pdf" in formats:
            written.append(out_dir / "markers-a4.pdf")
            written[-1].write_bytes(m.to_pdf(layout))
    except OSError as e:
        raise fail(f"cannot write the markers: {e}") from None
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"Print markers-a4 at 100 % (actual size) and check its scale bar measures 10 cm. Each marker's "
               f"centre goes {spec.MARKER_INSET_CM:g} cm in from both edges of its corner, arrow to the table's top.")
