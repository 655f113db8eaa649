"""Delegates with several inputs, as model specs `npu_model_multi_input:<name>`: one partition
reading three tensors (x, y, z), the interface the Conformer's partitions have."""

from __future__ import annotations

import torch
from torch import nn

SEED = 0
SHAPE = (1, 8, 4, 4)


class ThreeInputs(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + y) * z


def three_inputs() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    generator = torch.Generator().manual_seed(SEED)
    return ThreeInputs().eval(), tuple(torch.rand(*SHAPE, generator=generator) * 2 - 1
                                       for _ in range(3))
