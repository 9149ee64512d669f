"""`companion recognize IMAGE...`: find and name every face-up tile in photos or frames."""

from __future__ import annotations

import json
import sys

import click

from companion.cli.common import config_options, settings_from


def _score(value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:  # (NaN fails this too)
        raise click.BadParameter(f"a score from 0 to 1, not {value}")
    return value


@click.command()
@click.argument("images", nargs=-1, required=True, type=click.Path())  # each checked as it is read
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list: image, ms, tiles [{tile, box, score}].")
@click.option("--threshold", type=float, default=None, callback=lambda ctx, param, v: _score(v),
              help="Detection score from 0 to 1 below which a face is ignored (default: the model's calibrated one).")
@click.option("--models", "model_folder", type=click.Path(file_okay=False), default=None,
              help="Folder with tile_detector.onnx and tile_classifier.onnx (default: the shipped ones).")
@click.option("--tile-px", type=click.FloatRange(min=4, min_open=False), default=None,
              help="A tile face's long side in pixels, for large pictures (a whole table): read in windows "
                   "scaled to the detector (default: each picture is one window, like a photo of a hand).")
@click.option("--taught/--no-taught", default=True, show_default=True,
              help="Use the tile set taught with `companion teach`, if there is one (in the data folder).")
@config_options
def recognize(images, as_json, threshold, model_folder, tile_px, taught, config_file, data_dir):
    """Find every face-up tile in each IMAGE and name it (1m-9m, 1p-9p, 1s-9s, 1z-7z, 1f-8f).

    The models load once for all images. An unreadable image gets an error entry of its
    own; the exit status is 1 if any image failed.
    """
    from companion.errors import CompanionError, ImageError
    from companion.vision.tiles.recognizer import TileRecognizer, named
    from companion.vision.tiles.teach import load_or_shipped, use_data_dir

    try:
        use_data_dir(settings_from(config_file, data_dir).data_path)
        taught_set, why = load_or_shipped() if taught else (None, None)
        if why:
            click.echo(f"Warning: {why}", err=True)
        rec = TileRecognizer(model_folder, threshold=threshold, taught=taught_set)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    results, failed = [], False
    for path in images:
        try:
            tiles, ms = rec.recognize_file(path, tile_px)
            results.append({"image": path, "ms": round(ms, 1), "tiles": [t.to_json() for t in tiles]})
        except ImageError as exc:
            failed = True
            results.append({"image": path, "error": named(path, exc)})
    if as_json:
        click.echo(json.dumps(results, indent=1))
    else:
        if taught_set is not None:
            click.echo(f"(using the taught tile set {taught_set.info.get('file', '')})")
        for r in results:
            if "error" in r:
                click.echo(f"Error: {r['error']}", err=True)  # as `observe` says it: the error names the image
            else:
                names = " ".join(t["tile"] for t in r["tiles"]) or "(no tiles)"
                click.echo(f"{r['image']}: {len(r['tiles'])} tiles in {r['ms']:.0f} ms: {names}")
    if failed:
        sys.exit(1)
