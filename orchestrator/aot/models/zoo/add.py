"""`add`: element-wise sum of two tensors (the smallest delegable model)."""

from __future__ import annotations

import torch

from orchestrator.aot.models.zoo.common import example, frozen


class Add(torch.nn.Module):
    """out = a + b."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


def build(torchvision: bool = False) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    """The model and two 1x4x8x8 inputs."""
    return frozen(Add()), (example(1, 4, 8, 8, seed=1), example(1, 4, 8, 8, seed=2))
