"""`companion bench scenes`: render table scenes, read them back, print accuracies and timings.

Each scene is rendered with its ground truth (`render.scenes.random_scene`), then only the
analysis (`scene.analyse`, as `companion observe` runs it, tiles left out) is timed: wall-clock
time (what a frame costs on this machine now, other work included) and the CPU time of this
process (what the code itself costs, less disturbed by other jobs). With `--tiles` the face-up
tiles are read too, in a second, separately timed pass (the live watcher reads them once per
still scene, not on every frame). With `--resting-hands` each scene is drawn and read once more
with a hand resting on a wall, which must not make the break read wrong. With `--misses DIR`
every scene read wrong is kept there (its frame and what was read against its truth) to be
looked at, or read again with `companion observe`.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import time
from pathlib import Path

import click
import numpy as np

from companion.vision.render.scenes import LEVELS

#: a hand covering this much of the East marker or the wind disc hides it: "not seen" is then right too
HIDDEN = 0.4


def score(obs: dict, truth: dict) -> dict[str, tuple[int, int]]:
    """(correct, counted) per measure for one scene."""
    out: dict[str, tuple[int, int]] = {}
    walls = obs.get("walls") or {"seats": {}, "break": None, "live_tiles": None, "loose": []}
    seats = walls["seats"]
    out["walls"] = (sum(seats.get(s, {}).get("standing") == truth["walls"][s] for s in "ESWN"), 4)
    if truth["break"] is not None and truth.get("break_at_corner"):
        # a split at a corner shows nothing on the table: "no break seen" is the right answer
        out["corner_split"] = (int(walls["break"] in (None, truth["break"])), 1)
    elif truth["break"] is not None:
        out["break"] = (int(walls["break"] == truth["break"]), 1)
        if walls["break"] == truth["break"] and truth["live_tiles"] is not None:
            out["live_tiles"] = (int(walls["live_tiles"] == truth["live_tiles"]), 1)
        if walls["break"] == truth["break"] and truth.get("loose"):
            out["loose"] = (int(sorted(map(tuple, walls["loose"])) == sorted(map(tuple, truth["loose"]))), 1)
    else:
        out["no_false_break"] = (int(walls["break"] is None), 1)
    if truth["dice"]:
        got = sorted((d["face"] if not d["cocked"] else 0, d["cocked"]) for d in obs["dice"])
        want = sorted((d["face"] if not d["cocked"] else 0, d["cocked"]) for d in truth["dice"])
        out["dice"] = (int(got == want), 1)
        read, needless = dice_read(obs["dice"], truth["dice"])
        out["dice_read"] = (int(read), 1)
        if any(not d["cocked"] for d in truth["dice"]):
            out["no_needless_rethrow"] = (int(not needless), 1)
        if any(d["cocked"] for d in truth["dice"]):
            out["cocked_flagged"] = (int(sum(d["cocked"] for d in obs["dice"]) == sum(d["cocked"] for d in truth["dice"])), 1)
    else:
        out["no_false_dice"] = (int(not obs["dice"]), 1)
    hidden = truth.get("hidden", {})
    for measure, key in (("east_marker", "east_marker"), ("wind", "wind_shown")):
        seen = obs[key]
        if hidden.get(measure, 0.0) >= HIDDEN:
            out[measure + "_hidden"] = (int(seen in (None, truth[key])), 1)
        else:
            out[measure] = (int(seen == truth[key]), 1)
    return out


def score_resting_hand(obs: dict, truth: dict) -> dict[str, tuple[int, int]]:
    """The walls under a hand resting on one of them: the break read right or not read, never
    wrong; none read before the break; how often it is still read right."""
    brk = (obs.get("walls") or {}).get("break")
    if truth["break"] is None or truth.get("break_at_corner"):
        return {"hand_no_false_break": (int(brk in (None, truth["break"])), 1)}
    return {"hand_break_not_wrong": (int(brk in (None, truth["break"])), 1),
            "hand_break_read": (int(brk == truth["break"]), 1)}


def _centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def dice_read(found: list[dict], truth: list[dict]) -> tuple[bool, bool]:
    """(every die found with its face right and every cocked die flagged, a flat die flagged cocked).

    The first is the "dice" measure without its one demand on flat dice: not to be flagged
    cocked. That mistake costs the players a needless re-throw of one die (R18), while a wrong
    face or a cocked die let through moves the break, so the bench counts the two apart. Each
    true die is paired with the nearest die found (dice lie at least a die apart)."""
    if len(found) != len(truth):
        return False, False
    left = list(range(len(found)))
    right, needless = True, False
    for t in truth:
        tx, ty = _centre(t["box"])
        i = min(left, key=lambda k: math.dist(_centre(found[k]["box"]), (tx, ty)))
        left.remove(i)
        d = found[i]
        if t["cocked"]:
            right &= d["cocked"]  # its face does not count: it is thrown again
        else:
            right &= d["face"] == t["face"]
            needless |= d["cocked"]
    return right, needless


def score_tiles(found: list[dict], truth: list[dict]) -> dict[str, tuple[int, int]]:
    """Face-up tiles: true tiles found (a box with IoU >= 0.5), boxes that are a tile, tiles named right."""
    from companion.vision.tiles.metrics import iou_matrix, match

    pred = np.asarray([t["box"] for t in found], np.float32).reshape(-1, 4)
    true = np.asarray([t["box"] for t in truth], np.float32).reshape(-1, 4)
    hits = 0
    if len(pred) and len(true):
        m, used = iou_matrix(pred, true), set()
        for i in np.argsort(-m.max(1)):
            j = int(np.argmax(m[i]))
            if m[i, j] >= 0.5 and j not in used:
                used.add(j)
                hits += 1
    named = match(pred, [t["tile"] for t in found], [t["score"] for t in found], true, [t["tile"] for t in truth])
    return {"tiles_found": (hits, len(true)), "tiles_boxes": (hits, len(pred)), "tiles_named": (named, len(true))}


MEASURES = ["walls", "break", "no_false_break", "corner_split", "live_tiles", "loose",
            "dice", "dice_read", "no_needless_rethrow", "cocked_flagged",
            "no_false_dice", "east_marker", "east_marker_hidden", "wind", "wind_hidden",
            "tiles_found", "tiles_boxes", "tiles_named",
            "hand_break_not_wrong", "hand_break_read", "hand_no_false_break"]
NAMES = {"walls": "stack count per wall", "break": "break position", "no_false_break": "no break seen before it",
         "corner_split": "split at a corner: none seen", "live_tiles": "live tiles (break right)",
         "loose": "loose tiles (lift style)", "dice": "dice faces (+cocked flag)",
         "dice_read": "  faces right, cocked flagged", "no_needless_rethrow": "  no flat die flagged cocked",
         "cocked_flagged": "cocked die flagged", "no_false_dice": "no dice seen when none",
         "east_marker": "East marker seat", "east_marker_hidden": "  under a hand: right/none",
         "wind": "wind disc", "wind_hidden": "  under a hand: right/none",
         "tiles_found": "face-up tiles found", "tiles_boxes": "  boxes that are a tile", "tiles_named": "  tiles named right",
         "hand_break_not_wrong": "hand on a wall: break not wrong", "hand_break_read": "  break read right",
         "hand_no_false_break": "  no break seen before it"}


#: measures of how often something is read, where not reading it is no mistake
NOT_MISTAKES = {"hand_break_read"}


def missed(counts: dict[str, tuple[int, int]]) -> list[str]:
    """The measures one scene got wrong (its `score`/`score_resting_hand` counts)."""
    return [m for m, (ok, n) in counts.items() if ok < n and m not in NOT_MISTAKES]


def keep_miss(folder: Path, name: str, image: np.ndarray, truth: dict, obs: dict, measures: list[str],
              covered: tuple[np.ndarray, dict] | None = None) -> None:
    """Write a scene read wrong into `folder`: NAME.png (the frame), NAME-hand.png (the frame with
    the resting hand, when it was read too: `covered` is that frame and its reading) and NAME.json
    (the measures missed, the truth, what was read and the `companion observe` command that reads
    the frame again as the bench did; a variant the renderer made up is written beside it as TOML)."""
    import cv2
    import tomli_w

    from companion.rules.variant import builtin_names
    from companion.validation import without_none
    from companion.vision.render.scenes import scene_variant
    from companion.vision.samples import plain_json

    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{name}.png"), image)
    variant = truth["variant"]
    if variant not in builtin_names():
        (folder / f"{variant}.toml").write_text(tomli_w.dumps(without_none(scene_variant(variant).to_dict())))
        variant = str(folder / f"{variant}.toml")
    again = ["companion", "observe", str(folder / f"{name}.png"), "--variant", variant,
             "--first-east-side", truth["first_east_side"], "--dealer", str(truth["dealer"]), "--json"]
    record = {"measures": measures, "observe": again, "truth": truth, "read": obs}
    if covered is not None:
        cv2.imwrite(str(folder / f"{name}-hand.png"), covered[0])
        record["read_with_hand"] = covered[1]
    (folder / f"{name}.json").write_text(json.dumps(record, default=plain_json) + "\n")


def _teach_the_art() -> dict:
    """Teach the process's tile recogniser the renderer's tile art from one synthetic layout
    photo, through the players' flow (detector -> layout rows -> names -> fitted head)."""
    from companion.vision.render.tiles import art_installed
    from companion.vision.scene import tile_recognizer
    from companion.vision.tiles.synth import layout_photo
    from companion.vision.tiles.teach import teach

    if not art_installed():
        raise click.ClickException("--teach needs the render extra's tile art: pip install -e '.[render]'")
    rec = tile_recognizer()
    image, _, _ = layout_photo(np.random.default_rng(1), art="riichi")
    rec.taught = teach(rec, [image], seed=1)
    return rec.taught.info


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 1)


