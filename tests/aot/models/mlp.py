"""A three-layer MLP (64 -> 96 -> 48 -> 10, ReLU), seeded weights and input."""

import torch


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(64, 96), torch.nn.ReLU(), torch.nn.Linear(96, 48),
            torch.nn.ReLU(), torch.nn.Linear(48, 10))

    def forward(self, x):
        return self.layers(x)


torch.manual_seed(11)
ModelUnderTest = MLP().eval()
ModelInputs = (torch.rand(1, 64) * 2 - 1,)
