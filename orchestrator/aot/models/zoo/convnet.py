"""`convnet`: a small CNN (conv-relu-pool x2, global pool, linear) with seeded weights."""

from __future__ import annotations

import torch
from torch import nn

from orchestrator.aot.models.zoo.common import example, frozen, seeded


class ConvNet(nn.Module):
    """Two conv blocks and a classifier: 1x3x32x32 -> 1x10."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.classifier(torch.flatten(self.features(x), 1))
        return out


def build(torchvision: bool = False) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    """The model with seeded weights and one 1x3x32x32 input."""
    return frozen(seeded(ConvNet)), (example(1, 3, 32, 32, seed=4),)
