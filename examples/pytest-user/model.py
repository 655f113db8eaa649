"""A user's model as `--model` takes a file: ModelUnderTest (a torch.nn.Module) and
ModelInputs (a tuple of example inputs). A small convolutional block: it quantizes to int8
and runs on the NPU of every Ethos-U target."""

from __future__ import annotations

import torch


class SmallBlock(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool = torch.nn.AvgPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(torch.relu(self.conv(x)))


ModelUnderTest = SmallBlock().eval()
ModelInputs = (torch.rand(1, 3, 8, 8, generator=torch.Generator().manual_seed(1)),)
