"""DeiT-tiny as upstream's backends/arm/test/models/test_deit_tiny_arm.py builds it (timm's
deit_tiny_patch16_224, input 1x3x224x224), with seeded random weights (no download). The input
is torch.rand as it is; upstream's test normalizes it with timm's inception mean and std
(deit_tiny_one_block.py does), which changes the quantization: this model's Vela 5.2.0 stream
writes no FORCE_INT16, the normalized one does.

Benchmark helper only: timm imports torchvision, whose C extension does not load with the CPU
torch of this project's machines (operator torchvision::nms does not exist); its model code is
pure Python, so torchvision is imported with `torch.library.register_fake` made a no-op
decorator (benchmarks/models/torchvision_shim.py). The tool itself never does this.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))   # loaded by path: its sibling helper
from torchvision_shim import import_torchvision_without_fake_kernels  # noqa: E402

SEED = 0

import_torchvision_without_fake_kernels()
import timm  # type: ignore[import-untyped]  # noqa: E402

torch.manual_seed(SEED)
ModelUnderTest = timm.models.deit.deit_tiny_patch16_224(pretrained=False).eval()
ModelInputs = (torch.rand((1, 3, 224, 224)),)
