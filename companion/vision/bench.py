"""`companion bench scenes`: render table scenes, read them back, print accuracies and timings.

Each scene is rendered with its ground truth (`render.scenes.random_scene`), then only the
analysis (`scene.analyse`, as `companion observe` runs it, tiles left out) is timed.
"""

from __future__ import annotations

import json
import resource
import sys
import time

import click
import numpy as np

from companion.vision.render.scenes import LEVELS


def score(obs: dict, truth: dict) -> dict[str, tuple[int, int]]:
    """(correct, counted) per measure for one scene."""
    out: dict[str, tuple[int, int]] = {}
    walls = obs.get("walls") or {"seats": {}, "break": None, "live_tiles": None}
    seats = walls["seats"]
    out["walls"] = (sum(seats.get(s, {}).get("standing") == truth["walls"][s] for s in "ESWN"), 4)
    if truth["break"] is not None:
        out["break"] = (int(walls["break"] == truth["break"]), 1)
        if walls["break"] == truth["break"] and truth["live_tiles"] is not None:
            out["live_tiles"] = (int(walls["live_tiles"] == truth["live_tiles"]), 1)
    else:
        out["no_false_break"] = (int(walls["break"] is None), 1)
    if truth["dice"]:
        got = sorted((d["face"] if not d["cocked"] else 0, d["cocked"]) for d in obs["dice"])
        want = sorted((d["face"] if not d["cocked"] else 0, d["cocked"]) for d in truth["dice"])
        out["dice"] = (int(got == want), 1)
        if any(d["cocked"] for d in truth["dice"]):
            out["cocked_flagged"] = (int(sum(d["cocked"] for d in obs["dice"]) == sum(d["cocked"] for d in truth["dice"])), 1)
    else:
        out["no_false_dice"] = (int(not obs["dice"]), 1)
    out["east_marker"] = (int(obs["east_marker"] == truth["east_marker"]), 1)
    out["wind"] = (int(obs["wind_shown"] == truth["wind_shown"]), 1)
    return out


MEASURES = ["walls", "break", "no_false_break", "live_tiles", "dice", "cocked_flagged", "no_false_dice",
            "east_marker", "wind"]


@click.command("scenes")
@click.option("--count", type=click.IntRange(3, 100000), default=510, show_default=True,
              help="Scenes in all, split evenly over the difficulty levels.")
@click.option("--seed", type=int, default=0, show_default=True, help="First scene seed.")
@click.option("--levels", default=",".join(LEVELS), show_default=True, help="Difficulty levels to run.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def scenes(count, seed, levels, as_json):
    """Accuracy of the table reading per difficulty level, time per 1280×720 frame and memory."""
    import cv2

    from companion.vision.render.draw import render
    from companion.vision.render.scenes import random_scene, scene_variant
    from companion.vision.scene import SceneSettings, analyse

    chosen = [lv.strip() for lv in levels.split(",") if lv.strip()]
    bad = [lv for lv in chosen if lv not in LEVELS]
    if bad:
        raise click.BadParameter(f"unknown level {bad[0]!r} (levels: {', '.join(LEVELS)})", param_hint="--levels")
    per = max(1, count // len(chosen))
    report: dict = {"scenes": per * len(chosen), "levels": {}, "cv2_threads": cv2.getNumThreads()}
    all_ms: list[float] = []
    done = 0
    for level in chosen:
        tally = {m: [0, 0] for m in MEASURES}
        ms = []
        for i in range(per):
            sc = random_scene(seed + i, level)
            image, _ = render(sc)
            t = sc.truth
            settings = SceneSettings(scene_variant(t["variant"]), t["first_east_side"], t["dealer"])
            t0 = time.perf_counter()
            obs = analyse(image, settings, with_tiles=False)
            ms.append((time.perf_counter() - t0) * 1000)
            for m, (ok, n) in score(obs, t).items():
                tally[m][0] += ok
                tally[m][1] += n
            done += 1
            if done % 50 == 0:
                click.echo(f"  {done}/{per * len(chosen)} scenes …", err=True)
        all_ms += ms
        report["levels"][level] = {
            "scenes": per,
            **{m: {"correct": c, "of": n, "pct": round(100 * c / n, 2) if n else None} for m, (c, n) in tally.items()},
            "ms_p50": round(float(np.percentile(ms, 50)), 1), "ms_p99": round(float(np.percentile(ms, 99)), 1),
        }
    report["ms_p50"] = round(float(np.percentile(all_ms, 50)), 1)
    report["ms_p99"] = round(float(np.percentile(all_ms, 99)), 1)
    report["fps_at_p50"] = round(1000 / report["ms_p50"], 1)
    report["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if as_json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    names = {"walls": "stack count per wall", "break": "break position", "no_false_break": "no break seen before it",
             "live_tiles": "live tiles (break right)", "dice": "dice faces (+cocked flag)",
             "cocked_flagged": "cocked die flagged", "no_false_dice": "no dice seen when none",
             "east_marker": "East marker seat", "wind": "wind disc"}
    click.echo(f"{report['scenes']} rendered scenes, 1280×720; exact-match accuracy per level (correct/counted)")
    header = f"{'measure':28}" + "".join(f"{lv:>20}" for lv in chosen)
    click.echo(header)
    for m in MEASURES:
        row = f"{names[m]:28}"
        for lv in chosen:
            e = report["levels"][lv][m]
            row += f"{(str(e['pct']) + ' %') if e['of'] else '—':>11} ({e['correct']}/{e['of']})".rjust(20)
        click.echo(row)
    click.echo(f"{'ms per frame p50 / p99':28}" + "".join(
        f"{report['levels'][lv]['ms_p50']:>12} / {report['levels'][lv]['ms_p99']:<5}" for lv in chosen))
    click.echo(f"all: p50 {report['ms_p50']} ms, p99 {report['ms_p99']} ms per frame "
               f"({report['fps_at_p50']} frames/s at p50); peak memory {report['peak_rss_mib']} MiB "
               f"(renderer included); OpenCV threads {report['cv2_threads']}")
