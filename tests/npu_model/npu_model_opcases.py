"""Single-op PyTorch modules for the NPU-model sweep, built by name.

`npu_model_opcases:<case>` is a model spec (module:function): the function is made on attribute
access from CASES, so every case is one entry here and a compile is cached per case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

SEED = 1234


def _input(*shape: int, seed: int = SEED) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=generator) * 4 - 2


class Lambda(nn.Module):
    """A module around a function of the inputs (elementwise and activation cases)."""

    def __init__(self, function: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.function = function

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.function(*inputs)


def conv(cin: int, cout: int, k: int, stride: int = 1, padding: int = 0, dilation: int = 1,
         groups: int = 1, size: int = 12) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(SEED)
    layer = nn.Conv2d(cin, cout, k, stride=stride, padding=padding, dilation=dilation,
                      groups=groups)
    return nn.Sequential(layer, nn.ReLU()), (_input(1, cin, size, size),)


def linear(cin: int, cout: int) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(SEED)
    return nn.Linear(cin, cout), (_input(1, cin),)


def unary(function: Callable[..., torch.Tensor], c: int = 16, size: int = 6
          ) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return Lambda(function), (_input(1, c, size, size),)


def binary(function: Callable[..., torch.Tensor], shape_b: tuple[int, ...] = (1, 16, 6, 6),
           scale_b: float = 1.0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return Lambda(function), (_input(1, 16, 6, 6), _input(*shape_b, seed=SEED + 1) * scale_b)


def module(layer: nn.Module, c: int = 16, size: int = 8
           ) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return layer, (_input(1, c, size, size),)


CASES: dict[str, Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]] = {
    **{f"conv_k{k}": (lambda k=k: conv(8, 16, k, padding=k // 2)) for k in range(1, 8)},
    "conv_s2": lambda: conv(8, 16, 3, stride=2, padding=1),
    "conv_s3": lambda: conv(8, 16, 3, stride=3),
    "conv_d2": lambda: conv(8, 16, 3, dilation=2, padding=2),
    "conv_c3_5": lambda: conv(3, 5, 3, padding=1),
    "conv_c20_33": lambda: conv(20, 33, 3, padding=1),
    "conv_c64_48": lambda: conv(64, 48, 1, size=6),
    # 2,359,296 weights in one command (ResNet-18's last 3x3 layer): more than the model's
    # decoded-weight buffer, so they are decoded in blocks of output channels
    "conv_c512_k3": lambda: conv(512, 512, 3, padding=1, size=3),
    "conv_k5_s2_valid": lambda: conv(16, 24, 5, stride=2),
    "conv_k1x7": lambda: (nn.Conv2d(8, 16, (1, 7), padding=(0, 3)), (_input(1, 8, 10, 10),)),
    "conv_stem_224": lambda: conv(3, 32, 3, stride=2, padding=1, size=224),
    "dw_k3_112": lambda: conv(32, 32, 3, padding=1, groups=32, size=112),
    "dw_k3": lambda: conv(16, 16, 3, padding=1, groups=16),
    "dw_k3_s2": lambda: conv(24, 24, 3, stride=2, padding=1, groups=24),
    "dw_k5_c17": lambda: conv(17, 17, 5, padding=2, groups=17),
    "dw_mult2": lambda: conv(8, 16, 3, padding=1, groups=8),
    "linear_64_10": lambda: linear(64, 10),
    "linear_100_37": lambda: linear(100, 37),
    "maxpool_k2": lambda: module(nn.MaxPool2d(2)),
    "maxpool_k3_p1": lambda: module(nn.MaxPool2d(3, stride=1, padding=1)),
    "avgpool_k2": lambda: module(nn.AvgPool2d(2)),
    "avgpool_k3_s1": lambda: module(nn.AvgPool2d(3, stride=1)),
    "avgpool_k3_p1": lambda: module(nn.AvgPool2d(3, stride=1, padding=1)),
    "global_avgpool": lambda: module(nn.AdaptiveAvgPool2d(1)),
    "add": lambda: binary(torch.add),
    "add_scaled": lambda: binary(torch.add, scale_b=8.0),
    "sub": lambda: binary(torch.sub, scale_b=3.0),
    "mul": lambda: binary(torch.mul),
    "add_broadcast_c": lambda: binary(torch.add, (1, 16, 1, 1)),
    "mul_broadcast_hw": lambda: binary(torch.mul, (1, 1, 6, 6)),
    "minimum": lambda: binary(torch.minimum),
    "maximum": lambda: binary(torch.maximum),
    "abs": lambda: unary(torch.abs),
    "relu6": lambda: unary(nn.functional.relu6),
    "leaky_relu": lambda: unary(lambda x: nn.functional.leaky_relu(x, 0.1)),
    "hardswish": lambda: unary(nn.functional.hardswish),
    "hardsigmoid": lambda: unary(nn.functional.hardsigmoid),
    "sigmoid": lambda: unary(torch.sigmoid),
    "tanh": lambda: unary(torch.tanh),
    "softmax": lambda: unary(lambda x: torch.softmax(x, dim=1)),
    "mean_hw": lambda: unary(lambda x: x.mean(dim=(2, 3), keepdim=True)),
    "sum_c": lambda: unary(lambda x: x.sum(dim=1, keepdim=True)),
    "clamp": lambda: unary(lambda x: torch.clamp(x, -0.5, 1.0)),
    "upsample_nearest": lambda: module(nn.Upsample(scale_factor=2, mode="nearest"), size=6),
    "conv_transpose": lambda: module(nn.ConvTranspose2d(16, 8, 2, stride=2), size=6),
    "concat": lambda: binary(lambda a, b: torch.cat([a, b], dim=1)),
}

def __getattr__(name: str) -> Callable[[], tuple[Any, tuple[torch.Tensor, ...]]]:
    if name in CASES:
        return CASES[name]
    raise AttributeError(name)
