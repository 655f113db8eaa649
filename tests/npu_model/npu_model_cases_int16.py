"""More single-op cases for the 16-bit (a16w8) sweep: broadcasts, scalars, min/max, leaky relu
slopes, pools, reductions, depth multipliers, strided and grouped convolutions, channel counts
that are not multiples of 16. Built by name like npu_model_opcases (model spec module:function).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from npu_model_opcases import Lambda, _input, binary, conv, linear, module, unary
from torch import nn

CASES: dict[str, Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]] = {
    "sub_broadcast_c": lambda: binary(torch.sub, (1, 16, 1, 1), scale_b=2.0),
    "sub_broadcast_hw": lambda: binary(torch.sub, (1, 1, 6, 6), scale_b=0.25),
    "add_broadcast_hw": lambda: binary(torch.add, (1, 1, 6, 6), scale_b=5.0),
    "mul_broadcast_c": lambda: binary(torch.mul, (1, 16, 1, 1), scale_b=3.0),
    "minimum_broadcast_c": lambda: binary(torch.minimum, (1, 16, 1, 1)),
    "maximum_broadcast_hw": lambda: binary(torch.maximum, (1, 1, 6, 6), scale_b=2.0),
    "minimum_scaled": lambda: binary(torch.minimum, scale_b=4.0),
    "add_scalar": lambda: unary(lambda x: x + 0.75),
    "rsub_scalar": lambda: unary(lambda x: 1.5 - x),
    "mul_scalar": lambda: unary(lambda x: x * 3.0),
    "add_relu": lambda: binary(lambda a, b: torch.relu(a + b), scale_b=2.0),
    "leaky_relu_02": lambda: unary(lambda x: nn.functional.leaky_relu(x, 0.2)),
    "leaky_relu_15": lambda: unary(lambda x: nn.functional.leaky_relu(x, 1.5)),
    "abs_c20": lambda: unary(torch.abs, c=20, size=5),
    "add_c20": lambda: (Lambda(torch.add),
                        (_input(1, 20, 5, 7), _input(1, 20, 5, 7, seed=7) * 1.5)),
    "mean_c": lambda: unary(lambda x: x.mean(dim=1, keepdim=True)),
    "mean_hw_12": lambda: unary(lambda x: x.mean(dim=(2, 3), keepdim=True), c=24, size=12),
    "avgpool_k2_s1": lambda: module(nn.AvgPool2d(2, stride=1)),
    "avgpool_k3_s2_c20": lambda: module(nn.AvgPool2d(3, stride=2), c=20, size=9),
    "maxpool_k3_s2": lambda: module(nn.MaxPool2d(3, stride=2), size=9),
    "maxpool_k2_c20": lambda: module(nn.MaxPool2d(2), c=20),
    "dw_mult3": lambda: conv(8, 24, 3, padding=1, groups=8),
    "dw_k5_s2": lambda: conv(16, 16, 5, stride=2, padding=2, groups=16),
    "conv_groups2": lambda: conv(16, 32, 3, padding=1, groups=2),
    "conv_k5_s2": lambda: conv(8, 24, 5, stride=2, padding=2),
    "conv_c17_9": lambda: conv(17, 9, 3, padding=1, size=10),
    "linear_256_64": lambda: linear(256, 64),
    "linear_7_3": lambda: linear(7, 3),
}


def __getattr__(name: str) -> Callable[[], tuple[Any, tuple[torch.Tensor, ...]]]:
    if name in CASES:
        return CASES[name]
    raise AttributeError(name)
