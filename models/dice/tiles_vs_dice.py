"""Dice read where face-up tiles lie, and dice lost, when a photo has no markers.

    python models/dice/tiles_vs_dice.py DICE_DIR TILES_DIR [--tile-photos 40] [--models DIR]

Without a calibration nothing tells a die's size from a tile's: the dice reader takes a circles
tile's dots for pips, the tile recogniser a cluster of dice for a tile. `companion observe` keeps,
where a die's centre lies in a tile's box, the surer of the two readings, and among tiles it is
sure of drops "dice" far smaller than they are and "dice" read unsure of their face or cocked
(`scene.dice_among_tiles`). This prints both sides
of those rules: on the labelled dice photos (DICE_DIR, e.g. the team's real_dice
split) right / wrong face / spurious / missed before and after it, per part; on the first N photos
of each split of face-up tiles (TILES_DIR/<split>/images, e.g. real_tiles) the dice read before
and after it (every one of them is spurious: no die lies there).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).parent))
from eval_real import match  # noqa: E402
from realdata import photos  # noqa: E402

from companion.vision.dice import DiceReader  # noqa: E402
from companion.vision.scene import dice_among_tiles as kept  # noqa: E402
from companion.vision.scene import recognise_tiles  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dice_dir", type=Path)
    ap.add_argument("tiles_dir", type=Path)
    ap.add_argument("--tile-photos", type=int, default=40, help="photos per split of the tiles folder")
    ap.add_argument("--models", type=Path, help="folder with dice_detect.onnx and dice_face.onnx (default: the shipped)")
    a = ap.parse_args()
    reader = DiceReader(a.models)
    for part in ("val", "train"):
        counts = [[0] * 4, [0] * 4]
        for path, truth in photos(a.dice_dir, part):
            img = cv2.imread(str(path))
            dice = reader.read(img)
            tiles, _ = recognise_tiles(img)
            for k, got in enumerate((dice, kept(dice, tiles))):
                for i, found in enumerate(match(got, truth, 0.5)):
                    counts[k][i] += len(found)
        print(f"dice photos ({part}): right, wrong face, spurious, missed: before {counts[0]}, after {counts[1]}")
    for split in sorted(p.name for p in a.tiles_dir.iterdir() if (p / "images").is_dir()):
        before = after = n = 0
        for f in sorted((a.tiles_dir / split / "images").iterdir())[:a.tile_photos]:
            img = cv2.imread(str(f))
            if img is None:
                continue
            dice = reader.read(img)
            tiles, _ = recognise_tiles(img)
            n, before, after = n + 1, before + len(dice), after + len(kept(dice, tiles))
        print(f"tile photos ({split}, {n}): dice read before {before}, after {after}")


if __name__ == "__main__":
    main()
