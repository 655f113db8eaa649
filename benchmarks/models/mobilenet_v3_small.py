"""torchvision's MobileNetV3-small with random weights (seeded), for the compile benchmarks.

torchvision's C extension cannot load with the CPU torch this project pins, and its Python
package registers fake kernels for the extension's ops when imported, which then fails.
torchvision_shim.py imports it with torch.library.register_fake a no-op decorator (no
torchvision C op is used by this model)."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))   # loaded by path: its sibling helper
from torchvision_shim import import_torchvision_without_fake_kernels  # noqa: E402

import_torchvision_without_fake_kernels()
from torchvision.models import mobilenet_v3_small  # noqa: E402

torch.manual_seed(0)
ModelUnderTest = mobilenet_v3_small(weights=None).eval()
ModelInputs = (torch.randn(1, 3, 224, 224),)
