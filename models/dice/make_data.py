"""Render the synthetic training pictures of the dice reader into models/dice/build/.

    python models/dice/make_data.py [--tray 1500] [--table 1500] [--out models/dice/build]

Writes build/<kind>/NNNNN.png and build/<kind>/labels.json ({name: {"dice": [...], ...}}), with
progress on stderr. Seeded: the same counts give the same pictures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).parent))
from synth import table_view, tray_photo  # noqa: E402


def make(kind: str, count: int, out: Path, start: int = 0) -> None:
    folder = out / kind
    folder.mkdir(parents=True, exist_ok=True)
    labels_path = folder / "labels.json"
    labels = json.loads(labels_path.read_text()) if labels_path.exists() else {}
    make_one = tray_photo if kind == "tray" else table_view
    t0 = time.time()
    for i in range(start, start + count):
        name = f"{i:05d}.png"
        if name in labels:
            continue
        got = make_one(i)
        if got is None:
            continue
        image, dice, meta = got
        cv2.imwrite(str(folder / name), image)
        labels[name] = {"dice": dice, **meta}
        if (i + 1) % 100 == 0:
            labels_path.write_text(json.dumps(labels))
            print(f"{kind}: {i + 1 - start}/{count} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    labels_path.write_text(json.dumps(labels))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tray", type=int, default=1500)
    ap.add_argument("--table", type=int, default=1500)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "build")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    make("tray", args.tray, args.out)
    make("table", args.table, args.out)
