"""Nested inputs and outputs: (x, (h, (scale, lengths))) in, with an int32 leaf (lengths,
as the Conformer takes), {"y": ..., "state": ((h', lengths'), steps)} out. Seeded."""

import torch


class NestedIO(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x, state):
        h, (scale, lengths) = state
        y = torch.relu(self.linear(x) + h)
        return {"y": y, "state": ((h * scale, lengths + 1), lengths * 2)}


torch.manual_seed(5)
ModelUnderTest = NestedIO().eval()
ModelInputs = (torch.rand(1, 16) * 2 - 1,
               (torch.rand(1, 16) * 2 - 1,
                (torch.rand(1, 16) + 0.5, torch.tensor([7, 3], dtype=torch.int32))))
