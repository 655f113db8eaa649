"""torchaudio's Conformer as upstream's backends/arm/test/models/test_conformer.py builds it
(input_dim 16, 4 heads, ffn_dim 64, 2 layers, depthwise kernel 31; features 10 x max(lengths)
x 16 and int32 lengths), with seeded random weights.

Benchmark helper only: torchaudio's C extension does not load with the CPU torch of this
project's machines, but its model files import only torch, so models/conformer.py is loaded
by path (benchmarks/models/torchaudio_by_path.py), not through `import torchaudio`. The tool
never does this.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))   # loaded by path: its sibling helper
from torchaudio_by_path import torchaudio_model_module  # noqa: E402

SEED = 0

torch.manual_seed(SEED)
_lengths = torch.randint(1, 100, (10,), dtype=torch.int32)
ModelUnderTest = torchaudio_model_module("conformer").Conformer(
    input_dim=16, num_heads=4, ffn_dim=64, num_layers=2, depthwise_conv_kernel_size=31).eval()
ModelInputs = (torch.rand(10, int(_lengths.max()), 16), _lengths)
