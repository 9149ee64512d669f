"""The dice reader on whole rendered table frames read as photos without markers.

    python models/dice/whole_frames.py [--count 45]

What `companion observe` does with a photo of the whole table whose markers are not in view:
the frame is read as a tray photo (no die size, the camera's foot in its middle). Scenes are the
bench's (`random_scene(i, level)`, levels in turn); a reading counts as right when its box
overlaps a die's by IoU ≥ 0.3 and the face agrees (any face of a cocked die). Prints the counts
and the time per frame: the README's figure for why a table needs its markers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from companion.vision.dice import DiceReader, _iou
from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene

LEVELS = ("easy", "medium", "hard")


def main(count: int) -> None:
    reader = DiceReader()
    right = wrong = spurious = missed = 0
    times = []
    for i in range(count):
        img, truth = render(random_scene(i, LEVELS[i % 3]))
        dice = truth.get("dice", [])
        t = time.perf_counter()
        got = reader.read(img)
        times.append((time.perf_counter() - t) * 1000)
        used: set[int] = set()
        for d in got:
            best, j = max(((_iou(d.box, t_["box"]), j) for j, t_ in enumerate(dice) if j not in used),
                          default=(0.0, -1))
            if best < 0.3:
                spurious += 1
                continue
            used.add(j)
            if dice[j]["face"] == d.face or dice[j].get("cocked"):
                right += 1
            else:
                wrong += 1
        missed += len(dice) - len(used)
    print(f"{count} frames, {right + wrong + missed} dice: right {right}, wrong face {wrong}, "
          f"readings of no die {spurious}, missed {missed}; ms per frame p50 {np.median(times):.0f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=45)
    main(ap.parse_args().count)
