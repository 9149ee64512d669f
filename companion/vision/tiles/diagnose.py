"""Where a tile recogniser goes wrong: detection vs naming, by tile family, size and shape.

`Breakdown` collects, image by image, the predictions, the true tiles and (optionally) the
classifier's names for the *true* boxes, then `report()` prints:

* end to end: P, R, F1 (same tile, IoU >= 0.5) and photos fully right;
* detection alone (any tile, IoU >= 0.5): P, R, F1, and what the false positives and
  misses are (a second box on an already found tile, a box on the right tile but badly
  placed, a box on nothing labelled; a tile missed outright or only badly placed);
* naming alone: accuracy on the matched detections and on the true boxes (the classifier
  with perfect boxes), per family (characters, circles, bamboo, winds, dragons, flowers,
  seasons) and the commonest confusions;
* detection recall and naming accuracy by tile size and shape (upright, sideways, and
  "stretched": boxes more than twice as wide as tall or tall as wide, from photos that
  were stretched to a square);
* photos not fully right because of detection, naming, or both; and photos whose labels
  are all one kind (five or more tiles), which on this data set means unlabelled tiles
  given a default class, not a real hand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from companion.vision.tiles.metrics import Score, iou_matrix

FAMILIES = ("characters", "circles", "bamboo", "winds", "dragons", "flowers", "seasons")


def family(code: str) -> str:
    """The family of a tile code: `3m` -> characters, `6z` -> dragons, `6f` -> seasons."""
    n, suit = int(code[0]), code[1]
    if suit == "z":
        return "winds" if n <= 4 else "dragons"
    if suit == "f":
        return "flowers" if n <= 4 else "seasons"
    return {"m": "characters", "p": "circles", "s": "bamboo"}[suit]


def size_class(box) -> str:
    """By the box's shorter side in image pixels."""
    s = min(box[2] - box[0], box[3] - box[1])
    return "short side < 30 px" if s < 30 else "short side 30-50 px" if s < 50 else "short side >= 50 px"


def shape_class(box) -> str:
    w, h = box[2] - box[0], box[3] - box[1]
    if w > 2 * h or h > 2 * w:
        return "stretched (aspect > 2)"
    return "sideways (w > h)" if w > h else "upright (h >= w)"


def greedy_iou_match(pred: np.ndarray, scores, truth: np.ndarray, iou: float = 0.5):
    """Class-agnostic matching, best score first: (pred index, true index) pairs and the IoU matrix."""
    pred, truth = np.asarray(pred, np.float32).reshape(-1, 4), np.asarray(truth, np.float32).reshape(-1, 4)
    m = iou_matrix(pred, truth) if len(pred) and len(truth) else np.zeros((len(pred), len(truth)), np.float32)
    used = np.zeros(len(truth), bool)
    pairs = []
    for i in np.argsort(-np.asarray(scores, np.float32)):
        if not len(truth):
            break
        cand = np.where(used, -1.0, m[i])
        j = int(np.argmax(cand))
        if cand[j] >= iou:
            used[j] = True
            pairs.append((int(i), j))
    return pairs, m


