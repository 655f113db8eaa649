"""Delegation report: which ops run on the NPU, which on the CPU, and which stayed float."""

from __future__ import annotations

from collections import Counter
from typing import Any

DELEGATE_CALL = "executorch_call_delegate"
BOOKKEEPING = ("getitem", "alloc")
_NOT_COMPUTE = ("getitem", DELEGATE_CALL, "quantize_per", "dequantize_per", "sym_size")


def _op_name(node: Any) -> str:
    target = node.target
    name = getattr(target, "__name__", None) or str(target)
    return name.removeprefix("executorch_exir_dialects_edge__ops_")


def _is_float(node: Any) -> bool:
    value = node.meta.get("val")
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(dtype, "is_floating_point", False)


def float_compute_ops(graph_module: Any) -> dict[str, int]:
    """Non-delegated compute ops whose result is floating point, with counts."""
    counts: Counter[str] = Counter()
    for node in graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        name = _op_name(node)
        if any(part in name for part in _NOT_COMPUTE):
            continue
        if _is_float(node):
            counts[name] += 1
    return dict(sorted(counts.items()))


def _status(npu: dict[str, int], cpu: dict[str, int]) -> str:
    """Fully delegated when only I/O quantize/dequantize stay on the CPU."""
    if not npu:
        return "not delegated"
    compute = [op for op in cpu if "quantize_per" not in op]
    return "partially delegated" if compute else "fully delegated"


def delegation_report(graph_module: Any, quantized: bool) -> dict[str, Any]:
    """Counts of ops on the NPU and on the CPU for a lowered edge graph."""
    from executorch.devtools.backend_debug import get_delegation_info

    info = get_delegation_info(graph_module)
    npu: dict[str, int] = {}
    cpu: dict[str, int] = {}
    for op, breakdown in sorted(info.delegation_by_operator.items()):
        if op in BOOKKEEPING:
            continue
        if breakdown.delegated:
            npu[op] = breakdown.delegated
        if breakdown.non_delegated:
            cpu[op] = breakdown.non_delegated
    floats = float_compute_ops(graph_module) if quantized else {}
    return {
        "status": _status(npu, cpu),
        "delegated_partitions": info.num_delegated_subgraphs,
        "npu_op_count": sum(npu.values()),
        "cpu_op_count": sum(cpu.values()),
        "npu_ops": npu,
        "cpu_ops": cpu,
        "float_ops_after_quantization": floats,
    }
