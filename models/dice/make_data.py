"""Render the synthetic training pictures of the dice reader into models/dice/build/.

    python models/dice/make_data.py [--tray 1500] [--table 1500] [--out models/dice/build] [--jobs N]
                                    [--record-art DIR | --replay-art DIR]

Writes build/<kind>/NNNNN.png and build/<kind>/labels.json ({name: {"dice": [...], ...}}), with
progress on stderr. Seeded: the same counts give the same pictures.

The table views draw half their discards in the `render` extra's tile art, which needs the
cairo library; where it cannot be installed (a lent GPU machine) the views would be drawn
otherwise, and the hard negatives mined on them elsewhere would point at the wrong things.
`--record-art DIR` keeps every tile design the art drew (one PNG per tile and size, a few MiB);
`--replay-art DIR` draws the same pictures from them with no cairo at all.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402
from synth import table_view, tray_photo  # noqa: E402


def _one(job: tuple[str, int, Path]) -> tuple[str, dict] | None:
    """Render picture `i` of `kind` into `folder`: (file name, its labels), or None if skipped."""
    kind, i, folder = job
    got = (tray_photo if kind == "tray" else table_view)(i)
    if got is None:
        return None
    image, dice, meta = got
    name = f"{i:05d}.png"
    cv2.imwrite(str(folder / name), image)
    return name, {"dice": dice, **meta}


def record_art(folder: Path) -> None:
    """Keep each riichi tile design drawn in this process (and the renderers it forks) in `folder`."""
    from companion.vision.render.tiles import art_installed
    from companion.vision.tiles import render as art

    folder.mkdir(parents=True, exist_ok=True)
    draw = art._riichi_design

    def recorded(code: str, w: int, h: int):
        design = draw(code, w, h)
        path = folder / f"{code}_{w}_{h}.png"
        if not path.exists():  # renderers in other processes may draw the same design: write, then rename
            part = path.with_name(f"{path.stem}.{os.getpid()}.png")
            cv2.imwrite(str(part), design)
            part.replace(path)
        return design

    art._riichi_design = recorded
    if not art_installed():  # (its probe's design is recorded too: the replay makes the same probe)
        raise SystemExit("--record-art needs the tile art: pip install -e '.[render]'")


def replay_art(folder: Path) -> None:
    """Draw riichi tile designs from what `record_art` kept (no cairo needed)."""
    from companion.vision.tiles import render as art

    if not folder.is_dir():
        raise SystemExit(f"no recorded tile art in {folder} (make it with --record-art where the render extra is installed)")

    def replayed(code: str, w: int, h: int):
        design = cv2.imread(str(folder / f"{code}_{w}_{h}.png"), cv2.IMREAD_UNCHANGED)
        if design is None:
            raise RuntimeError(f"tile design {code} at {w}x{h} px was not recorded in {folder}: "
                               "record with the same --table count")
        return design

    art._riichi_design = replayed


def make(kind: str, count: int, out: Path, start: int = 0, jobs: int = 1) -> None:
    folder = out / kind
    folder.mkdir(parents=True, exist_ok=True)
    labels_path = folder / "labels.json"
    labels = json.loads(labels_path.read_text()) if labels_path.exists() else {}
    todo = [(kind, i, folder) for i in range(start, start + count) if f"{i:05d}.png" not in labels]
    t0 = time.time()
    # each picture is seeded by its number alone, so any number of processes gives the same pictures
    with multiprocessing.Pool(jobs, cv2.setNumThreads, (1,)) if jobs > 1 else contextlib.nullcontext() as pool:
        for done, got in enumerate(pool.imap(_one, todo, chunksize=4) if pool else map(_one, todo), 1):
            if got is not None:
                labels[got[0]] = got[1]
            if done % 100 == 0:
                labels_path.write_text(json.dumps(labels))
                print(f"{kind}: {done}/{len(todo)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    labels_path.write_text(json.dumps(dict(sorted(labels.items()))))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tray", type=int, default=1500)
    ap.add_argument("--table", type=int, default=1500)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "build")
    ap.add_argument("--jobs", type=int, default=1, help="processes that render (the pictures do not change)")
    ap.add_argument("--lean-on-die", type=float, default=0.0,
                    help="share of cocked dice on the table views leaned on another die (synth.LEAN_ON_DIE)")
    art_cache = ap.add_mutually_exclusive_group()
    art_cache.add_argument("--record-art", type=Path, metavar="DIR", help="keep the tile designs drawn in DIR")
    art_cache.add_argument("--replay-art", type=Path, metavar="DIR",
                           help="draw the tile designs from DIR (no render extra needed)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    synth.LEAN_ON_DIE = args.lean_on_die  # before the renderers fork
    if args.record_art:
        record_art(args.record_art)
    elif args.replay_art:
        replay_art(args.replay_art)
    make("tray", args.tray, args.out, jobs=args.jobs)
    make("table", args.table, args.out, jobs=args.jobs)
