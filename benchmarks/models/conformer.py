"""torchaudio's Conformer as upstream's backends/arm/test/models/test_conformer.py builds it
(input_dim 16, 4 heads, ffn_dim 64, 2 layers, depthwise kernel 31; features 10 x max(lengths)
x 16 and int32 lengths), with seeded random weights.

Benchmark helper only: torchaudio's C extension does not load with the CPU torch of this
project's machines, but its model files import only torch, so models/conformer.py is loaded
by path (conformer_module_by_path), not through `import torchaudio`. The tool never does this.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import torch

SEED = 0
MODULE = "_torchaudio_conformer_by_path"


def conformer_module_by_path() -> ModuleType:
    """torchaudio/models/conformer.py, found without importing torchaudio."""
    spec = importlib.util.find_spec("torchaudio")
    if spec is None or spec.origin is None:
        raise RuntimeError("torchaudio is not installed (pip install --no-deps torchaudio)")
    path = Path(spec.origin).parent / "models" / "conformer.py"
    loaded = importlib.util.spec_from_file_location(MODULE, path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    sys.modules[MODULE] = module   # torch.export resolves the classes by module name
    loaded.loader.exec_module(module)
    return module


torch.manual_seed(SEED)
_lengths = torch.randint(1, 100, (10,), dtype=torch.int32)
ModelUnderTest = conformer_module_by_path().Conformer(
    input_dim=16, num_heads=4, ffn_dim=64, num_layers=2, depthwise_conv_kernel_size=31).eval()
ModelInputs = (torch.rand(10, int(_lengths.max()), 16), _lengths)
