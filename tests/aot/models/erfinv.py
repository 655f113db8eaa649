"""A float model using an op the firmware runner has no kernel for (aten::erfinv)."""

import torch


class Erfinv(torch.nn.Module):
    def forward(self, x):
        return torch.special.erfinv(x * 0.5)


ModelUnderTest = Erfinv()
ModelInputs = (torch.rand(1, 8),)
