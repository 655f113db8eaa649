"""Elementwise cases beyond the int8 sweep: shifts (Ethos-U SHL / SHR modes) and integer
arithmetic on unquantized int32 tensors.

`npu_model_cases_ew:<case>` is a model spec (module:function), built by name like npu_model_opcases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from npu_model_opcases import Lambda
from torch import nn

SEED = 4321


def _int32(*shape: int, seed: int = SEED) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(-(2 ** 31), 2 ** 31 - 1, shape, generator=generator, dtype=torch.int32)


class ChannelShift(nn.Module):
    """x shifted by a constant amount per channel (a broadcast IFM2 from the weights region)."""

    def __init__(self, left: bool, amounts: list[int]) -> None:
        super().__init__()
        self.left = left
        self.register_buffer("amounts", torch.tensor(amounts, dtype=torch.int32).view(1, -1, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        amounts = self.get_buffer("amounts")
        if self.left:
            return torch.bitwise_left_shift(x, amounts)
        return torch.bitwise_right_shift(x, amounts)


def shift(function: Callable[..., torch.Tensor] | nn.Module, dtype: torch.dtype = torch.int32
          ) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    module = function if isinstance(function, nn.Module) else Lambda(function)
    info = torch.iinfo(dtype)
    return module, (_int32(1, 16, 6, 6).clamp(info.min, info.max).to(dtype),)


def int32_binary(function: Callable[..., torch.Tensor]
                 ) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return Lambda(function), (_int32(1, 16, 6, 6), _int32(1, 16, 6, 6, seed=SEED + 1))


# Where the hardware departs from TOSA (the model follows the hardware;
# test_npu_model_elementwise.py test_narrowing_cast_saturates_where_tosa_wraps): strict xfails
# wherever a case is swept.
SATURATING_CAST = (
    "int8 << 1 is computed in int32 and cast back to int8: TOSA CAST wraps, but Vela lowers "
    "the CAST to an ADD into an int8 OFM (regor graphir_optimiser.cpp:1970 'Replace CAST with "
    "ADD'; its 'disable clipping' range at :1983 is capped at the OFM type by "
    "ethos_u55_register_cs_generator.cpp:834-849 GenerateActivation), so the stream programs "
    "ACTIVATION_MIN/MAX = -128/127 and the NPU saturates where TOSA wraps")
HARDWARE_DEPARTS = {"lshift_int8": SATURATING_CAST}

CASES: dict[str, Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]] = {
    "rshift_3": lambda: shift(lambda x: x >> 3),
    "rshift_31": lambda: shift(lambda x: x >> 31),
    "lshift_5": lambda: shift(lambda x: x << 5),
    "lshift_31": lambda: shift(lambda x: x << 31),
    "rshift_channels": lambda: shift(ChannelShift(False, list(range(16)))),
    "lshift_channels": lambda: shift(ChannelShift(True, [2 * c for c in range(16)])),
    "rshift_int16": lambda: shift(lambda x: x >> 4, torch.int16),
    "rshift_int8": lambda: shift(lambda x: x >> 2, torch.int8),
    "lshift_int8": lambda: shift(lambda x: x << 1, torch.int8),
    # int32 ADD/SUB/MUL overflow is UNPREDICTABLE in TOSA (the reference refuses to run): the
    # operands are shifted into range first, on the NPU too.
    "add_int32": lambda: int32_binary(lambda x, y: (x >> 2) + (y >> 2)),
    "sub_int32": lambda: int32_binary(lambda x, y: (x >> 2) - (y >> 2)),
    "mul_int32": lambda: int32_binary(lambda x, y: (x >> 16) * (y >> 16)),
    "minimum_int32": lambda: int32_binary(torch.minimum),
    "maximum_int32": lambda: int32_binary(torch.maximum),
    "abs_int32": lambda: shift(torch.abs),
    "and_int32": lambda: int32_binary(torch.bitwise_and),
    "or_int32": lambda: int32_binary(torch.bitwise_or),
    "xor_int32": lambda: int32_binary(torch.bitwise_xor),
    "not_int32": lambda: shift(torch.bitwise_not),
    "div_int32": lambda: int32_binary(
        lambda x, y: torch.div(x, (y >> 20) | 1, rounding_mode="trunc")),
    "ge_int32": lambda: int32_binary(torch.ge),
}


def __getattr__(name: str) -> Callable[[], tuple[Any, tuple[torch.Tensor, ...]]]:
    if name in CASES:
        return CASES[name]
    raise AttributeError(name)
