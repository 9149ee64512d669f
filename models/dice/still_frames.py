"""Whether averaging a still scene's frames helps the table reading (sensor noise averaged out).

    python models/dice/still_frames.py [--seed 70000] [--level hard] [--count 170] [--frames 4]

Renders the bench's scenes (same seeds) `--frames` times, each frame with its own sensor noise
(`render(scene, frame=k)`; frame 0 is the bench's picture), and scores the reading of the first
frame alone and of the frames' mean as `companion bench scenes` does (`bench.score`). Prints
each scene read wrong either way and the counts per measure.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from companion.vision.bench import missed, score
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, scene_variant
from companion.vision.scene import SceneSettings, analyse, warm_up


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--level", default="hard")
    ap.add_argument("--count", type=int, default=170)
    ap.add_argument("--frames", type=int, default=4)
    args = ap.parse_args()
    warm_up()
    k = args.frames
    tally: dict[str, dict[str, list[int]]] = {"one": {}, "mean": {}}
    t0 = time.time()
    for i in range(args.count):
        sc = random_scene(args.seed + i, args.level)
        frames = [render(sc, frame=f) for f in range(k)]
        pixels = frames[0][1]
        truth = {**sc.truth, "dice": pixels["dice"], "hidden": pixels["hidden"]}
        settings = SceneSettings(scene_variant(truth["variant"]), truth["first_east_side"], truth["dealer"])
        mean = np.clip(np.mean([f[0].astype(np.float32) for f in frames], axis=0) + 0.5, 0, 255).astype(np.uint8)
        for key, image in (("one", frames[0][0]), ("mean", mean)):
            counts = score(analyse(image, settings, with_tiles=False).to_json(), truth)
            for m, (ok, n) in counts.items():
                got = tally[key].setdefault(m, [0, 0])
                got[0] += ok
                got[1] += n
            if wrong := missed(counts):
                print(f"  {args.level}-{args.seed + i}, {'one frame' if key == 'one' else f'mean of {k}'}: "
                      + ", ".join(wrong))
    print(f"{args.count} scenes, seed {args.seed}, {args.level} ({time.time() - t0:.0f} s): right / counted")
    for m, (ok, n) in tally["one"].items():
        ok2, n2 = tally["mean"].get(m, [0, 0])
        print(f"  {m:22} one frame {ok:4}/{n:<4}  mean of {k} frames {ok2:4}/{n2}")


if __name__ == "__main__":
    main()
