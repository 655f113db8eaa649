"""Host models of the device kernels (exact/kernels.py) on hand-checked cases, including the
ones where upstream's float-based Python references round differently."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from orchestrator.exact import kernels  # noqa: E402

INT32_MAX = 2**31 - 1


def test_fixed_point_helpers_follow_cmsis_nn() -> None:
    assert kernels.mul_sat(-(2**31), -(2**31)) == INT32_MAX
    assert kernels.mul_sat(1 << 30, 1 << 30) == 1 << 29
    assert kernels.div_pow2(5, 1) == 3 and kernels.div_pow2(-5, 1) == -3   # half away from 0
    assert kernels.div_pow2(-6, 2) == -2 and kernels.div_pow2(6, 2) == 2
    assert kernels.exp_on_negative_values(0) == INT32_MAX
    assert 0 < kernels.exp_on_negative_values(-(1 << 26)) < INT32_MAX   # exp(-1) in Q0.31
    assert abs(int(kernels.exp_on_negative_values(-(1 << 26))) / 2**31 - np.exp(-1)) < 1e-6


def test_softmax_of_equal_values_splits_evenly_and_a_clear_winner_saturates() -> None:
    # input_multiplier/shift for an input scale of 1/16 (beta 1), as the quantizer derives
    rows = torch.tensor([[3, 3, 3, 3], [127, -128, -128, -128]], dtype=torch.int8)
    out = kernels.softmax(rows, -1, 0, -128, 1073741824, 24, -1984)
    assert out.dtype == torch.int8
    assert out[0].tolist() == [-64, -64, -64, -64]
    assert out[1].tolist() == [127, -128, -128, -128]


def test_quantize_rounds_helium_blocks_once_and_the_tail_twice() -> None:
    scale = 0.0078363548964262
    inv = np.float32(1.0) / np.float32(scale)
    values = np.random.default_rng(5).uniform(-1, 1, 200_000).astype(np.float32)
    once = np.rint(values.astype(np.float64) * np.float64(inv))
    twice = np.rint(values * inv)
    differing = values[once != twice]
    assert differing.size, "no value where the two roundings differ in this sample"
    value = differing[0]
    tensor = torch.full((17,), float(value), dtype=torch.float32)
    out = kernels.quantize_per_tensor(tensor, scale, 0, -128, 127, torch.int8).numpy()
    assert (out[:16] == once[values == value][0]).all()
    assert out[16] == twice[values == value][0] and out[16] != out[0]
    portable = kernels.portable_quantize_per_tensor(tensor, scale, 0, -128, 127, torch.int8)
    assert (portable.numpy() == out[16]).all()


def test_quantize_follows_memory_order_for_channels_last() -> None:
    tensor = torch.linspace(-1, 1, 2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
    last = tensor.contiguous(memory_format=torch.channels_last)
    out = kernels.quantize_per_tensor(last, 0.01, 3, -128, 127, torch.int8)
    assert out.shape == tensor.shape and out.is_contiguous(memory_format=torch.channels_last)
    expected = torch.clamp(torch.round(tensor / 0.01) + 3, -128, 127).to(torch.int8)
    assert (out.to(torch.int32) - expected.to(torch.int32)).abs().max() <= 1


def test_avg_pool_rounds_half_away_from_zero_over_valid_positions() -> None:
    x = torch.tensor([[[[2, 3], [-3, -2]]]], dtype=torch.int8).contiguous(
        memory_format=torch.channels_last)
    pooled = kernels.avg_pool2d(x, [1, 2], [1, 2], [0, 0], 0, 0, 0, None)
    assert pooled.flatten().tolist() == [3, -3]          # 2.5 -> 3, -2.5 -> -3 (not even)
    padded = kernels.avg_pool2d(x, [3, 3], [1, 1], [1, 1], 0, 0, 0, None)
    assert padded.flatten().tolist() == [0, 0, 0, 0]    # every window holds all four: 0 / 4


def test_max_pool_takes_the_window_maximum_on_channels_last_int8() -> None:
    x = torch.arange(-8, 8, dtype=torch.int8).reshape(1, 1, 4, 4).contiguous(
        memory_format=torch.channels_last)
    out = kernels.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1], False, 0, 0, -128, 127)
    assert out.flatten().tolist() == [-3, -1, 5, 7]


def test_dequantize_is_one_float32_rounding() -> None:
    q = torch.tensor([-128, -1, 0, 77, 127], dtype=torch.int8)
    out = kernels.dequantize_per_tensor(q, 0.1, 3, -128, 127, torch.int8)
    assert out.dtype == torch.float32
    assert out.tolist() == ((q.to(torch.float32) - 3) * np.float32(0.1)).tolist()
