"""Time the dice stage alone on rendered 1280×720 table frames (the rest of `analyse` left out).

    python models/dice/time_stage.py [--count 60]

Each scene is rendered and calibrated from its markers; `scene.table_dice`, the dice stage of
`scene.analyse` (the warps to the dice views and the reading), is timed (models loaded first).
Prints p50 / p99 ms and the process's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from companion.vision.calibrate import from_markers
from companion.vision.dice import default_reader
from companion.vision.geometry import TableLayout
from companion.vision.render.draw import render
from companion.vision.render.scenes import LEVELS, random_scene
from companion.vision.scene import table_dice

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
        table_dice(image, cal, layout, 1.8)  # SceneSettings' die
        ms.append((time.perf_counter() - t) * 1000)
    print(f"dice stage (scene.table_dice: the warps and the reading), {len(ms)} frames: p50 {np.percentile(ms, 50):.1f} ms, "
          f"p99 {np.percentile(ms, 99):.1f} ms; peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB (renderer included)")
