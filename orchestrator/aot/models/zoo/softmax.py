"""`softmax`: softmax over the last dimension (upstream's non-delegated default model)."""

from __future__ import annotations

import torch

from orchestrator.aot.models.zoo.common import example, frozen


class Softmax(torch.nn.Module):
    """out = softmax(x, dim=-1)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x * 4, dim=-1)


def build(torchvision: bool = False) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    """The model and one 1x4x16 input."""
    return frozen(Softmax()), (example(1, 4, 16, seed=3),)
