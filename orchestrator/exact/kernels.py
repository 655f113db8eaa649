"""Host models of device kernels whose upstream Python references are not bit-exact.

Each follows the C source the runner firmware is built from (ExecuTorch v1.4.1
backends/cortex_m/ops, CMSIS-NN arm_softmax_s8 / arm_avgpool_s8). Every catalogue CPU is built
with -mcpu=cortex-m55 (Helium MVE), so the MVE paths are the ones modelled; arm_softmax_s8
takes its scalar path under GCC 12.2 (CMSIS-NN's ARM_GCC_12_2_ICE), which equals the MVE
arithmetic. Imports torch and numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1
SOFTMAX_ACCUM_BITS = 12
MVE_LANES = {"int8": 16, "int16": 8}   # elements per MVE loop step in (de)quantize


def _physical(tensor: Any) -> tuple[np.ndarray[Any, Any], tuple[int, ...]]:
    """The tensor's elements in memory order, and the dim order that gives them."""
    strides = tensor.stride()
    order = tuple(sorted(range(tensor.dim()), key=lambda d: (-strides[d], d)))
    return tensor.permute(order).contiguous().numpy().reshape(-1), order


def _logical(flat: np.ndarray[Any, Any], like: Any, order: tuple[int, ...]) -> Any:
    """A tensor shaped like `like` (same memory order) from elements in memory order."""
    import torch

    stored = torch.from_numpy(np.ascontiguousarray(flat)).reshape(
        tuple(like.shape[d] for d in order))
    return stored.permute(tuple(int(d) for d in np.argsort(order)))


def _quantize(tensor: Any, scale: float, zero_point: int, quant_min: int, quant_max: int,
              dtype: Any, lanes: int) -> Any:
    """inv_scale = 1.0f/scale; the first multiple-of-`lanes` elements (memory order) rounded
    once from the exact product (Helium FMA with the 1.5*2^23 magic number, narrowed to
    int16), the rest as nearbyint(float(inv_scale * x)); clamped."""
    name = str(dtype).removeprefix("torch.")
    values, order = _physical(tensor)
    values = values.astype(np.float32)
    inv_scale = np.float32(1.0) / np.float32(scale)
    body = values.size - values.size % lanes if lanes > 1 else 0
    exact = np.rint(values[:body].astype(np.float64) * np.float64(inv_scale))
    blocks = (exact.astype(np.int64) + zero_point).astype(np.int32).astype(np.int16)
    tail = np.rint(values[body:] * inv_scale).astype(np.int64) + zero_point
    steps = np.concatenate([blocks.astype(np.int64), tail])
    return _logical(np.clip(steps, quant_min, quant_max).astype(name), tensor, order)


def quantize_per_tensor(tensor: Any, scale: float, zero_point: int, quant_min: int,
                        quant_max: int, dtype: Any) -> Any:
    """cortex_m::quantize_per_tensor (Helium: 16 int8 or 8 int16 lanes per step)."""
    lanes = MVE_LANES.get(str(dtype).removeprefix("torch."), 1)
    return _quantize(tensor, scale, zero_point, quant_min, quant_max, dtype, lanes)


def portable_quantize_per_tensor(tensor: Any, scale: float, zero_point: int,
                                 quant_min: int, quant_max: int, dtype: Any) -> Any:
    """quantized_decomposed::quantize_per_tensor, ExecuTorch's portable kernel (no NEON on
    Cortex-M nor x86): nearbyint(float(1.0f/scale * x)) + zero_point, clamped."""
    return _quantize(tensor, scale, zero_point, quant_min, quant_max, dtype, 1)


def dequantize_per_tensor(tensor: Any, scale: float, zero_point: int, quant_min: int,
                          quant_max: int, dtype: Any) -> Any:
    """cortex_m::dequantize_per_tensor and the portable quantized_decomposed kernel alike:
    float(q - zero_point) * float(scale), one float32 rounding."""
    import torch

    del quant_min, quant_max, dtype
    shifted = (tensor.to(torch.int32) - int(zero_point)).to(torch.float32)
    return shifted * torch.tensor(np.float32(scale))


