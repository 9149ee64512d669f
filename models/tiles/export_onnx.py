"""Export trained weights to the ONNX files the package ships (opset 17, float32).

    python models/tiles/export_onnx.py --det tiles-det.pt --cls tiles-cls.pt --out companion/vision/tiles/weights
    python models/tiles/export_onnx.py --general det32.pt       # the general detector for taught sets

Any network may be left out: its ONNX file is then copied from `--keep-from` (default: the
shipped weights), so a new detector can be tried with the shipped classifier; so are the
other ONNX files there (the windows detector, an earlier checkpoint: see the model card).
The photo detector is exported with a free input height and width, so that a photo squeezed
back from a stretch is read at its own narrow size (recognizer.TileRecognizer._detect_squeezed).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import torch
from nets import CLS_SIZE, DET_SIZE, GENERAL_DET_SIZE, ClassifierExport, DetectorExport, TileClassifier, TileDetector

PACKAGE_WEIGHTS = Path(__file__).resolve().parents[2] / "companion" / "vision" / "tiles" / "weights"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--det", help="detector weights (.pt); left out: copied from --keep-from")
    ap.add_argument("--cls", help="classifier weights (.pt); left out: copied from --keep-from")
    ap.add_argument("--general", help="general detector weights (.pt, train_general_detector.py); left out: copied")
    ap.add_argument("--out", default=str(PACKAGE_WEIGHTS))
    ap.add_argument("--keep-from", default=str(PACKAGE_WEIGHTS), help="folder whose ONNX files fill in a left-out network")
    args = ap.parse_args()
    if not (args.det or args.cls or args.general):
        ap.error("give --det, --cls, --general or several")
    out, keep = Path(args.out), Path(args.keep_from)
    out.mkdir(parents=True, exist_ok=True)
    det_names = {"input_names": ["image"], "output_names": ["heat", "size", "offset"]}
    # the photo detector takes any height and width (its outputs are a quarter of them, rounded
    # up): a photo squeezed back from a stretch is read at its own narrow size, not padded
    free = {"image": {2: "h", 3: "w"}, **{n: {2: "h/4", 3: "w/4"} for n in ("heat", "size", "offset")}}
    nets = {  # file: (weights, network, export wrapper, example input, ONNX names and axes)
        "tile_detector.onnx": (args.det, TileDetector, DetectorExport, torch.zeros(1, 3, DET_SIZE, DET_SIZE),
                               {**det_names, "dynamic_axes": free}),
        "tile_detector_general.onnx": (args.general, lambda: TileDetector(deep=True), DetectorExport,
                                       torch.zeros(1, 3, GENERAL_DET_SIZE, GENERAL_DET_SIZE), det_names),
        "tile_classifier.onnx": (args.cls, TileClassifier, ClassifierExport, torch.zeros(2, 3, CLS_SIZE, CLS_SIZE),
                                 {"input_names": ["crops"], "output_names": ["probs", "embedding"],
                                  "dynamic_axes": {"crops": {0: "n"}, "probs": {0: "n"}, "embedding": {0: "n"}}}),
    }
    for name, (weights, net_class, wrapper, example, names) in nets.items():
        if weights:
            net = net_class()
            net.load_state_dict(torch.load(weights, map_location="cpu"))
            torch.onnx.export(wrapper(net.eval()).eval(), example, out / name, opset_version=17, dynamo=False, **names)
        elif keep.resolve() != out.resolve() and (keep / name).exists():
            shutil.copy(keep / name, out / name)
    for other in sorted(keep.glob("*.onnx")):  # files no network here writes (the windows detector)
        if other.name not in nets and keep.resolve() != out.resolve() and not (out / other.name).exists():
            shutil.copy(other, out / other.name)
    if (keep / "tile_models.json").exists() and not (out / "tile_models.json").exists():
        shutil.copy(keep / "tile_models.json", out / "tile_models.json")  # run-time settings; calibrate.py re-fits them
    for f in nets:
        if (out / f).exists():
            print(f, (out / f).stat().st_size // 1024, "KiB")


if __name__ == "__main__":
    main()
