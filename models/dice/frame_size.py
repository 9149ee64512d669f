"""Whether more camera pixels help the dice reader on the rendered table.

    python models/dice/frame_size.py [--seed 70000] [--level hard] [--count 170] [--factor 2]

Renders the bench's scenes (same seeds) at `factor` times 1280 × 720 (lens blur scaled with it,
as a sharper sensor behind the same lens would see the table), then reads the dice twice: on the
dice view warped from that frame, and on the one warped from the same frame shrunk to 1280 × 720
(each calibrated from its own markers). Prints the bench's "dice exact" for both and the mistakes
by kind (`scene_errors.py`; without the wider look for dice cut off, so a die cut so counts
missed), and each scene read wrong either way.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import scene_errors  # noqa: E402
from synth import view_truth  # noqa: E402

from companion.vision import dice as reader  # noqa: E402
from companion.vision import scene as table_scene  # noqa: E402
from companion.vision.calibrate import from_markers  # noqa: E402
from companion.vision.geometry import TableLayout  # noqa: E402
from companion.vision.render.draw import render  # noqa: E402
from companion.vision.render.scenes import random_scene, scene_variant  # noqa: E402
from companion.vision.scene import SceneSettings, dice_view_foot  # noqa: E402

BASE = (1280, 720)


def shrunk_truth(truth: dict, factor: float) -> dict:
    """The pixel ground truth of a frame `factor` times larger, for the frame shrunk to BASE."""
    out = copy.deepcopy(truth)
    for d in out["dice"]:
        d["corners"] = (np.asarray(d["corners"], float) / factor).tolist()
    for t in out["tiles"]:
        t["box"] = [v / factor for v in t["box"]]
    return out


def read(rd, image, truth, settings, name, level, scene_truth):
    """(scene record as `scene_errors.judge` takes it, readings), or None when not calibrated."""
    cal = from_markers(image)
    if cal is None or not cal.calibrated:
        return None
    layout = TableLayout(cal.table_size, settings.variant.stacks_per_wall, settings.tile)
    view, dice, tiles = view_truth(image, truth, cal, layout)
    die_px = settings.die_cm * 1.03 * table_scene.DICE_PX_PER_CM
    record = {"name": name, "level": level, "dice": dice, "tiles": tiles, "truth_dice": scene_truth["dice"]}
    cands = scene_errors.candidates(rd, view, die_px, dice_view_foot(cal, layout))
    return record, scene_errors.read_view(cands, die_px, view.shape[:2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--level", default="hard")
    ap.add_argument("--count", type=int, default=170)
    ap.add_argument("--factor", type=float, default=2.0)
    args = ap.parse_args()
    f = args.factor
    size = (int(BASE[0] * f), int(BASE[1] * f))
    rd = reader.DiceReader(None)
    results: dict[str, list] = {"large": [], "shrunk": []}
    t0 = time.time()
    for i in range(args.count):
        sc = random_scene(args.seed + i, args.level, size=size)
        sc.look = replace(sc.look, blur=sc.look.blur * f)
        image, truth = render(sc)
        small = cv2.resize(image, BASE, interpolation=cv2.INTER_AREA)
        settings = SceneSettings(scene_variant(sc.truth["variant"]))
        name = f"{args.level}-{args.seed + i}"
        large = read(rd, image, truth, settings, name, args.level, sc.truth)
        shrunk = read(rd, small, shrunk_truth(truth, f), settings, name, args.level, sc.truth)
        if large is None or shrunk is None:
            print(f"{name}: not calibrated, left out", file=sys.stderr)
            continue
        results["large"].append(large)
        results["shrunk"].append(shrunk)
        a, b = scene_errors.judge(*large), scene_errors.judge(*shrunk)
        if not (a[0] and b[0]):
            print(f"{name}: {size[0]}x{size[1]} {dict(a[1]) or 'right'}, shrunk {dict(b[1]) or 'right'}")
        if (i + 1) % 50 == 0:
            print(f"  {i + 1}/{args.count} ({time.time() - t0:.0f} s)", file=sys.stderr)
    for key, label in (("large", f"{size[0]} x {size[1]}"), ("shrunk", "shrunk to 1280 x 720")):
        scene_errors.report([r for r, _ in results[key]], [g for _, g in results[key]],
                            f"seed {args.seed}, {args.level}, dice read on a frame {label}")


if __name__ == "__main__":
    main()
