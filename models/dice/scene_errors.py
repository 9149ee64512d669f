"""Where the dice reader goes wrong on the bench's rendered table scenes, by kind of mistake.

    python models/dice/scene_errors.py [--seed 0] [--count 510] [--reach CM] [--cache DIR] [--models DIR] [--show OUT]

Renders the scenes `companion bench scenes` renders (same seeds, same levels), warps each to the
top-down view of the square that `scene.analyse` gives the reader (reaching `--reach` cm past the
walls' faces, default `scene.DICE_VIEW_REACH`), and reads the dice there as it does
(`dice.judge`, then `dice.on_table`; not its second, wider look for dice cut off by the
view's edge, `scene.dice_cut_off`, so a die cut so counts missed here). The views and their truth are cached (`--cache`, default
build/scenes-<seed>-<count>-reach<cm>), so a second run only reads. Prints the bench's "dice
exact" and "no dice seen when none" per level and counts per mistake: a die missed, a die read
where there is none (on a face-up tile or elsewhere), a flat die read with the wrong face, a flat
die flagged cocked, a cocked die not flagged; then the lowest cocked probabilities of cocked dice
and the highest of flat ones, against the flag's cut.
`--show OUT` writes the views with mistakes drawn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from companion.vision import dice as reader
from companion.vision import scene as table_scene

HERE = Path(__file__).parent
MATCH_IOU = 0.3  # a reading is of a labelled die when their boxes overlap this much


def render_views(seed: int, count: int, cache: Path) -> list[dict]:
    """The bench's scenes as the reader sees them: [{name, level, die_px, dice, tiles}], views as PNGs."""
    from synth import view_truth

    from companion.vision.calibrate import from_markers
    from companion.vision.geometry import TableLayout
    from companion.vision.render.draw import render
    from companion.vision.render.scenes import LEVELS, random_scene, scene_variant
    from companion.vision.scene import SceneSettings, dice_view_foot

    index = cache / "index.json"
    if index.exists():
        scenes = json.loads(index.read_text())
        if any("foot" not in sc for sc in scenes):  # cached before the reader took the camera's foot
            print(f"{cache}: no camera foot stored, the views' middle is taken; delete it to render anew",
                  file=sys.stderr)
        return scenes
    cache.mkdir(parents=True, exist_ok=True)
    per = max(1, count // len(LEVELS))
    out, t0 = [], time.time()
    for level in LEVELS:
        for i in range(per):
            sc = random_scene(seed + i, level)
            image, pixels = render(sc)
            cal = from_markers(image)
            if cal is None or not cal.calibrated:
                print(f"{level} {seed + i}: not calibrated, left out", file=sys.stderr)
                continue
            s = SceneSettings(scene_variant(sc.truth["variant"]))
            layout = TableLayout(cal.table_size, s.variant.stacks_per_wall, s.tile)
            view, dice, tiles = view_truth(image, pixels, cal, layout)
            name = f"{level}-{seed + i:05d}.png"
            cv2.imwrite(str(cache / name), view)
            out.append({"name": name, "level": level, "die_px": s.die_cm * 1.03 * table_scene.DICE_PX_PER_CM,
                        "dice": dice, "tiles": tiles, "truth_dice": sc.truth["dice"], "foot": dice_view_foot(cal, layout)})
            if len(out) % 50 == 0:
                print(f"  rendered {len(out)}/{per * len(LEVELS)} ({time.time() - t0:.0f} s)", file=sys.stderr)
    index.write_text(json.dumps(out))
    return out


def candidates(rd: reader.DiceReader, view: np.ndarray, die_px: float, foot=None) -> list[dict]:
    """Every detection before the keep rule: centre score, box and the face model's probabilities."""
    return [{"s": s, "box": b, "p": p.tolist()} for s, b, p in rd.candidates(view, die_px, foot)]


def tile_cover(box, tiles) -> float:
    """How much of the box lies on face-up tiles (0..1)."""
    area = max(1e-6, (box[2] - box[0]) * (box[3] - box[1]))
    best = 0.0
    for t in tiles:
        w = max(0.0, min(box[2], t[2]) - max(box[0], t[0]))
        h = max(0.0, min(box[3], t[3]) - max(box[1], t[1]))
        best = max(best, w * h / area)
    return best


def judge(scene: dict, readings: list[dict]) -> tuple[bool, Counter]:
    """(bench's exact verdict, mistakes by kind) for one view; readings: [{face, cocked, box}]."""
    got = sorted((d["face"] if not d["cocked"] else 0, d["cocked"]) for d in readings)
    want = sorted((d["face"] if not d["cocked"] else 0, d["cocked"]) for d in scene["truth_dice"])
    kinds: Counter = Counter()
    used: set[int] = set()
    for d in readings:
        best, j = 0.0, -1
        for i, t in enumerate(scene["dice"]):
            if i not in used and (v := reader._iou(d["box"], t["box"])) > best:
                best, j = v, i
        if best < MATCH_IOU:
            kinds["spurious on a tile" if tile_cover(d["box"], scene["tiles"]) > 0.3 else "spurious elsewhere"] += 1
            continue
        used.add(j)
        t = scene["dice"][j]
        if t["cocked"] and not d["cocked"]:
            kinds["cocked not flagged"] += 1
        elif not t["cocked"] and d["cocked"]:
            kinds["flat flagged cocked"] += 1
        elif not t["cocked"] and d["face"] != t["face"]:
            kinds["wrong face"] += 1
    kinds["missed"] += sum(1 for i in range(len(scene["dice"])) if i not in used)
    return got == want, +kinds


def keep(c: dict) -> dict | None:
    """The reader's verdict (`dice.judge`) on one candidate: a reading, or None when dropped."""
    ok, cocked = reader.judge(c["s"], c["p"])
    return {"face": int(np.argmax(c["p"][1:7])) + 1, "cocked": cocked, "box": c["box"]} if ok else None


def read_view(cands: list[dict], die_px: float, size: tuple[int, int]) -> list[dict]:
    """The readings `scene.analyse` keeps from one view's candidates: `keep`, then `dice.on_table`
    (the cocked flag only on a die with something to lean on)."""
    got = [reader.DieReading(r["face"], r["box"], r["cocked"], ((r["box"][0] + r["box"][2]) / 2,
                                                              (r["box"][1] + r["box"][3]) / 2), c["s"], c["p"][7])
           for c in cands if (r := keep(c))]
    return [{"face": d.face, "cocked": d.cocked, "box": d.box} for d in reader.on_table(got, die_px, size, table_scene.dice_view_faces_in())]


def report(scenes: list[dict], all_readings: list[list[dict]], title: str) -> dict:
    levels: dict[str, list[int]] = {}
    kinds: Counter = Counter()
    for sc, rs in zip(scenes, all_readings):
        ok, k = judge(sc, rs)
        key = sc["level"] + (" dice" if sc["truth_dice"] else " none")
        levels.setdefault(key, [0, 0])
        levels[key][0] += ok
        levels[key][1] += 1
        kinds.update(k)
    print(title)
    for key in sorted(levels):
        c, n = levels[key]
        print(f"  {key:12} {100 * c / n:6.2f} % ({c}/{n})")
    print("  mistakes: " + (", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "none"))
    return {"levels": levels, "kinds": dict(kinds)}


def cocked_margin(scenes: list[dict], all_cands: list[list[dict]], shown: int = 5) -> None:
    """How far the cocked flag's cut on a table (`dice.LEANING_COCKED_P`) lies from the dice it must
    split: the lowest cocked probabilities of truly cocked dice and the highest of flat ones."""
    cocked, flat = [], []
    for sc, cs in zip(scenes, all_cands):
        for t in sc["dice"]:
            best, c = max(((reader._iou(c["box"], t["box"]), c) for c in cs), default=(0.0, None), key=lambda v: v[0])
            if best >= MATCH_IOU:
                (cocked if t["cocked"] else flat).append((c["p"][7], sc["name"]))
    cocked.sort()
    flat.sort(reverse=True)
    print(f"  P(cocked) against the cut for a die with something to lean on, {reader.LEANING_COCKED_P}:")
    print(f"    cocked dice ({len(cocked)}), lowest: " + ", ".join(f"{p:.3f} {n}" for p, n in cocked[:shown]))
    print(f"    flat dice ({len(flat)}), highest: " + ", ".join(f"{p:.3f} {n}" for p, n in flat[:shown]))


def show(scenes, all_readings, cache: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for sc, rs in zip(scenes, all_readings):
        ok, _ = judge(sc, rs)
        if ok:
            continue
        img = cv2.imread(str(cache / sc["name"]))
        for t in sc["dice"]:
            b = [int(v) for v in t["box"]]
            cv2.rectangle(img, b[:2], b[2:], (0, 200, 0), 1)
            cv2.putText(img, f"{t['face']}{'c' if t['cocked'] else ''}", (b[0], b[3] + 10), 0, 0.35, (0, 160, 0), 1)
        for d in rs:
            b = [int(v) for v in d["box"]]
            cv2.rectangle(img, b[:2], b[2:], (0, 0, 255), 1)
            cv2.putText(img, f"{d['face']}{'c' if d['cocked'] else ''}", (b[0], b[1] - 2), 0, 0.35, (0, 0, 255), 1)
        cv2.imwrite(str(out / sc["name"]), img)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=510)
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--reach", type=float, help="cm the dice view reaches past the walls' faces (default: as shipped, "
                    f"{table_scene.DICE_VIEW_REACH})")
    ap.add_argument("--models", type=Path, help="folder with dice_detect.onnx and dice_face.onnx")
    ap.add_argument("--show", type=Path, help="write the views with mistakes drawn into this folder")
    ap.add_argument("--dump", type=Path, help="write every candidate (score, box, probabilities) as JSON")
    args = ap.parse_args()
    if args.reach is not None:  # the views, their cache and the reader's drop rule (`dice_view_faces_in`) follow it
        table_scene.DICE_VIEW_REACH = args.reach
    reach = table_scene.DICE_VIEW_REACH
    cache = args.cache or HERE / "build" / f"scenes-{args.seed}-{args.count}-reach{reach:+.1f}"
    scenes = render_views(args.seed, args.count, cache)
    rd = reader.DiceReader(args.models)
    cands, readings = [], []
    for sc in scenes:
        view = cv2.imread(str(cache / sc["name"]))
        cands.append(candidates(rd, view, sc["die_px"], sc.get("foot")))
        readings.append(read_view(cands[-1], sc["die_px"], view.shape[:2]))
    report(scenes, readings, f"{len(scenes)} scenes from seed {args.seed}: dice exact / none seen")
    cocked_margin(scenes, cands)
    if args.dump:
        args.dump.write_text(json.dumps(cands))
    if args.show:
        show(scenes, readings, cache, args.show)
