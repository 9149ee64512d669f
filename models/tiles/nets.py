"""The two small networks of the tile recogniser (PyTorch, for training and export only).

* TileDetector: one-class CenterNet-style face finder, fully convolutional, stride-4 output:
  a centre heat map (peaks already kept by a 3x3 max-pool, so run time needs no NMS), log
  box size in output cells, and sub-cell offset. The shipped detector (`train_detector.py`)
  runs on the whole frame at DET_SIZE. The general detector for taught sets
  (`train_general_detector.py`, `deep=True`) runs at GENERAL_DET_SIZE and its pyramid
  reaches down to stride 64, so that a tile stretched across the whole frame (see
  augment.py) still has one centre.
* TileClassifier: CLS_SIZE x CLS_SIZE crop -> 42 kinds; its 128-d penultimate layer is the
  embedding that "teach your set" fits prototypes and a head on.
Both are depthwise-separable so that they run in a few ms under onnxruntime on a Pi.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

DET_SIZE = 384          # the shipped detector's input
GENERAL_DET_SIZE = 448  # the general detector's input
DET_STRIDE = 4
CLS_SIZE = 48
EMBED_DIM = 128


def cbr(cin: int, cout: int, stride: int = 1, k: int = 3) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def dws(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Depthwise 3x3 then pointwise 1x1, each with BN + ReLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


def up_to(p: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Nearest upsampling to another level's size (sizes need not be multiples of 64)."""
    return F.interpolate(p, size=like.shape[-2:], mode="nearest")


class TileDetector(nn.Module):
    def __init__(self, deep: bool = False):
        super().__init__()
        self.deep = deep
        c = [16, 32, 64, 128, 192, 192]
        self.stem = cbr(3, c[0], 2)                                    # /2
        self.s4 = nn.Sequential(dws(c[0], c[1], 2), dws(c[1], c[1]))   # /4
        self.s8 = nn.Sequential(dws(c[1], c[2], 2), dws(c[2], c[2]))   # /8
        self.s16 = nn.Sequential(dws(c[2], c[3], 2), dws(c[3], c[3]), dws(c[3], c[3]))  # /16
        self.s32 = nn.Sequential(dws(c[3], c[4], 2), dws(c[4], c[4]))  # /32
        f = 48
        if deep:  # /64: whole-frame context
            self.s64 = nn.Sequential(dws(c[4], c[5], 2), dws(c[5], c[5]))
            self.l64, self.smooth32 = nn.Conv2d(c[5], f, 1), dws(f, f)
        self.l32, self.l16, self.l8, self.l4 = (nn.Conv2d(ci, f, 1) for ci in (c[4], c[3], c[2], c[1]))
        self.smooth16, self.smooth8, self.smooth4 = dws(f, f), dws(f, f), dws(f, f)
        self.head = dws(f, f)
        self.heat = nn.Conv2d(f, 1, 1)
        self.size = nn.Conv2d(f, 2, 1)
        self.offset = nn.Conv2d(f, 2, 1)
        nn.init.constant_(self.heat.bias, -2.19)

    def forward(self, x: torch.Tensor):
        x = x - 0.5
        x4 = self.s4(self.stem(x))
        x8 = self.s8(x4)
        x16 = self.s16(x8)
        x32 = self.s32(x16)
        p = self.l32(x32)
        if self.deep:
            p = self.smooth32(p + up_to(self.l64(self.s64(x32)), x32))
        p = self.smooth16(self.l16(x16) + up_to(p, x16))
        p = self.smooth8(self.l8(x8) + up_to(p, x8))
        p = self.smooth4(self.l4(x4) + up_to(p, x4))
        h = self.head(p)
        return self.heat(h), self.size(h), self.offset(h)


class DetectorExport(nn.Module):
    """Inference wrapper: sigmoid heat with non-peaks zeroed, sizes, offsets."""

    def __init__(self, net: TileDetector):
        super().__init__()
        self.net = net

    def forward(self, x):
        heat, size, offset = self.net(x)
        heat = torch.sigmoid(heat)
        peaks = F.max_pool2d(heat, 3, 1, 1)
        heat = heat * (peaks == heat).float()
        return heat, size, offset


class TileClassifier(nn.Module):
    def __init__(self, num_classes: int = 42):
        super().__init__()
        self.features = nn.Sequential(
            cbr(3, 32),                   # 48
            dws(32, 48, 2), dws(48, 48),  # 24
            dws(48, 96, 2), dws(96, 96),  # 12
            dws(96, 160, 2), dws(160, 160), dws(160, 160),  # 6
            dws(160, 256),
        )
        self.embed = nn.Sequential(nn.Linear(256, EMBED_DIM), nn.BatchNorm1d(EMBED_DIM), nn.ReLU(inplace=True))
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(EMBED_DIM, num_classes)

    def embedding(self, x):
        x = self.features(x - 0.5)
        return self.embed(x.mean(dim=(2, 3)))

    def forward(self, x):
        return self.fc(self.drop(self.embedding(x)))


class ClassifierExport(nn.Module):
    """Inference wrapper: class probabilities and the L2-normalised embedding."""

    def __init__(self, net: TileClassifier):
        super().__init__()
        self.net = net

    def forward(self, x):
        e = self.net.embedding(x)
        probs = torch.softmax(self.net.fc(e), dim=1)
        return probs, F.normalize(e, dim=1)
