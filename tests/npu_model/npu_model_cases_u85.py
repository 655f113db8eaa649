"""Ops only the Ethos-U85 delegates (transformer building blocks; nn.Upsample, which ExecuTorch
lowers to TOSA RESIZE and refuses for the +u55 subset U55/U65 use), for the U85 sweep. The
up/downsample cases: bilinear 2x (half-pixel centres: n = 4, d = 2, offset -1), bilinear 2x
align_corners (n = 22, d = 10, offset 0: no power-of-two n_y * n_x, so the rescale is a second
command), nearest 3x, nearest and bilinear to 9x7 (n = 6 in height, 14 in width), nearest
and bilinear downscales to 4x3 (d > n, positive offsets).

`npu_model_cases_u85:<case>` is a model spec (module:function), built from CASES on attribute
access as in npu_model_opcases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from npu_model_opcases import SEED, Lambda, _input, binary, conv, module, unary
from torch import nn


class _EmbeddingAdd(nn.Module):
    """An nn.Embedding lookup added to a feature input: TOSA GATHER, a gather DMA on U85."""

    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Embedding(50, 16)

    def forward(self, x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
        return self.table(indices) + x


def _embedding() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    return _EmbeddingAdd().eval(), (_input(1, 7, 16), torch.randint(0, 50, (1, 7)))


def _argmax(dim: int, shape: tuple[int, ...]) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """torch.argmax of an int8 input, cast to int32: ExecuTorch delegates ARGMAX only on an
    integer input whose every user narrows the index to int32 (tosa_supported_operators.py
    _check_argmax); the values are drawn from a narrow range so that ties occur."""
    generator = torch.Generator().manual_seed(SEED)
    values = torch.randint(-6, 6, shape, generator=generator, dtype=torch.int8)
    return Lambda(lambda x: torch.argmax(x, dim=dim).to(torch.int32)), (values,)


class _IndexPut(nn.Module):
    """x[rows] = values (torch.index_put with constant int64 row indices): TOSA SCATTER, which
    regor writes as a copy of x and a scatter DMA (destination idx_mode ENABLED)."""

    def __init__(self, rows: list[int]) -> None:
        super().__init__()
        self.register_buffer("rows", torch.tensor(rows, dtype=torch.int64))

    def forward(self, x: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten.index_put.default(x, (self.rows,), values)


def _index_put(rows: list[int], shape: tuple[int, int]
               ) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return _IndexPut(rows).eval(), (_input(*shape), _input(len(rows), shape[1], seed=SEED + 1))


CASES: dict[str, Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]] = {
    "layernorm": lambda: module(nn.LayerNorm(8), size=8),
    "gelu": lambda: unary(nn.functional.gelu),
    "softmax_last": lambda: unary(lambda x: torch.softmax(x, dim=-1)),
    "matmul": lambda: binary(torch.matmul),
    "permute_nhwc": lambda: unary(lambda x: x.permute(0, 2, 3, 1).contiguous()),
    "mean_c": lambda: unary(lambda x: x.mean(dim=1, keepdim=True)),
    "upsample_bilinear": lambda: module(nn.Upsample(scale_factor=2, mode="bilinear"), size=6),
    "upsample_bilinear_align": lambda: module(
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True), size=6),
    "upsample_nearest_x3": lambda: module(nn.Upsample(scale_factor=3, mode="nearest"), size=5),
    "upsample_nearest_9x7": lambda: module(nn.Upsample(size=(9, 7), mode="nearest"), size=6),
    "downsample_nearest": lambda: module(nn.Upsample(size=(4, 3), mode="nearest"), size=6),
    "upsample_bilinear_9x7": lambda: module(nn.Upsample(size=(9, 7), mode="bilinear"), size=6),
    "downsample_bilinear": lambda: module(nn.Upsample(size=(4, 3), mode="bilinear"), size=6),
    # comparisons and logical ops (ELEMENTWISE CMP_*, AND, OR, XOR, NOT on the U85)
    "ge": lambda: binary(torch.ge),
    "gt": lambda: binary(torch.gt),
    "eq_broadcast": lambda: binary(torch.eq, (1, 16, 1, 1)),
    "ne": lambda: binary(torch.ne),
    "logical_and": lambda: binary(lambda a, b: torch.logical_and(a > 0, b > 0)),
    "logical_or": lambda: binary(lambda a, b: torch.logical_or(a > 0, b < 0)),
    "logical_xor": lambda: binary(lambda a, b: torch.logical_xor(a > 0, b > 0)),
    "logical_not": lambda: unary(lambda x: torch.logical_not(x > 0)),
    "where_ge": lambda: binary(lambda a, b: torch.where(a >= b, a, b * 2)),
    "div": lambda: binary(lambda a, b: a / (b.abs() + 0.5)),
    # torch.amin: TOSA REDUCE_MIN, which regor runs as NPU_OP_POOL MIN (GeneratePoolingOp)
    "reduce_amin_c": lambda: unary(lambda x: x.amin(dim=1, keepdim=True), c=24),
    "reduce_amin_hw": lambda: unary(lambda x: x.amin(dim=(2, 3), keepdim=True), size=8),
    # torch.argmax: TOSA ARGMAX, which regor runs as NPU_OP_POOL ARGMAX_X (GeneratePoolingOp;
    # RewriteArgmax reshapes around the axis so that it is W)
    "argmax_c": lambda: _argmax(1, (1, 24, 5, 6)),
    "argmax_w": lambda: _argmax(3, (1, 4, 5, 9)),
    # torch.flip: TOSA REVERSE, which regor writes as OFM_PRECISION activation_reverse
    "flip_w": lambda: unary(lambda x: torch.flip(x, dims=[3]), size=7),
    "flip_c": lambda: unary(lambda x: torch.flip(x, dims=[1]), c=20),
    "flip_h": lambda: unary(lambda x: torch.flip(x, dims=[2]), size=7),
    # index_put: TOSA SCATTER, a copy and a scatter DMA
    "index_put_rows": lambda: _index_put([0, 3, 6], (8, 16)),
    # nn.Embedding: TOSA GATHER, a gather DMA (source idx_mode ENABLED, 2-D mode)
    "embedding": _embedding,
    # strides above 3 that still compile to one CONV each (measured: no kept accumulator)
    "conv_stride4": lambda: conv(8, 16, 4, stride=4, size=16),
    "conv1d_stride5": lambda: (nn.Conv1d(4, 8, 10, stride=5), (_input(1, 4, 40),)),
    # Wav2Letter's waveform stem (torchaudio Wav2Letter: kernel 250, stride 160, padding 45):
    # Vela decomposes the stride (scheduler_decompose.cpp DecomposeForStrides) into 250 CONVs
    # that keep the accumulator between them (ACC_FORMAT acc_input KEEP, acc_output DISABLE)
    "conv1d_w2l_stem": lambda: (nn.Conv1d(1, 16, 250, stride=160, padding=45),
                                (_input(1, 1, 800),)),
}


class Cond(nn.Module):
    """upstream's test_cond.py CondOneArgAndScalarOneOutput: torch.cond on the sum's sign."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def true_branch(arg: torch.Tensor) -> torch.Tensor:
            return arg + 1.0

        def false_branch(arg: torch.Tensor) -> torch.Tensor:
            return arg - 1.0

        return torch.cond(x.sum() > 0, true_branch, false_branch, [x])


