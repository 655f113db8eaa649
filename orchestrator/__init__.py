"""ethosu-orchestrator: PyTorch model -> Ethos-U NPU / Cortex-M in simulation.

Importing this package is cheap: it never imports torch or executorch (stages that
need them import them lazily inside the functions that compile).
"""

from __future__ import annotations

__version__ = "0.1.0"
