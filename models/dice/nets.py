"""The two small networks of the dice reader (PyTorch, training only; they run as ONNX).

* `Detector`: a fully convolutional centre-point detector (CenterNet style) at stride 4: per
  cell a "die centre here" logit, the box size (log of pixels / 4) and the sub-cell offset.
  Depthwise-separable convolutions keep it near 0.1 GMAC at 320×320.
* `FaceNet`: reads one square crop around a found die (48 or 72 px, any multiple of 24): 7 logits
  (0 = not a die, 1..6 = the face up) and one "cocked" logit (R18). The crop size only changes
  the last pooling, so a 48 px model's weights start a 72 px one. `width` scales its channels.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def cbr(cin: int, cout: int, k: int = 3, s: int = 1, groups: int = 1, d: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, d * (k // 2), dilation=d, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def dws(cin: int, cout: int, s: int = 1, d: int = 1) -> nn.Sequential:
    return nn.Sequential(cbr(cin, cin, 3, s, groups=cin, d=d), cbr(cin, cout, 1))


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(cbr(3, 16, 3, 2), dws(16, 16))  # 1/2
        self.s4 = nn.Sequential(dws(16, 32, 2), dws(32, 32))  # 1/4
        self.s8 = nn.Sequential(dws(32, 48, 2), dws(48, 48), dws(48, 48, d=2))  # 1/8
        self.s16 = nn.Sequential(dws(48, 64, 2), dws(64, 64), dws(64, 64, d=2))  # 1/16: context for big dice
        self.lat16 = cbr(64, 48, 1)
        self.lat8 = cbr(48, 32, 1)
        self.fuse8 = dws(48, 48)
        self.fuse4 = nn.Sequential(dws(32, 32), dws(32, 32))
        self.head = nn.Conv2d(32, 5, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -4.0  # few cells hold a die: start the centre logits low

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f8 = self.fuse8(f8 + F.interpolate(self.lat16(f16), size=f8.shape[2:], mode="nearest"))
        f4 = self.fuse4(f4 + F.interpolate(self.lat8(f8), size=f4.shape[2:], mode="nearest"))
        return self.head(f4)


class FaceNet(nn.Module):
    def __init__(self, crop: int = 72, width: float = 1.0) -> None:
        """`width` scales every layer's channels (1.0: the shipped size, ~0.7 MiB; the run time
        takes any width, since it reads only the ONNX file)."""
        super().__init__()
        if crop % 24:
            raise ValueError(f"the face model's crop must be a multiple of 24 px, not {crop}")
        self.crop = crop
        c = [max(8, round(n * width)) for n in (24, 32, 48, 64, 96)]
        self.features = nn.Sequential(
            cbr(3, c[0]), cbr(c[0], c[1], s=2), cbr(c[1], c[1]),  # 36×36 (from a 72×72 crop; 24×24 from 48×48)
            cbr(c[1], c[2], s=2), cbr(c[2], c[2]),  # 18×18
            cbr(c[2], c[3], s=2), cbr(c[3], c[3]),  # 9×9
            nn.AvgPool2d(crop // 24),  # 3×3: where the pips are, coarsely
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(c[3] * 9, c[4]), nn.ReLU(inplace=True), nn.Dropout(0.2),
                                nn.Linear(c[4], 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x))
