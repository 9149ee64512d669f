"""`companion bench teach`: the gain of "teach your set" on a tile design never trained on.

The shipped models learnt only from real photos. Here every tile is drawn with the riichi
SVG art (pymdownx-mahjong; flowers/seasons procedural), a design the models never saw.
1. A synthetic layout photo (one of each tile, rows as on the sheet) is taught through the
   normal flow: detector -> rows -> names -> fitted head.
2. Synthetic table frames of the same design (perspective, light, blur, occluders) are
   recognised with the shipped classifier and with the taught head: P, R, F1 (IoU >= 0.5,
   same tile) and a classification-only accuracy on the true boxes (detector excluded).
Needs the `render` extra (pymdownx-mahjong, cairosvg).
"""

from __future__ import annotations

import time

import click
import numpy as np

from companion.vision.tiles.codes import TILE_CODES
from companion.vision.tiles.metrics import Score


def run(scenes: int = 100, seed: int = 1, photos: int = 1, art: str = "riichi", log=print) -> dict:
    from companion.vision.tiles.recognizer import TileRecognizer
    from companion.vision.tiles.synth import layout_photo, table_scene
    from companion.vision.tiles.teach import TeachError, teach, teach_labelled

    rec = TileRecognizer(taught=None)
    rng = np.random.default_rng(seed)
    layouts = [layout_photo(rng, art=art) for _ in range(photos)]
    t0 = time.perf_counter()
    try:
        taught = teach(rec, [img for img, _, _ in layouts], seed=seed)
        how = "detector + layout rows"
    except TeachError as exc:
        log(f"teaching through the detector failed ({exc}); teaching from the true layout boxes instead")
        taught = teach_labelled(rec, layouts, seed=seed)
        how = "true layout boxes (detector missed tiles)"
    teach_s = time.perf_counter() - t0
    test_rng = np.random.default_rng(seed + 1000)
    frames = [table_scene(test_rng, art=art) for _ in range(scenes)]
    out = {"teach_seconds": teach_s, "taught_via": how, "scenes": scenes, "tiles": sum(len(c) for _, _, c in frames),
           "threshold": {"shipped": rec.shipped_threshold, "taught": taught.threshold},
           "detector": taught.detector, "familiar": taught.info.get("familiar")}
    for name, t in (("before (shipped)", None), ("after teaching", taught)):
        rec.taught = t
        s, right, n = Score(), 0, 0
        for img, boxes, codes in frames:
            tiles = rec.recognize(img)
            s.add(np.float32([x.box for x in tiles]).reshape(-1, 4), [x.tile for x in tiles], [x.score for x in tiles],
                  boxes, codes)
            probs, _ = rec.embed(img, boxes)  # under the taught head when there is one
            names = [(t.codes if t else TILE_CODES)[i] for i in probs.argmax(1)]
            right += sum(a == b for a, b in zip(names, codes))
            n += len(codes)
        out[name] = {"precision": s.precision, "recall": s.recall, "f1": s.f1, "perfect": s.perfect,
                     "images": s.images, "crop_accuracy": right / max(n, 1)}
    return out


@click.command("teach")
@click.option("--scenes", type=click.IntRange(1, 100000), default=100, show_default=True, help="Synthetic test frames of the unseen design.")
@click.option("--photos", type=click.IntRange(1, 100), default=1, show_default=True, help="Layout photos to teach from.")
@click.option("--seed", default=1, show_default=True)
def teach_bench(scenes, photos, seed):
    """F1 on an unseen tile design before and after teaching from a layout photo."""
    r = run(scenes, seed, photos, log=click.echo)
    click.echo(f"unseen design: riichi SVG art (+ procedural flowers/seasons); {r['scenes']} frames, {r['tiles']} tiles; "
               f"taught via {r['taught_via']} in {r['teach_seconds']:.1f} s")
    t = r["threshold"]
    if r["familiar"] is not None:
        click.echo(f"shipped classifier named {r['familiar']:.0%} of the layout's tiles right; "
                   f"the taught set is read by the {r['detector']} detector")
    if t["taught"] is not None:
        click.echo(f"detection threshold: shipped {t['shipped']:.2f}, taught set {t['taught']:.2f}")
    head = f"{'':<18}{'P':>7}{'R':>7}{'F1':>7}{'all right':>12}{'crop acc':>10}"
    click.echo(head + "\n" + "-" * len(head))
    for k in ("before (shipped)", "after teaching"):
        s = r[k]
        right = f"{s['perfect']}/{s['images']}"
        click.echo(f"{k:<18}{s['precision']:>7.3f}{s['recall']:>7.3f}{s['f1']:>7.3f}{right:>12}{s['crop_accuracy']:>10.3f}")
