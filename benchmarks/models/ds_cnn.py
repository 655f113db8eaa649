"""A DS-CNN keyword-spotting network (Zhang et al., "Hello Edge", 2017; the MLPerf Tiny KWS
reference shape): a 10x4 convolution over 49x10 MFCC features, four depthwise-separable
blocks of 64 channels, average pooling and a 12-class classifier. Seeded random weights."""

import torch
from torch import nn


def _separable(channels: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False),
        nn.BatchNorm2d(channels), nn.ReLU(),
        nn.Conv2d(channels, channels, 1, bias=False), nn.BatchNorm2d(channels), nn.ReLU())


class DsCnn(nn.Module):
    def __init__(self, channels: int = 64, classes: int = 12) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, (10, 4), stride=2, padding=(5, 1),
                                            bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.Sequential(*(_separable(channels) for _ in range(4)))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.blocks(self.stem(x)))
        return self.classifier(torch.flatten(x, 1))


torch.manual_seed(0)
ModelUnderTest = DsCnn().eval()
ModelInputs = (torch.randn(1, 1, 49, 10),)
