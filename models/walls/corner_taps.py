"""How far off may the table corners set by hand be (the dashboard's /calibrate, or `[vision]
manual_corners`) before the walls are read wrong?

    python models/walls/corner_taps.py [--seed 300] [--count 30] [--levels easy,medium] [--off 0,15,25,40]

Draws the bench's scenes (`render.scenes.random_scene`, seeds `--seed` … `--seed + count - 1`,
each level in turn) without their corner markers, takes the table's four true corners in the
picture and moves each by up to `--off` pixels (a random direction and length, seeded), then
reads the scene calibrated from those corners (`calibrate.manual`, as the watcher does). A scene
counts as right when every wall's standing stacks and the break are read as they are. Prints
right/counted per level and distance.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import cv2
import numpy as np

from companion.vision.calibrate import manual
from companion.vision.render.draw import make_view, render
from companion.vision.render.scenes import random_scene, scene_variant
from companion.vision.scene import SceneSettings, analyse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=300)
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--levels", default="easy,medium")
    ap.add_argument("--off", default="0,15,25,40", help="largest distances (px) a corner is moved, comma-separated")
    args = ap.parse_args()
    offs = [float(v) for v in args.off.split(",")]
    rng = np.random.default_rng(0)
    right: dict[tuple[str, float], list[bool]] = {}
    for level in args.levels.split(","):
        for seed in range(args.seed, args.seed + args.count):
            sc = random_scene(seed, level)
            truth = sc.truth
            sc = replace(sc, markers=False)
            image, _ = render(sc)
            w, h = sc.table_size
            corners = make_view(sc.camera, sc.table_size).project([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]])
            settings = SceneSettings(scene_variant(truth["variant"]), truth["first_east_side"], truth["dealer"])
            for off in offs:
                angle = rng.uniform(0, 2 * np.pi, 4)
                length = rng.uniform(0, off, 4)
                moved = corners + np.stack([np.cos(angle), np.sin(angle)], 1) * length[:, None]
                walls = analyse(image, settings, calibration=manual(moved, sc.table_size), with_tiles=False).to_json()["walls"]
                walls = walls or {"seats": {}, "break": None}
                ok = (all(walls["seats"].get(s, {}).get("standing") == truth["walls"][s] for s in "ESWN")
                      and walls["break"] == truth["break"])
                right.setdefault((level, off), []).append(ok)
        print(f"  {level} done", flush=True)
    print(f"{'level':8} {'corners up to':>14} {'walls and break right':>22}")
    for (level, off), oks in right.items():
        print(f"{level:8} {off:11.0f} px {sum(oks):>14}/{len(oks)}")


if __name__ == "__main__":
    cv2.setNumThreads(2)
    main()
