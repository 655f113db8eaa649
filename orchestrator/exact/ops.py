"""Which lowered ops have an exact host implementation, and which one (no torch).

- "model": this project's host model of the device kernel (exact/kernels.py);
- "upstream": ExecuTorch's own reference (the op's Python implementation), integer arithmetic
  that follows the CMSIS-NN kernel (requantize_cmsis = arm_nn_requantize);
- "ieee": float32 ops computed element by element (one IEEE rounding per element, like the
  portable kernels) and pure data movement;
- "tosa": delegated partitions, run on the TOSA reference model.
Anything else has no exact host implementation: the product falls back to the quantized
model's reference and names the op.
"""

from __future__ import annotations

from collections.abc import Iterable

MODELLED = ("cortex_m::quantize_per_tensor", "cortex_m::dequantize_per_tensor",
            "cortex_m::softmax", "cortex_m::quantized_avg_pool2d",
            "cortex_m::quantized_max_pool2d", "quantized_decomposed::quantize_per_tensor",
            "quantized_decomposed::dequantize_per_tensor")
UPSTREAM_EXACT = ("cortex_m::quantized_add", "cortex_m::quantized_mul",
                  "cortex_m::quantized_conv2d", "cortex_m::quantized_depthwise_conv2d",
                  "cortex_m::quantized_linear",
                  "cortex_m::quantized_activation", "cortex_m::transpose", "cortex_m::pad",
                  "cortex_m::minimum", "cortex_m::maximum")
ELEMENTWISE_OR_MOVEMENT = (
    "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::neg", "aten::abs",
    "aten::relu", "aten::clamp", "aten::hardtanh", "aten::maximum", "aten::minimum",
    "aten::where", "aten::view_copy", "aten::view", "aten::reshape", "aten::permute_copy",
    "aten::permute", "aten::clone", "aten::squeeze_copy", "aten::unsqueeze_copy",
    "aten::expand_copy", "aten::slice_copy", "aten::select_copy", "aten::cat",
    "aten::_to_copy", "aten::t_copy", "aten::transpose_copy", "aten::alias_copy",
    "dim_order_ops::_clone_dim_order", "dim_order_ops::_to_dim_order_copy",
    "aten::full", "aten::full_like", "aten::zeros", "aten::ones")
DELEGATE = "executorch_call_delegate"
BOOKKEEPING = ("getitem", "alloc")   # alloc: a scratch buffer the kernel fills


def exact_kind(op: str) -> str | None:
    """'model' / 'upstream' / 'ieee' / 'tosa' for an op name like 'cortex_m::softmax'
    (overload suffix allowed), None when no exact host implementation is known."""
    base = op.split(".")[0]
    if base == DELEGATE:
        return "tosa"
    if base in BOOKKEEPING:
        return "ieee"
    if base in MODELLED:
        return "model"
    if base in UPSTREAM_EXACT:
        return "upstream"
    if base in ELEMENTWISE_OR_MOVEMENT:
        return "ieee"
    return None


def unsupported(ops: Iterable[str]) -> list[str]:
    """The ops (sorted, unique) with no exact host implementation."""
    return sorted({op for op in ops if exact_kind(op) is None})
