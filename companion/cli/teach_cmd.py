"""`companion teach PHOTO...`: adapt the tile recogniser to your own tile set."""

from __future__ import annotations

from pathlib import Path

import click

from companion.cli.common import config_options, settings_from


@click.command()
@click.argument("photos", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--sheet", type=click.Path(dir_okay=False), default=None,
              help="Write the printable layout sheet (SVG) to this file and stop.")
@click.option("--forget", is_flag=True, help="Delete the taught set; recognition goes back to the shipped model.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Where to save the taught set (default: tiles/taught_set.npz in the data folder, where "
                   "the companion finds it).")
@click.option("--models", "model_folder", type=click.Path(file_okay=False), default=None,
              help="Folder with tile_detector.onnx and tile_classifier.onnx (default: the shipped ones).")
@config_options
def teach(photos, sheet, forget, out, model_folder, config_file, data_dir):
    """Teach the recogniser your tiles from photos of the layout: one of each tile, face up,
    in rows 1m-9m / 1p-9p / 1s-9s / 1z-7z / 1f-8f (the last row optional).

    Print the sheet with `companion teach --sheet layout.svg`, lay the tiles on it, photograph
    it from above (one to three photos, different light helps) and run `companion teach A.jpg`.
    """
    from companion.errors import CompanionError
    from companion.vision.tiles.teach import taught_path, use_data_dir

    chosen = [name for name, given in (("--sheet", sheet), ("--forget", forget), ("photos", photos)) if given]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)} do different things: give one of them")
    try:
        use_data_dir(settings_from(config_file, data_dir).data_path)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    if sheet:
        from companion.vision.tiles.sheet import layout_sheet_svg

        try:
            Path(sheet).write_text(layout_sheet_svg())
        except OSError as exc:
            raise click.ClickException(f"cannot write {sheet}: {exc.strerror}") from exc
        click.echo(f"layout sheet written to {sheet}")
        return
    if forget:
        p = Path(out or taught_path())
        if not p.exists():
            click.echo("no taught set to forget")
            return
        try:
            p.unlink()
        except OSError as exc:
            raise click.ClickException(f"cannot delete {p}: {exc.strerror}") from exc
        click.echo(f"forgot the taught set ({p})")
        return
    if not photos:
        raise click.UsageError("give one or more layout photos (or --sheet FILE / --forget)")
    # refused before the photos are read; the default folder in the data folder is made on saving
    if out is not None and not Path(out).parent.is_dir():
        raise click.ClickException(f"cannot save the taught set: folder {Path(out).parent} does not exist")
    from companion.vision.tiles.recognizer import TileRecognizer, read_image
    from companion.vision.tiles.teach import teach as fit

    try:
        rec = TileRecognizer(model_folder)
        # read_image's errors name the photo, and so do teach's for a photo without the layout
        taught = fit(rec, [read_image(p) for p in photos], names=list(photos))
        path = taught.save(out)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:  # e.g. the service's data folder, which only its user may write
        raise click.ClickException(f"cannot save the taught set: {exc}"
                                   + (" (run it as the service user: sudo -u companion companion teach …)"
                                      if isinstance(exc, PermissionError) else "")) from exc
    i = taught.info
    click.echo(f"taught {i['tiles']} tiles from {i['photos']} photo(s) in {i['seconds']} s; saved to {path}")
    if taught.detector == "general":
        click.echo(f"the shipped models named {i['familiar']:.0%} of these tiles right: a design they do not know, "
                   "so photos of this set are read by the general detector")
    why = ("lower: the detector is less sure of this design" if taught.threshold < rec.shipped_threshold
           else "the shipped one: the detector knows this design")
    click.echo(f"this set's detection threshold: {taught.threshold:.2f} ({why})")
