"""Time the dice stage alone on rendered 1280×720 table frames (the rest of `analyse` left out).

    python models/dice/time_stage.py [--count 60]

Each scene is rendered, calibrated from its markers and warped to the top-down view of the
square as `scene.analyse` does; only `find_dice` on that view is timed (models loaded first).
Prints p50 / p99 ms and the process's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from companion.vision.calibrate import from_markers
from companion.vision.dice import default_reader, find_dice
from companion.vision.geometry import TableLayout
from companion.vision.render.draw import render
from companion.vision.render.scenes import LEVELS, random_scene
from companion.vision.scene import DICE_PX_PER_CM, dice_view, dice_view_foot

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=60)
    args = ap.parse_args()
    default_reader()
    ms = []
    for i in range(args.count):
        sc = random_scene(i, LEVELS[i % 3])
        image, _ = render(sc)
        cal = from_markers(image)
        if cal is None or not cal.calibrated:
            continue
        layout = TableLayout(cal.table_size, sc.stacks)
        t = time.perf_counter()
        view, _ = dice_view(image, cal, layout)
        find_dice(view, die_px=1.8 * 1.03 * DICE_PX_PER_CM, foot=dice_view_foot(cal, layout))
        ms.append((time.perf_counter() - t) * 1000)
    print(f"dice stage (warp to the square + find_dice), {len(ms)} frames: p50 {np.percentile(ms, 50):.1f} ms, "
          f"p99 {np.percentile(ms, 99):.1f} ms; peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB (renderer included)")