@click.command("scenes")
@click.option("--count", type=click.IntRange(3, 100000), default=510, show_default=True,
              help="Scenes in all, split evenly over the difficulty levels.")
@click.option("--seed", type=int, default=0, show_default=True, help="First scene seed.")
@click.option("--levels", default=",".join(LEVELS), show_default=True, help="Difficulty levels to run.")
@click.option("--tiles", "with_tiles", is_flag=True,
              help="Also read the face-up tiles (discards) and score them; timed apart from the frame.")
@click.option("--teach", "teach_first", is_flag=True,
              help="With --tiles: first teach the discards' tile art from one layout photo (as `bench teach` "
                   "does; needs the render extra), then name the tiles with the taught set.")
@click.option("--resting-hands", is_flag=True,
              help="Also read each scene again with a hand resting on a wall (`render.scenes.resting_hand`) and "
                   "score the break there; not timed.")
@click.option("--hand-colour", type=click.Choice(["skin", "felt"]), default="skin", show_default=True,
              help="With --resting-hands: the hands' colour; 'felt' draws each in its table's felt colour, which "
                   "the wall reader cannot tell from the felt (a known limit).")
@click.option("--camera-height", "measured_height", is_flag=True,
              help="Read each scene with its camera's height as an installer would measure it (`[vision] "
                   "camera_height_cm`: the drawn height to the centimetre) instead of estimating it.")
