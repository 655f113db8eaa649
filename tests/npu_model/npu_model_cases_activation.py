"""Activation, LUT and softmax cases for the NPU-model sweep, built by name.

`npu_model_cases_activation:<case>` is a model spec (module:function), made on attribute access
from CASES. Each runs with int8 activations and with 16-bit activations (quantize a16w8,
ExecuTorch's int16 TABLEs: Vela's 512-entry interpolating LUTs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

SEED = 4321
Case = tuple[nn.Module, tuple[torch.Tensor, ...]]


class Lambda(nn.Module):
    """A module around a function of its input."""

    def __init__(self, function: Callable[[torch.Tensor], torch.Tensor]) -> None:
        super().__init__()
        self.function = function

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x)


def unary(function: Callable[[torch.Tensor], torch.Tensor], shape: tuple[int, ...] = (1, 20, 5, 7),
          spread: float = 6.0) -> Case:
    """`function` on a seeded input in [-spread/2, spread/2) (20 channels: not a multiple of 16)."""
    generator = torch.Generator().manual_seed(SEED)
    return Lambda(function), ((torch.rand(*shape, generator=generator) - 0.5) * spread,)


def _chain(x: torch.Tensor) -> torch.Tensor:
    """Three table activations in one stream: three LUT slots, reloaded LUTs."""
    return torch.tanh(torch.sigmoid(x) * 3.0 - 1.5) + torch.exp(-x.abs())


def _conv_sigmoid() -> Case:
    torch.manual_seed(SEED)
    layer = nn.Conv2d(8, 24, 3, padding=1)
    generator = torch.Generator().manual_seed(SEED)
    return (nn.Sequential(layer, nn.Sigmoid()),
            ((torch.rand(1, 8, 9, 9, generator=generator) - 0.5) * 4,))


CASES: dict[str, Callable[[], Case]] = {
    "sigmoid": lambda: unary(torch.sigmoid),
    "tanh": lambda: unary(torch.tanh),
    "hardswish": lambda: unary(nn.functional.hardswish),
    "hardsigmoid": lambda: unary(nn.functional.hardsigmoid),
    "silu": lambda: unary(nn.functional.silu),
    "gelu": lambda: unary(nn.functional.gelu),
    "elu": lambda: unary(nn.functional.elu),
    "exp": lambda: unary(torch.exp, spread=4.0),
    "leaky_relu": lambda: unary(lambda x: nn.functional.leaky_relu(x, 0.2)),
    "clamp_narrow": lambda: unary(lambda x: torch.clamp(x, -0.25, 0.5)),
    "softmax_last": lambda: unary(lambda x: torch.softmax(x, dim=-1)),
    "softmax_c": lambda: unary(lambda x: torch.softmax(x, dim=1)),
    "softmax_h": lambda: unary(lambda x: torch.softmax(x, dim=2)),
    "softmax_2d": lambda: unary(lambda x: torch.softmax(x, dim=-1), shape=(3, 37)),
    "log_softmax": lambda: unary(lambda x: torch.log_softmax(x, dim=-1)),
    "lut_chain": lambda: unary(_chain),
    "conv_sigmoid": _conv_sigmoid,
}


def __getattr__(name: str) -> Callable[[], tuple[Any, tuple[torch.Tensor, ...]]]:
    if name in CASES:
        return CASES[name]
    raise AttributeError(name)