@dataclass
class Breakdown:
    """Accumulates images; `report()` gives the text, `summary()` the figures as a dict."""

    end_to_end: Score = field(default_factory=Score)
    detection: Score = field(default_factory=Score)
    fp_kinds: Counter = field(default_factory=Counter)
    fn_kinds: Counter = field(default_factory=Counter)
    matched_right: int = 0
    matched: int = 0
    on_truth: Counter = field(default_factory=Counter)      # family -> named right on true boxes
    truth_n: Counter = field(default_factory=Counter)       # family -> true tiles
    found_n: Counter = field(default_factory=Counter)       # family -> found (class-agnostic)
    confusions: Counter = field(default_factory=Counter)
    by_group: dict = field(default_factory=dict)            # group -> [tiles, found, named right on truth, with truth names]
    photos: Counter = field(default_factory=Counter)
    one_kind_photos: list = field(default_factory=list)
    has_truth_names: bool = False

    def add(self, pred_boxes, pred_codes, pred_scores, true_boxes, true_codes, truth_names=None, name: str = "") -> None:
        """One image: predictions, true tiles, and optionally the names given to the true boxes."""
        pred_boxes = np.asarray(pred_boxes, np.float32).reshape(-1, 4)
        true_boxes = np.asarray(true_boxes, np.float32).reshape(-1, 4)
        pred_codes, true_codes = list(pred_codes), list(true_codes)
        self.end_to_end.add(pred_boxes, pred_codes, pred_scores, true_boxes, true_codes)
        self.detection.add(pred_boxes, ["t"] * len(pred_codes), pred_scores, true_boxes, ["t"] * len(true_codes))
        pairs, m = greedy_iou_match(pred_boxes, pred_scores, true_boxes)
        found = np.zeros(len(true_boxes), bool)
        matched_pred = np.zeros(len(pred_boxes), bool)
        for i, j in pairs:
            found[j] = matched_pred[i] = True
        named_right = sum(pred_codes[i] == true_codes[j] for i, j in pairs)
        self.matched += len(pairs)
        self.matched_right += named_right
        for i in np.flatnonzero(~matched_pred):
            b = pred_boxes[i]
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            inside = ((true_boxes[:, 0] <= cx) & (cx <= true_boxes[:, 2]) & (true_boxes[:, 1] <= cy)
                      & (cy <= true_boxes[:, 3])) if len(true_boxes) else np.zeros(0, bool)
            if inside.any() and not found[inside].all():
                self.fp_kinds["on a missed tile, badly placed (centre inside, IoU < 0.5)"] += 1
            elif inside.any():
                self.fp_kinds["second box on a found tile (duplicate or part)"] += 1
            elif len(true_boxes) and m[i].max() > 0:
                self.fp_kinds["overlaps a labelled tile a little"] += 1
            else:
                self.fp_kinds["on no labelled tile (unlabelled tile or background)"] += 1
        for j in np.flatnonzero(~found):
            best = m[:, j].max() if len(pred_boxes) else 0.0
            self.fn_kinds["missed outright (best IoU < 0.1)" if best < 0.1 else "found only badly placed (IoU 0.1-0.5)"] += 1
        if truth_names is not None:
            self.has_truth_names = True
        for j, (b, c) in enumerate(zip(true_boxes, true_codes)):
            f = family(c)
            self.truth_n[f] += 1
            self.found_n[f] += bool(found[j])
            right = truth_names is not None and truth_names[j] == c
            if truth_names is not None:
                self.on_truth[f] += right
                if not right:
                    self.confusions[(c, truth_names[j])] += 1
            for g in (size_class(b), shape_class(b)):
                row = self.by_group.setdefault(g, [0, 0, 0])
                row[0] += 1
                row[1] += bool(found[j])
                row[2] += right
        det_ok = len(pairs) == len(pred_boxes) == len(true_boxes)
        names_ok = named_right == len(pairs)
        self.photos["fully right" if det_ok and names_ok else "detection wrong, names right" if names_ok
                    else "detection right, a name wrong" if det_ok else "detection and names wrong"] += 1
        if len(true_codes) >= 5 and len(set(true_codes)) == 1:
            self.one_kind_photos.append((name, len(true_codes), true_codes[0]))

    def summary(self) -> dict:
        e, d = self.end_to_end, self.detection
        out = {
            "end_to_end": {"precision": e.precision, "recall": e.recall, "f1": e.f1, "perfect": e.perfect, "images": e.images,
                           "f1_interval_95": list(e.f1_interval())},
            "detection": {"precision": d.precision, "recall": d.recall, "f1": d.f1},
            "naming_on_detections": self.matched_right / max(self.matched, 1),
            "false_positives": dict(self.fp_kinds), "misses": dict(self.fn_kinds), "photos": dict(self.photos),
            "families": {f: {"tiles": self.truth_n[f], "detection_recall": self.found_n[f] / self.truth_n[f],
                             **({"naming_on_true_boxes": self.on_truth[f] / self.truth_n[f]} if self.has_truth_names else {})}
                         for f in FAMILIES if self.truth_n[f]},
            "groups": {g: {"tiles": r[0], "detection_recall": r[1] / r[0],
                           **({"naming_on_true_boxes": r[2] / r[0]} if self.has_truth_names else {})}
                       for g, r in sorted(self.by_group.items())},
            "one_kind_photos": [{"image": n, "tiles": k, "kind": c} for n, k, c in self.one_kind_photos],
        }
        if self.has_truth_names:
            n = sum(self.truth_n.values())
            out["naming_on_true_boxes"] = sum(self.on_truth.values()) / max(n, 1)
            out["confusions"] = [{"true": a, "named": b, "count": k} for (a, b), k in self.confusions.most_common(15)]
        return out

    def report(self) -> str:
        s = self.summary()
        e, d = s["end_to_end"], s["detection"]
        lines = [
            f"end to end (same tile, IoU >= 0.5): P {e['precision']:.3f} R {e['recall']:.3f} F1 {e['f1']:.3f}, "
            f"photos fully right {e['perfect']}/{e['images']}; F1 on other photos like these (95 % of "
            f"resamples of the photos): {e['f1_interval_95'][0]:.3f}-{e['f1_interval_95'][1]:.3f}",
            f"detection only (any tile, IoU >= 0.5): P {d['precision']:.3f} R {d['recall']:.3f} F1 {d['f1']:.3f}",
            f"naming: {s['naming_on_detections']:.3f} of matched detections named right"
            + (f"; {s['naming_on_true_boxes']:.3f} of true boxes (classifier given perfect boxes)" if self.has_truth_names else ""),
            "false positives: " + (", ".join(f"{k} {v}" for k, v in self.fp_kinds.most_common()) or "none"),
            "misses: " + (", ".join(f"{k} {v}" for k, v in self.fn_kinds.most_common()) or "none"),
            "photos: " + ", ".join(f"{k} {v}" for k, v in self.photos.most_common()),
            f"{'family':<12}{'tiles':>7}{'det R':>8}" + (f"{'named':>8}" if self.has_truth_names else ""),
        ]
        for f, r in s["families"].items():
            lines.append(f"{f:<12}{r['tiles']:>7}{r['detection_recall']:>8.3f}"
                         + (f"{r['naming_on_true_boxes']:>8.3f}" if self.has_truth_names else ""))
        lines.append(f"{'size / shape':<24}{'tiles':>7}{'det R':>8}" + (f"{'named':>8}" if self.has_truth_names else ""))
        for g, r in s["groups"].items():
            lines.append(f"{g:<24}{r['tiles']:>7}{r['detection_recall']:>8.3f}"
                         + (f"{r['naming_on_true_boxes']:>8.3f}" if self.has_truth_names else ""))
        if self.has_truth_names and s["confusions"]:
            lines.append("commonest confusions on true boxes (true>named count): "
                         + " ".join(f"{c['true']}>{c['named']} {c['count']}" for c in s["confusions"]))
        if self.one_kind_photos:
            n = sum(k for _, k, _ in self.one_kind_photos)
            lines.append(f"suspect labels: {len(self.one_kind_photos)} photos ({n} tiles) label every tile as one kind "
                         f"({', '.join(sorted({c for _, _, c in self.one_kind_photos}))}); they cannot be fully right")
        return "\n".join(lines)
