"""Render the synthetic training pictures of the dice reader into models/dice/build/.

    python models/dice/make_data.py [--tray 1500] [--table 1500] [--out models/dice/build] [--jobs N]

Writes build/<kind>/NNNNN.png and build/<kind>/labels.json ({name: {"dice": [...], ...}}), with
progress on stderr. Seeded: the same counts give the same pictures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).parent))
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
    args = ap.parse_args()
    cv2.setNumThreads(1)
    make("tray", args.tray, args.out, jobs=args.jobs)
    make("table", args.table, args.out, jobs=args.jobs)
