"""`companion observe IMAGE...`: what the camera sees on the table in each picture."""

from __future__ import annotations

import sys

import click

from companion.cli.common import config_options, emit_json, fail, resolve_variant, settings_from, variant_option
from companion.errors import CompanionError
from companion.rules.seats import WIND_NAMES


def _summary(obs: dict) -> str:
    state = "calibrated" if obs["calibrated"] else f"not calibrated ({obs.get('calibration_note') or 'no markers'})"
    lines = [f"{obs['image']}: {state}, {obs['ms']} ms"]
    walls = obs.get("walls")
    if walls:
        for seat, w in walls["seats"].items():
            gaps = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in w["gaps"]) or "none"
            half = f"; half stacks: {', '.join(map(str, w['half']))}" if w.get("half") else ""
            hidden = f"; under a hand: {', '.join(map(str, w['hidden']))}" if w.get("hidden") else ""
            lines.append(f"  {WIND_NAMES[seat]:5} wall ({w['side']}): {w['count']} stacks standing; gaps: {gaps}{half}{hidden}")
        brk = walls["break"]
        lines.append(f"  break: {WIND_NAMES[brk[0]]}'s stack {brk[1]}" if brk else
                     "  break: not read" if walls.get("hidden") else "  break: not broken")
        if walls["live_tiles"] is not None:
            lines.append(f"  live tiles: {walls['live_tiles']}")
        if walls.get("note"):
            lines.append(f"  walls: {walls['note']}")
    dice = ", ".join(f"{d['face']}{' (cocked)' if d['cocked'] else _unsure(d)}" for d in obs["dice"]) or "none"
    lines.append(f"  dice: {dice}")
    if obs.get("note"):
        lines.append(f"  note: {obs['note']}")
    if obs["calibrated"]:
        lines.append(f"  East marker: {_marker(obs)}; wind disc: {_disc(obs)}")
    names = " ".join(t["tile"] for t in obs["tiles"])
    lines.append(f"  tiles: {len(obs['tiles'])}" + (f": {names}" if names else "")
                 + (f" ({obs['tiles_note']})" if obs.get("tiles_note") else ""))
    return "\n".join(lines)


def _unsure(die: dict) -> str:
    """' (unsure: 0.45)' for a die whose face the reader doubts (`dice.UNSURE_FACE_P`), else ''."""
    from companion.vision.dice import UNSURE_FACE_P  # with the reader, which the command loads anyway

    p = die.get("face_p", 1.0)
    return f" (unsure: {p:.2f})" if p < UNSURE_FACE_P else ""


MARKER_KINDS = {"button": "dealer button", "box": "wind box"}


def _at(where: dict | None) -> str:
    return f" (pixel {where['px'][0]:.0f}, {where['px'][1]:.0f})" if where else ""


def _marker(obs: dict) -> str:
    """'dealer button at South's seat (pixel 640, 610)', or 'not seen'."""
    if obs.get("east_marker") is None:
        return "not seen"
    at = obs.get("east_marker_at") or {}
    kind = MARKER_KINDS.get(at.get("kind"), "seen")
    return f"{kind} at {WIND_NAMES[obs['east_marker']]}'s seat{_at(at or None)}"


def _disc(obs: dict) -> str:
    """'shows North (pixel 770, 625)', or 'not seen'."""
    if obs.get("wind_shown") is None:
        return "not seen"
    return f"shows {WIND_NAMES[obs['wind_shown']]}{_at(obs.get('wind_at'))}"


@click.command("observe")
# each checked as it is read; a str, not a Path, so that it is named as typed ("./a.png"), as `recognize` does
@click.argument("images", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per image.")
@variant_option()
@click.option("--first-east-side", type=click.Choice(["bottom", "right", "top", "left"]), default=None,
              help="Table side where the player who began as East sits  [default: from the settings, bottom]")
@click.option("--dealer", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Player index (0 = began as East) who is East now: decides which seat each side is.")
@config_options
def observe(images, as_json, variant_ref, first_east_side, dealer, config_file, data_dir):
    """Read the table in each IMAGE: walls, break, dice, East marker, wind disc, face-up tiles.

    Works on pictures with the printed corner markers (calibrated) and on plain photos taken
    from above (dice only). Several images are read in one run; a bad image is reported and the
    others are still read (exit status 1 if any failed).
    """
    try:
        settings = settings_from(config_file, data_dir)
        variant = resolve_variant(variant_ref, settings)
    except CompanionError as e:
        raise fail(e) from None
    from companion.vision.calibrate import manual
    from companion.vision.geometry import TileSize
    from companion.vision.scene import SceneSettings, analyse, tile_recognizer, warm_up
    from companion.vision.tiles.recognizer import named, read_image
    from companion.vision.tiles.teach import use_data_dir

    use_data_dir(settings.data_path)  # the set `companion teach` taught, if any
    vs = settings.vision
    scene = SceneSettings(variant=variant, first_east_side=first_east_side or vs.first_east_side, dealer=dealer,
                          die_cm=vs.die_cm, tile=TileSize(*vs.tile_cm), table_size=tuple(vs.table_size_cm),
                          camera_height_cm=vs.camera_height_cm)
    fixed = manual(vs.manual_corners, tuple(vs.table_size_cm)) if vs.manual_corners else None
    warm_up()  # marker detectors, dice models and OpenCV's threads: not billed to the first image
    try:  # load the models before the clock starts: `ms` is the time spent on each image
        tile_recognizer()
    except CompanionError:
        pass  # each image then says why it has no tiles
    results, failed = [], 0
    # --json prints at the end: say how far it got where someone is watching (a tty), as the
    # summaries do one by one without --json
    progress = as_json and len(images) > 1 and sys.stderr.isatty()
    for i, path in enumerate(images, 1):
        if progress:
            click.echo(f"reading {i}/{len(images)}: {path}", err=True)
        try:
            obs = analyse(read_image(path), scene, calibration=fixed, name=path).to_json()
        except (CompanionError, ValueError) as e:
            failed += 1
            why = named(path, e)
            click.echo(f"Error: {why}", err=True)
            results.append({"image": path, "error": why})
            continue
        results.append(obs)
        if not as_json:
            click.echo(_summary(obs))
    if as_json:
        emit_json(results)
    if failed:
        raise SystemExit(1)
