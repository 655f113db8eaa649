"""Built-in models (torch imported here only; never at `import orchestrator`)."""

from __future__ import annotations

import importlib
from typing import Any


def load_builtin(name: str, torchvision: bool = False) -> tuple[Any, tuple[Any, ...]]:
    """Build built-in model `name`: (eval-mode nn.Module, example inputs)."""
    module = importlib.import_module(f"orchestrator.aot.zoo.{name}")
    built: tuple[Any, tuple[Any, ...]] = module.build(torchvision=torchvision)
    return built