class WhileHalving(nn.Module):
    """upstream's test_while.py DecreasingOutput with a threshold its inputs cross: halve x
    while its sum exceeds 1 (TOSA WHILE_LOOP; Vela loops back with NPU_OP_BRANCH)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def cond_fn(value: torch.Tensor) -> torch.Tensor:
            return torch.gt(value.sum(), torch.full((1,), 1.0)).squeeze()

        def body_fn(value: torch.Tensor) -> tuple[torch.Tensor]:
            return (torch.div(value, torch.full((1,), 2.0)),)

        result = torch.ops.higher_order.while_loop(cond_fn, body_fn, (x,), ())
        return result[0]  # type: ignore[no-any-return]


# Streams the model stops on, not in the sweep: the whole Wav2Letter stem (250 channels) on
# U85-128, whose kept accumulator Vela 5.1.0 and 5.2.0 cut into depth slices (em85_kept.c);
# exact when compiled with memory mode Sram_Only (test_npu_model_u85_core.py).
STOPS = {
    "conv1d_w2l_stem_250": lambda: (nn.Conv1d(1, 250, 250, stride=160, padding=45),
                                    (_input(1, 1, 400),)),
}
# A torch.cond and a while_loop, which Vela writes with NPU_OP_BRANCH (test_npu_model_u85_core.py).
# The cond's input has both signs (seed 1): the quantizer shares one range between x and both
# branches' outputs, and an all-negative calibration input (the default seed's) leaves no
# positive sum to take. The loop's input (sum about 8.7) is halved four times.
CONTROL_FLOW = {
    "torch_cond": lambda: (Cond(), (_input(1, 1, 2, 2, seed=1),)),
    "while_halving": lambda: (WhileHalving(), (_input(1, 1, 2, 2, seed=1) + 2,)),
}


def __getattr__(name: str) -> Callable[[], tuple[Any, tuple[torch.Tensor, ...]]]:
    if name in CASES:
        return CASES[name]
    if name in STOPS:
        return STOPS[name]
    if name in CONTROL_FLOW:
        return CONTROL_FLOW[name]
    raise AttributeError(name)