@click.option("--misses", type=click.Path(file_okay=False, path_type=Path),
              help="Write each scene read wrong into this folder (LEVEL-SEED.png, and .json with the measures "
                   "missed, the truth and what was read) and list them.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def scenes(count, seed, levels, with_tiles, teach_first, resting_hands, hand_colour, measured_height, misses,
           as_json):
    """Accuracy of the table reading per difficulty level, time per 1280×720 frame and memory."""
    import cv2

    from companion.vision.render.draw import FELT, make_view, render
    from companion.vision.render.scenes import random_scene, resting_hand, scene_variant
    from companion.vision.scene import SceneSettings, analyse, warm_up

    chosen = list(dict.fromkeys(lv.strip() for lv in levels.split(",") if lv.strip()))  # each level once
    bad = [lv for lv in chosen if lv not in LEVELS]
    if bad or not chosen:
        raise click.BadParameter(f"unknown level {bad[0]!r} (levels: {', '.join(LEVELS)})" if bad else
                                 f"name at least one level ({', '.join(LEVELS)})", param_hint="--levels")
    per = max(1, count // len(chosen))
    load_before = os.getloadavg()
    report: dict = {"scenes": per * len(chosen), "levels": {},
                    "camera_height": "measured" if measured_height else "estimated",
                    "cv2_threads": cv2.getNumThreads(), "cpus": os.cpu_count(),
                    "load_before": [round(v, 2) for v in load_before], "misses": []}
    if teach_first:
        if not with_tiles:
            raise click.BadParameter("only with --tiles", param_hint="--teach")
        report["taught"] = _teach_the_art()
    warm_up()  # templates and detectors are built once, before the first frame
    all_ms: list[float] = []
    all_cpu: list[float] = []
    done = 0
    for level in chosen:
        tally = {m: [0, 0] for m in MEASURES}
        ms, cpu, tiles_ms = [], [], []
        for i in range(per):
            sc = random_scene(seed + i, level)
            image, pixels = render(sc)
            # the dice as drawn, with their boxes in the frame (`dice_read` pairs them by place)
            t = {**sc.truth, "dice": pixels["dice"], "hidden": pixels["hidden"]}
            settings = SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"],
                                     camera_height_cm=round(abs(make_view(sc.camera, sc.table_size).centre[2]))
                                     if measured_height else None)
            c0, t0 = time.process_time(), time.perf_counter()
            obs = analyse(image, settings, with_tiles=False).to_json()
            ms.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            counts = score(obs, t)
            if with_tiles:
                t0 = time.perf_counter()
                with_them = analyse(image, settings, with_tiles=True).to_json()
                tiles_ms.append(max(0.0, (time.perf_counter() - t0) * 1000 - ms[-1]))
                if pixels["tiles"] or with_them["tiles"]:
                    counts.update(score_tiles(with_them["tiles"], pixels["tiles"]))
            hand = None
            if resting_hands:
                colour = FELT[sc.look.felt % len(FELT)] if hand_colour == "felt" else None
                covered, _ = render(resting_hand(sc, seed + i, colour))
                hand = (covered, analyse(covered, settings, with_tiles=False).to_json())
                counts.update(score_resting_hand(hand[1], t))
            if wrong := missed(counts):
                name = f"{level}-{seed + i}"
                report["misses"].append({"scene": name, "level": level, "seed": seed + i, "measures": wrong})
                if misses is not None:
                    keep_miss(misses, name, image, t, with_them if with_tiles else obs, wrong,
                              hand if any(m.startswith("hand_") for m in wrong) else None)
            for m, (ok, n) in counts.items():
                tally[m][0] += ok
                tally[m][1] += n
            done += 1
            if done % 50 == 0:
                click.echo(f"  {done}/{per * len(chosen)} scenes …", err=True)
        all_ms += ms
        all_cpu += cpu
        report["levels"][level] = {
            "scenes": per,
            **{m: {"correct": c, "of": n, "pct": round(100 * c / n, 2) if n else None} for m, (c, n) in tally.items()},
            "ms_p50": _pct(ms, 50), "ms_p99": _pct(ms, 99), "cpu_ms_p50": _pct(cpu, 50), "cpu_ms_p99": _pct(cpu, 99),
        }
        if tiles_ms:
            report["levels"][level].update(tiles_ms_p50=_pct(tiles_ms, 50), tiles_ms_p99=_pct(tiles_ms, 99))
    report.update(ms_p50=_pct(all_ms, 50), ms_p99=_pct(all_ms, 99), ms_max=round(max(all_ms), 1),
                  cpu_ms_p50=_pct(all_cpu, 50), cpu_ms_p99=_pct(all_cpu, 99))
    report["fps_at_p50"] = round(1000 / report["ms_p50"], 1)
    report["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    report["load_after"] = [round(v, 2) for v in os.getloadavg()]
    if as_json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    click.echo(f"{report['scenes']} rendered scenes, 1280×720; exact-match accuracy per level (correct/counted)")
    if "taught" in report:
        click.echo(f"tiles named by a set taught from one layout photo ({report['taught']})")
    if measured_height:
        click.echo("the camera's height given as measured (--camera-height), not estimated from the markers")
    click.echo(f"{'measure':30}" + "".join(f"{lv:>20}" for lv in chosen))
    for m in MEASURES:
        if not any(report["levels"][lv][m]["of"] for lv in chosen):
            continue
        row = f"{NAMES[m]:30}"
        for lv in chosen:
            e = report["levels"][lv][m]
            row += f"{(str(e['pct']) + ' %') if e['of'] else '—':>9} ({e['correct']}/{e['of']})".rjust(20)
        click.echo(row)
    timings = [("ms", "ms per frame p50 / p99"), ("cpu_ms", "CPU ms per frame p50 / p99")]
    if with_tiles:
        timings.append(("tiles_ms", "ms for the tiles p50 / p99"))
    for key, label in timings:
        click.echo(f"{label:30}" + "".join(
            f"{report['levels'][lv][key + '_p50']:>12} / {report['levels'][lv][key + '_p99']:<6}" for lv in chosen))
    click.echo(f"all: p50 {report['ms_p50']} ms, p99 {report['ms_p99']} ms, max {report['ms_max']} ms per frame "
               f"({report['fps_at_p50']} frames/s at p50); CPU p50 {report['cpu_ms_p50']} ms, p99 {report['cpu_ms_p99']} ms; "
               f"peak memory {report['peak_rss_mib']} MiB (renderer included)")
    click.echo(f"machine: {report['cpus']} CPUs, OpenCV threads {report['cv2_threads']}, load average "
               f"{report['load_before'][0]} before, {report['load_after'][0]} after")
    if misses is not None:
        click.echo(f"scenes read wrong: {len(report['misses'])}, kept in {misses}" + "".join(
            f"\n  {m['scene']}: {'; '.join(NAMES[k].strip() for k in m['measures'])}" for m in report["misses"]))
