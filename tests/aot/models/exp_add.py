"""exp(x) + y: the Cortex-M quantizer leaves exp in float (must be reported)."""

import torch


class ExpAdd(torch.nn.Module):
    def forward(self, x, y):
        return torch.exp(x) + y


ModelUnderTest = ExpAdd()
ModelInputs = (torch.rand(1, 8), torch.rand(1, 8))


def build():
    """module:function form: returns (model, inputs)."""
    return ExpAdd(), ModelInputs
