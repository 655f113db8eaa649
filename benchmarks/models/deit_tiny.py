"""DeiT-tiny as upstream's backends/arm/test/models/test_deit_tiny_arm.py builds it (timm's
deit_tiny_patch16_224, input 1x3x224x224), with seeded random weights (no download).

Benchmark helper only: timm imports torchvision, whose C extension does not load with the CPU
torch of this project's machines (operator torchvision::nms does not exist); its model code is
pure Python, so torchvision is imported with `torch.library.register_fake` made a no-op
decorator (torchvision_without_fake_kernels). The tool itself never does this.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

SEED = 0


@contextlib.contextmanager
def torchvision_without_fake_kernels() -> Iterator[None]:
    """While importing torchvision: register_fake returns its function unchanged, so the meta
    kernels of the C ops that did not load are not registered (and do not fail)."""
    original = torch.library.register_fake

    def no_op(*_args: Any, **_kwargs: Any) -> Any:
        return lambda function: function

    torch.library.register_fake = no_op  # type: ignore[assignment]
    try:
        import torchvision  # noqa: F401
    finally:
        torch.library.register_fake = original
    yield


with torchvision_without_fake_kernels():
    import timm  # type: ignore[import-untyped]

torch.manual_seed(SEED)
ModelUnderTest = timm.models.deit.deit_tiny_patch16_224(pretrained=False).eval()
ModelInputs = (torch.rand((1, 3, 224, 224)),)
