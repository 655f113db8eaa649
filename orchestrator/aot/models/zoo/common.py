"""Shared helpers for built-in models: deterministic weights and inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import torch

SEED = 20260522
T = TypeVar("T")


def seeded(factory: Callable[[], T], seed: int = SEED) -> T:
    """Call `factory` with torch's RNG seeded, leaving the caller's RNG state untouched."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return factory()


def example(*shape: int, seed: int = SEED) -> torch.Tensor:
    """A deterministic float32 input in [-1, 1) of `shape`."""
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=generator) * 2 - 1


def frozen(model: torch.nn.Module) -> torch.nn.Module:
    """Eval mode, no gradients."""
    model.eval()
    model.requires_grad_(False)
    return model
