"""A small residual CNN: stem conv, a depthwise-separable residual block, a strided conv,
global average pool (quantized avg pool) and a classifier (1x3x24x24 -> 1x8); seeded
weights and input."""

import torch
from torch import nn


class ResidualCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.BatchNorm2d(12), nn.ReLU())
        self.block = nn.Sequential(
            nn.Conv2d(12, 12, 3, padding=1, groups=12), nn.BatchNorm2d(12), nn.ReLU(),
            nn.Conv2d(12, 12, 1), nn.BatchNorm2d(12))
        self.down = nn.Sequential(nn.Conv2d(12, 24, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(24, 8)

    def forward(self, x):
        x = self.stem(x)
        x = torch.relu(x + self.block(x))
        x = torch.flatten(self.down(x), 1)   # (x.mean((2, 3)) would stay a float reduction)
        return self.head(x)


torch.manual_seed(12)
ModelUnderTest = ResidualCNN().eval()
ModelInputs = (torch.rand(1, 3, 24, 24) * 2 - 1,)
