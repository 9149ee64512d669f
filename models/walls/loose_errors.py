"""How often the loose tiles of whole rendered scenes are read exactly, and which are not.

    python models/walls/loose_errors.py [--seed 60000] [--count 1500] [--levels hard] [--taken N]
                                        [--model FILE] [--list]

Draws the bench's scenes (`render.scenes.random_scene`, seeds `--seed` … `--seed + count - 1`,
each level in turn) and reads those of the lift style with loose tiles (R19) as `companion
bench scenes` does (`scene.analyse`): a scene counts when its break is read right, and is
right when its loose tiles are found on the right stacks and no other. `--taken 1` draws each
dead wall with one of its two loose tiles already taken (R21, as after a kong), where a tile
too many can be read. Scenes without loose tiles are skipped before they are drawn, so larger
sets than the bench's are cheap (about a minute per 500 seeds on two cores). `--model` reads with another loose-tile model (an ONNX file
from `train_loose.py`), to compare candidates; `--list` prints each scene read wrong.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from companion.vision import bench, loose  # noqa: E402
from companion.vision import scene as table_scene  # noqa: E402
from companion.vision.render.draw import render  # noqa: E402
from companion.vision.render.scenes import LEVELS, random_scene, scene_variant  # noqa: E402


def read_level(first: int, count: int, level: str, taken: int, show: bool) -> tuple[int, int]:
    """(scenes read exactly, scenes counted) at one level."""
    right = counted = 0
    for seed in range(first, first + count):
        sc = random_scene(seed, level, loose_taken=taken)
        t = sc.truth
        if not t.get("loose") or t["break"] is None or t.get("break_at_corner"):
            continue
        image, pixels = render(sc)
        settings = table_scene.SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])
        obs = table_scene.analyse(image, settings, with_tiles=False).to_json()
        # the bench's own verdict (`bench.score`: counted only where the break was read right)
        verdict = bench.score(obs, {**t, "dice": pixels["dice"], "hidden": pixels["hidden"]}).get("loose")
        if verdict is None:
            continue
        counted += 1
        right += verdict[0]
        if show and not verdict[0]:
            got, want = sorted(map(tuple, obs["walls"]["loose"])), sorted(map(tuple, t["loose"]))
            print(f"  {level} {seed}: break {t['break']}, loose tiles on {want}, read on {got}", flush=True)
    return right, counted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=60_000, help="first scene seed")
    ap.add_argument("--count", type=int, default=1500, help="seeds per level (about a third are of the lift style)")
    ap.add_argument("--levels", default="hard", help=f"comma-separated, of {', '.join(LEVELS)}")
    ap.add_argument("--taken", type=int, default=0, choices=(0, 1), help="loose tiles already taken from each dead wall")
    ap.add_argument("--model", type=Path, help="a loose-tile model to read with instead of the shipped one")
    ap.add_argument("--list", action="store_true", help="print each scene read wrong")
    args = ap.parse_args()
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    if not levels or any(lv not in LEVELS for lv in levels):
        ap.error(f"--levels: name levels of {', '.join(LEVELS)}")
    if args.model is not None:
        if not args.model.is_file():
            ap.error(f"--model: no file {args.model}")
        loose.MODEL_FILE = args.model  # read when the model is first loaded
    for level in levels:
        right, counted = read_level(args.seed, args.count, level, args.taken, args.list)
        share = f"{100 * right / counted:.2f} %" if counted else "—"
        print(f"{level} (seeds {args.seed}–{args.seed + args.count - 1}): loose tiles read exactly in "
              f"{right} of {counted} scenes, {share}", flush=True)


if __name__ == "__main__":
    main()
