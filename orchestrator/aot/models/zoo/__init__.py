"""Built-in models (torch imported here only; never at `import orchestrator`)."""

from __future__ import annotations

import importlib
from typing import Any

CALIBRATION_SAMPLES = 8        # seeded samples a built-in model is calibrated on
CALIBRATION_SEED = 7000


def load_builtin(name: str, torchvision: bool = False) -> tuple[Any, tuple[Any, ...]]:
    """Build built-in model `name`: (eval-mode nn.Module, example inputs)."""
    module = importlib.import_module(f"orchestrator.aot.models.zoo.{name}")
    built: tuple[Any, tuple[Any, ...]] = module.build(torchvision=torchvision)
    return built


def calibration_samples(example: tuple[Any, ...],
                        count: int = CALIBRATION_SAMPLES) -> list[tuple[Any, ...]]:
    """The example plus `count - 1` seeded samples of the same shapes (values in [-1, 1)),
    so a built-in model's quantization ranges (and its accuracy figures) do not rest on
    the one input it is run on."""
    from orchestrator.aot.models.zoo.common import example as seeded_input

    extra = [tuple(seeded_input(*tensor.shape, seed=CALIBRATION_SEED + 100 * sample + position)
                   for position, tensor in enumerate(example))
             for sample in range(1, count)]
    return [example, *extra]