def _wrap(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """int64 -> the int32 value C arithmetic leaves (two's complement wrap)."""
    return ((values + (1 << 31)) % (1 << 32)) - (1 << 31)


def _trunc_div(numerator: np.ndarray[Any, Any], denominator: int) -> np.ndarray[Any, Any]:
    """C integer division (rounds toward zero)."""
    quotient = np.abs(numerator) // abs(denominator)
    return np.where((numerator < 0) != (denominator < 0), -quotient, quotient)


def mul_sat(a: Any, b: Any) -> np.ndarray[Any, Any]:
    """arm_nn_doubling_high_mult: round half away from zero, saturating INT32_MIN^2."""
    a64, b64 = np.asarray(a, np.int64), np.asarray(b, np.int64)
    nudge = np.where((a64 < 0) ^ (b64 < 0), 1 - (1 << 30), 1 << 30)
    result = _trunc_div(a64 * b64 + nudge, 1 << 31)
    return np.where((a64 == b64) & (a64 == INT32_MIN), INT32_MAX, _wrap(result))


def div_pow2(dividend: Any, exponent: Any) -> np.ndarray[Any, Any]:
    """arm_nn_divide_by_power_of_two: rounding right shift, midpoints away from zero."""
    value = np.asarray(dividend, np.int64)
    shift = np.asarray(exponent, np.int64)
    mask = (np.int64(1) << shift) - 1
    remainder = value & mask
    result = value >> shift
    threshold = (mask >> 1) + (result < 0)
    return result + (remainder > threshold)


def mul_pow2(value: Any, exponent: int) -> np.ndarray[Any, Any]:
    """arm_nn_mult_by_power_of_two: saturating left shift."""
    value = np.asarray(value, np.int64)
    threshold = (1 << (31 - exponent)) - 1
    shifted = _wrap(value << exponent)
    return np.where(value > threshold, INT32_MAX, np.where(value < -threshold, INT32_MIN,
                                                           shifted))


EXP_CONSTANTS = (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)


def exp_on_negative_values(value: Any) -> np.ndarray[Any, Any]:
    """arm_nn_exp_on_negative_values (gemmlowp's fixed-point exp for x <= 0, Q5.26)."""
    val = np.asarray(value, np.int64)
    shift = 24
    mod_minus_quarter = (val & ((1 << shift) - 1)) - (1 << shift)
    remainder = mod_minus_quarter - val
    x = _wrap((mod_minus_quarter << 5) + (1 << 28))
    x2 = mul_sat(x, x)
    inner = div_pow2(_wrap(mul_sat(div_pow2(mul_sat(x2, x2), 2) + mul_sat(x2, x),
                                   715827883) + x2), 1)
    result = _wrap(1895147668 + mul_sat(1895147668, _wrap(x + inner)))
    for constant in EXP_CONSTANTS:
        result = np.where(remainder & (1 << shift), mul_sat(result, constant), result)
        shift += 1
    return np.where(val == 0, INT32_MAX, result)


def one_over_one_plus_x(value: Any) -> np.ndarray[Any, Any]:
    """arm_nn_one_over_one_plus_x_for_x_in_0_1 (Newton-Raphson, Q0.31)."""
    total = np.asarray(value, np.int64) + INT32_MAX
    half = _trunc_div(total + np.where(total >= 0, 1, -1), 2)
    x = _wrap(1515870810 + mul_sat(half, -1010580540))
    for _ in range(3):
        x = _wrap(x + mul_pow2(mul_sat(x, _wrap((1 << 29) - mul_sat(half, x))), 2))
    return mul_pow2(x, 1)


def _clz(value: int) -> int:
    return 32 - int(value).bit_length() if value > 0 else (32 if value == 0 else 0)


def _softmax_row(row: np.ndarray[Any, Any], mult: int, shift: int,
                 diff_min: int) -> np.ndarray[Any, Any]:
    diff = row.astype(np.int64) - int(row.max())
    used = diff >= diff_min
    exps = exp_on_negative_values(mul_sat(_wrap(diff * (1 << shift)), mult))
    total = int(_wrap(np.array(div_pow2(exps, SOFTMAX_ACCUM_BITS)[used].sum())))
    headroom = _clz(total)
    shifted = _wrap(np.array((total << headroom) if total > 0 else 0) - (1 << 31))
    scale = one_over_one_plus_x(shifted)
    bits_over_unit = SOFTMAX_ACCUM_BITS - headroom + 23
    result = div_pow2(mul_sat(scale, exps), bits_over_unit) - 128
    return np.where(used, np.clip(result, -128, 127), -128).astype(np.int8)


def softmax(tensor: Any, dim: int, input_zero_point: int, output_zero_point: int,
            input_multiplier: int, input_shift: int, diff_min: int) -> Any:
    """cortex_m::softmax = arm_softmax_s8 over the last dimension (int8 in, int8 out)."""
    import torch

    del input_zero_point, output_zero_point   # the kernel ignores both (output zp is -128)
    if dim not in (-1, tensor.dim() - 1):
        raise ValueError("cortex_m::softmax runs over the last dimension only")
    rows = tensor.contiguous().numpy().reshape(-1, tensor.shape[-1])
    out = np.stack([_softmax_row(row, input_multiplier, input_shift, diff_min)
                    for row in rows])
    return torch.from_numpy(out.reshape(tuple(tensor.shape)))


def _pairs(*values: Any) -> list[tuple[int, int]]:
    """Pool parameters as (h, w) pairs (a single value applies to both)."""
    return [(int(v[0]), int(v[-1])) if len(v) else (0, 0) for v in values]


def avg_pool2d(tensor: Any, kernel_size: Any, stride: Any, padding: Any, zero_point: int,
               multiplier: int, shift: int, scratch: Any) -> Any:
    """cortex_m::quantized_avg_pool2d = arm_avgpool_s8: integer window sum over valid
    positions, (sum +- count/2) / count truncated, clamped to int8 (zp/multiplier unused)."""
    import torch
    import torch.nn.functional as F

    del zero_point, multiplier, shift, scratch
    kernel, step, pad = _pairs(kernel_size, stride, padding)
    values = tensor.to(torch.float64)
    sums = F.avg_pool2d(values, kernel, step, pad, divisor_override=1)
    counts = F.avg_pool2d(torch.ones_like(values), kernel, step, pad, divisor_override=1)
    total = sums.round().to(torch.int64).numpy()
    count = counts.round().to(torch.int64).numpy()
    half = count // 2
    rounded = np.where(total > 0, total + half, total - half)
    quotient = np.abs(rounded) // count * np.sign(rounded)
    out = torch.from_numpy(np.clip(quotient, -128, 127).astype(np.int8))
    return out.contiguous(memory_format=torch.channels_last)


def max_pool2d(tensor: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
               ceil_mode: bool, input_zero_point: int, output_zero_point: int,
               activation_min: int, activation_max: int) -> Any:
    """cortex_m::quantized_max_pool2d = arm_max_pool_s8: the window maximum, clamped.

    Upstream's reference is the same maximum, but torch's int8 channels-last max_pool2d
    refuses to run; int8 values are exact in float32, so the maximum is taken there.
    """
    import torch
    import torch.nn.functional as F

    if input_zero_point != output_zero_point or ceil_mode or tuple(dilation) not in (
            (1, 1), (1,)):
        raise ValueError("cortex_m::quantized_max_pool2d: unsupported parameters")
    kernel, step, pad = _pairs(kernel_size, stride, padding)
    result = F.max_pool2d(tensor.to(torch.float32).contiguous(), kernel, step, pad)
    result = torch.clamp(result, activation_min, activation_max).to(torch.int8)
    return result.contiguous(memory_format=torch.channels_last)


# op name (namespace::name) -> host model of the device kernel
KERNELS: dict[str, Callable[..., Any]] = {
    "cortex_m::quantize_per_tensor": quantize_per_tensor,
    "cortex_m::dequantize_per_tensor": dequantize_per_tensor,
    "cortex_m::softmax": softmax,
    "cortex_m::quantized_avg_pool2d": avg_pool2d,
    "cortex_m::quantized_max_pool2d": max_pool2d,
    "quantized_decomposed::quantize_per_tensor": portable_quantize_per_tensor,
    "quantized_decomposed::dequantize_per_tensor": dequantize_per_tensor,
}
