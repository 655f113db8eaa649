"""A model torch.export cannot trace: Python control flow on tensor data."""

import torch


class Branching(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        if y.sum() > 0:
            return y
        return -y


ModelUnderTest = Branching()
ModelInputs = (torch.ones(2, 3),)
