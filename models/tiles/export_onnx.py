"""Export trained weights to the ONNX files the package ships (opset 17, float32).

    python models/tiles/export_onnx.py --det tiles-det.pt --cls tiles-cls.pt --out companion/vision/tiles/weights
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from nets import CLS_SIZE, DET_SIZE, ClassifierExport, DetectorExport, TileClassifier, TileDetector

PACKAGE_WEIGHTS = Path(__file__).resolve().parents[2] / "companion" / "vision" / "tiles" / "weights"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--det", required=True)
    ap.add_argument("--cls", required=True)
    ap.add_argument("--out", default=str(PACKAGE_WEIGHTS))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    det = TileDetector()
    det.load_state_dict(torch.load(args.det, map_location="cpu"))
    cls = TileClassifier()
    cls.load_state_dict(torch.load(args.cls, map_location="cpu"))
    det.eval(), cls.eval()
    torch.onnx.export(DetectorExport(det).eval(), torch.zeros(1, 3, DET_SIZE, DET_SIZE), out / "tile_detector.onnx",
                      input_names=["image"], output_names=["heat", "size", "offset"], opset_version=17, dynamo=False)
    torch.onnx.export(ClassifierExport(cls).eval(), torch.zeros(2, 3, CLS_SIZE, CLS_SIZE), out / "tile_classifier.onnx",
                      input_names=["crops"], output_names=["probs", "embedding"], opset_version=17,
                      dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}, "embedding": {0: "n"}}, dynamo=False)
    for f in ("tile_detector.onnx", "tile_classifier.onnx"):
        print(f, (out / f).stat().st_size // 1024, "KiB")


if __name__ == "__main__":
    main()
