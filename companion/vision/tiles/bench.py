"""`companion bench recognition`: our recogniser and the peer on the same photos, one run.

Each recogniser runs in its own fresh Python process (so peak memory is its own), loads
its model once and recognises one untimed warm-up image. Then the parent hands the same
image to one and then the other, in turn, so both are timed under the same machine load;
each times every image from file path to named boxes (decode included). With `--repeat N`
(default 3) each image is handed over N times in turn, the order swapped each time, and its
time is the median of the N: single timings moved our median by a tenth from run to run on a
2-core machine, and whoever went first on an image was slower. The parent scores both against the labels
(right = same tile and IoU >= 0.5) and prints a side-by-side table.

The peer is `mahjong-detector` (PyPI, 34 riichi kinds, YOLO in ONNX); install it with the
`bench` extra. It has no flowers or seasons, so those count as misses for it.

`--breakdown` also prints where our errors are (companion.vision.tiles.diagnose): detection
alone vs naming alone (our classifier is also asked, untimed, to name the true boxes), by
family, tile size and shape.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import click
import numpy as np

from companion.vision.tiles.codes import PEER_NAMES, TILE_CODES
from companion.vision.tiles.dataset import load_split
from companion.vision.tiles.metrics import Score

PEER = "mahjong-detector"


def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _ours(threads: int | None):
    from companion.vision.tiles.codes import TILE_CODES
    from companion.vision.tiles.recognizer import TileRecognizer, read_image

    rec = TileRecognizer(threads=threads, taught=None)

    def once(p):
        tiles, ms = rec.recognize_file(p)
        return [list(t.box) for t in tiles], [t.tile for t in tiles], [t.score for t in tiles], ms

    def name_boxes(p, boxes):  # untimed: the classifier alone, given the true boxes
        if not boxes:
            return []
        probs, _ = rec.embed(read_image(p), np.asarray(boxes, np.float32).reshape(-1, 4))
        return [TILE_CODES[i] for i in probs.argmax(1)]
    once.name_boxes = name_boxes
    return once


def _peer(threads: int | None):
    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image

    def once(p):
        t0 = time.perf_counter()
        img, pad = preprocess_image(Image.open(p))
        dets = predict(img, pad)  # the first call loads the model: the warm-up image absorbs it
        ms = (time.perf_counter() - t0) * 1000.0
        return ([[d.x1, d.y1, d.x2, d.y2] for d in dets], [PEER_NAMES[CLASS_NAMES[d.class_id]] for d in dets],
                [d.confidence for d in dets], ms)
    return once


def worker(which: str, threads: str) -> None:
    """A child process: read image paths from stdin, answer one JSON line each; "END" -> peak memory."""
    once = (_ours if which == "ours" else _peer)(int(threads) or None)
    for line in sys.stdin:
        path = line.rstrip("\n")
        if path == "END":
            print(json.dumps({"peak_rss_mib": _peak_rss_mib()}), flush=True)
            return
        if path.startswith("{"):  # {"name_boxes": path, "boxes": [...]}: name the true boxes
            ask = json.loads(path)
            print(json.dumps({"codes": once.name_boxes(ask["name_boxes"], ask["boxes"])}), flush=True)
            continue
        boxes, codes, scores, ms = once(path)
        print(json.dumps({"ms": ms, "boxes": boxes, "codes": codes, "scores": scores}), flush=True)


class _Child:
    def __init__(self, which: str, threads: int):
        cmd = [sys.executable, "-c", "import sys; from companion.vision.tiles.bench import worker; worker(*sys.argv[1:])",
               which, str(threads)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> dict:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        if not out:
            raise RuntimeError("benchmark worker died")
        return json.loads(out)


def _measure(names: list[str], paths: list[str], threads: int, truth=None, repeat: int = 1) -> dict[str, dict]:
    """Run the recognisers image by image in turn, so that both see the same machine load;
    each image `repeat` times, its time the median of those (the answer is the first one's).

    With `truth`, ours also names the true boxes (after all timing, so it costs no time)."""
    children = {n: _Child(n, threads) for n in names}
    for c in children.values():
        c.ask(paths[0])  # warm-up, untimed
    rows = {n: [] for n in names}
    for p in paths:
        times: dict[str, list[float]] = {n: [] for n in names}
        for i in range(max(1, repeat)):
            order = list(children.items())
            for n, c in (order if i % 2 == 0 else order[::-1]):  # neither always goes first
                time.sleep(0.05)  # let the other process's idle worker threads stop spinning first
                answer = c.ask(p)
                times[n].append(answer["ms"])
                if i == 0:
                    rows[n].append(answer)
        for n in names:
            rows[n][-1]["ms"] = float(np.median(times[n]))
    if truth is not None:
        for p, t, row in zip(paths, truth, rows["ours"]):
            row["truth_codes"] = children["ours"].ask(json.dumps({"name_boxes": p, "boxes": t.boxes.tolist()}))["codes"]
    out = {}
    for n, c in children.items():
        out[n] = {"rows": rows[n], **c.ask("END")}
        c.proc.wait()
    return out


def score(rows: list[dict], truth) -> Score:
    s = Score()
    for r, t in zip(rows, truth):
        s.add(np.asarray(r["boxes"], np.float32).reshape(-1, 4), r["codes"], r["scores"], t.boxes,
              [TILE_CODES[c] for c in t.classes])
    return s


def table(results: dict[str, dict], truth) -> str:
    head = f"{'recogniser':<31}{'P':>7}{'R':>7}{'F1':>7}{'all right':>14}{'p50 ms':>9}{'p90 ms':>9}{'peak MiB':>10}"
    lines = [head, "-" * len(head)]
    for name, res in results.items():
        s = score(res["rows"], truth)
        ms = np.array([r["ms"] for r in res["rows"]])
        right = f"{s.perfect}/{s.images} ({100 * s.perfect_rate:.0f}%)"
        lines.append(f"{name:<31}{s.precision:>7.3f}{s.recall:>7.3f}{s.f1:>7.3f}{right:>14}"
                     f"{np.percentile(ms, 50):>9.1f}{np.percentile(ms, 90):>9.1f}{res['peak_rss_mib']:>10.0f}")
    return "\n".join(lines)


@click.command("recognition")
@click.option("--data", "data", type=click.Path(exists=True, file_okay=False), envvar="COMPANION_TILE_DATA",
              required=True, help="A labelled split: a folder with images/ and labels/ (YOLO, the 42-class set).")
@click.option("--limit", type=click.IntRange(0, None), default=0, help="Use only the first N images (0: all).")
@click.option("--threads", type=click.IntRange(0, 256), default=0, help="CPU threads for both recognisers (0: onnxruntime default).")
@click.option("--peer/--no-peer", default=True, show_default=True, help="Also run mahjong-detector.")
@click.option("--breakdown", is_flag=True, help="Also print where our errors are (detection vs naming, by family, size, shape).")
@click.option("--repeat", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Time each image this many times (in turn with the peer); its time is the median.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), default=None, help="Also save all figures here.")
def recognition(data, limit, threads, peer, breakdown, repeat, json_out):
    """Ours vs mahjong-detector on the same labelled photos: P, R, F1, photos fully right,
    latency p50/p90 per image and peak memory (RSS of each recogniser's own process)."""
    if not (Path(data) / "images").is_dir():
        raise click.BadParameter(f"{data} has no images/ folder (a labelled split: images/ and labels/)",
                                 param_hint="--data")
    truth = load_split(data, size=None)
    if limit:
        truth = truth[:limit]
    paths = [str(t.path) for t in truth]
    click.echo(f"{len(paths)} images, {sum(len(t.classes) for t in truth)} tiles from {data}; "
               f"{os.cpu_count()} CPU cores; right = same tile and IoU >= 0.5; each image timed {repeat}x, median")
    which = ["ours"]
    if peer:
        if importlib.util.find_spec("mahjong_detector") is None:
            click.echo(f"peer not measured: {PEER} is not installed. Install it for the benchmark with "
                       "pip install 'mahjong-table-companion[bench]' (it is never a run-time dependency).")
        else:
            which.append("peer")
    measured = _measure(which, paths, threads, truth if breakdown else None, repeat)
    results = {"ours (companion)": measured["ours"]}
    if "peer" in measured:
        results[f"peer ({PEER} 0.0.6)"] = measured["peer"]
    click.echo(table(results, truth))
    names = list(results)
    if len(names) == 2:
        a, b = (np.median([r["ms"] for r in results[n]["rows"]]) for n in names)
        click.echo(f"median latency ratio ours/peer: {a / b:.2f}")
    diag = None
    if breakdown:
        from companion.vision.tiles.diagnose import Breakdown

        diag = Breakdown()
        for r, t in zip(measured["ours"]["rows"], truth):
            diag.add(r["boxes"], r["codes"], r["scores"], t.boxes, [TILE_CODES[c] for c in t.classes],
                     r["truth_codes"], t.path.name)
        click.echo("\nwhere our errors are:\n" + diag.report())
    if json_out:
        summary = {}
        for n, res in results.items():
            s = score(res["rows"], truth)
            ms = [r["ms"] for r in res["rows"]]
            summary[n] = {"precision": s.precision, "recall": s.recall, "f1": s.f1, "perfect": s.perfect,
                          "images": s.images, "p50_ms": float(np.percentile(ms, 50)),
                          "p90_ms": float(np.percentile(ms, 90)), "peak_rss_mib": res["peak_rss_mib"]}
        if diag is not None:
            summary["ours (companion)"]["breakdown"] = diag.summary()
        Path(json_out).write_text(json.dumps(summary, indent=1))
