"""How far a layout photo may be turned or slanted and still teach: rendered layout photos
(`synth.layout_photo`, padded so that no tile leaves the picture) turned by each angle, taught
through `teach.teach`; prints ok / refused per seed, design and angle.

    python models/tiles/layout_angles.py [--seeds 1,2,3] [--angles 0,3,-6,10,-15,20,30,-40,100]
    (the riichi design needs the render extra: pip install -e '.[render]')
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

from companion.vision.tiles.recognizer import TileRecognizer
from companion.vision.tiles.synth import layout_photo
from companion.vision.tiles.teach import TeachError, teach


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--arts", default="abstract,riichi")
    ap.add_argument("--angles", default="0,3,-6,10,-15,20,30,-40,100")
    args = ap.parse_args()
    angles = [float(a) for a in args.angles.split(",")]
    rec = TileRecognizer(taught=None)
    ok = total = 0
    print(f"{'seed':>4} {'design':<9} " + " ".join(f"{a:>6g}" for a in angles))
    for seed in (int(s) for s in args.seeds.split(",")):
        for art in args.arts.split(","):
            img, _, _ = layout_photo(np.random.default_rng(seed), art=art)
            img = cv2.copyMakeBorder(img, 120, 120, 120, 120, cv2.BORDER_REPLICATE)
            h, w = img.shape[:2]
            row = []
            for a in angles:
                turned = cv2.warpAffine(img, cv2.getRotationMatrix2D((w / 2, h / 2), a, 1.0), (w, h),
                                        borderMode=cv2.BORDER_REPLICATE)
                try:
                    teach(rec, [turned])
                    row.append("ok")
                    ok += 1
                except TeachError:
                    row.append("refused")
                total += 1
            print(f"{seed:>4} {art:<9} " + " ".join(f"{r:>6}" for r in row), flush=True)
    print(f"read {ok} of {total}")


if __name__ == "__main__":
    main()
