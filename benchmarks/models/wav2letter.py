"""torchaudio's Wav2Letter as upstream's backends/arm/test/models/test_w2l_arm.py builds it
(num_features 1, waveform input, 400 frames), one input instead of upstream's batch of 10,
with seeded random weights (upstream's are random too).

Benchmark helper only: torchaudio's C extension does not load with the CPU torch of this
project's machines, so models/wav2letter.py is loaded by path
(benchmarks/models/torchaudio_by_path.py). The tool never does this.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))   # loaded by path: its sibling helper
from torchaudio_by_path import torchaudio_model_module  # noqa: E402

SEED = 0

torch.manual_seed(SEED)
ModelUnderTest = torchaudio_model_module("wav2letter").Wav2Letter(num_features=1).eval()
ModelInputs = (torch.randn(1, 1, 400),)
