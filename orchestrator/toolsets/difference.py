"""What changed between two toolsets' products of one cell (no torch): delegation, Vela's
estimates, whether the programs agree bit for bit on the same inputs, and where not, the
first TOSA operator whose output differs."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from orchestrator.aot.products import DELEGATION_REPORT, Product
from orchestrator.aot.tensors import load_array
from orchestrator.comparison.departure import all_bit_equal, bit_equal, differing_elements
from orchestrator.tosa.graph import CONSTANTS, main_operators
from orchestrator.tosa.partitions import Partition, product_partitions
from orchestrator.tosa.random_inputs import draw_inputs

VELA_ESTIMATES = ("total_cycles", "npu_cycles", "sram_used_kib", "dram_used_kib",
                  "npu_operators", "cpu_operators")


def _delegation(product: Product) -> dict[str, Any]:
    path = product.directory / DELEGATION_REPORT
    document: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    return document


def delegation_changes(a: Product, b: Product) -> list[dict[str, Any]]:
    """Operators whose NPU or CPU count differs: [{op, npu: [a, b], cpu: [a, b]}]."""
    first, second = _delegation(a), _delegation(b)
    ops = sorted({*first.get("npu_ops", {}), *first.get("cpu_ops", {}),
                  *second.get("npu_ops", {}), *second.get("cpu_ops", {})})
    changes = []
    for op in ops:
        npu = [first.get("npu_ops", {}).get(op, 0), second.get("npu_ops", {}).get(op, 0)]
        cpu = [first.get("cpu_ops", {}).get(op, 0), second.get("cpu_ops", {}).get(op, 0)]
        if npu[0] != npu[1] or cpu[0] != cpu[1]:
            changes.append({"op": op, "npu": npu, "cpu": cpu})
    return changes


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(b / a, 4) if a and b is not None else None


def vela_estimates(a: Product, b: Product) -> dict[str, dict[str, Any]]:
    """Vela's estimates side by side: {name: {a, b, ratio (b/a)}}."""
    first, second = a.manifest.get("vela") or {}, b.manifest.get("vela") or {}
    return {name: {"a": first.get(name), "b": second.get(name),
                   "ratio": _ratio(first.get(name), second.get(name))}
            for name in VELA_ESTIMATES if name in first or name in second}


def _arrays(product: Product, folder: str) -> list[np.ndarray[Any, Any]]:
    from orchestrator.aot.tensors import read_tensor_dir

    return [load_array(record) for record in read_tensor_dir(product.directory / folder)]


def outputs_agree(a: Product, b: Product) -> dict[str, Any]:
    """Whether the two programs' exact outputs agree bit for bit on the same inputs."""
    from orchestrator.aot.products import INPUTS, REFERENCE_EXACT

    if not all_bit_equal(_arrays(a, INPUTS), _arrays(b, INPUTS)):
        return {"agree": None, "why": "the two products' example inputs differ"}
    first, second = _arrays(a, REFERENCE_EXACT), _arrays(b, REFERENCE_EXACT)
    if all_bit_equal(first, second):
        return {"agree": True, "outputs": len(first)}
    differing = [differing_elements(x, y) for x, y in zip(first, second, strict=False)]
    return {"agree": False, "outputs": len(first), "differing_elements": differing}


def _interface(partition: Partition) -> list[tuple[str, tuple[int, ...]]]:
    return [(tensor.dtype, tensor.shape) for tensor in partition.inputs]


def _compared_operator(index: int, partition: int, op_a: Any, op_b: Any,
                       out_a: np.ndarray[Any, Any], out_b: np.ndarray[Any, Any]
                       ) -> dict[str, Any] | None:
    if op_a.op != op_b.op or out_a.shape != out_b.shape:
        return {"partition": partition, "operator": index, "a": op_a.op, "b": op_b.op,
                "why": "the graphs diverge here (operator or shape differs)"}
    if bit_equal(out_a, out_b):
        return None
    difference = np.abs(out_a.astype(np.int64) - out_b.astype(np.int64)) \
        if out_a.dtype.kind in "iu" else np.abs(out_a - out_b)
    return {"partition": partition, "operator": index, "a": op_a.op, "b": op_b.op,
            "differing": differing_elements(out_a, out_b), "elements": int(out_a.size),
            "max_difference": float(difference.max()),
            "why": "same operator, same inputs, different output"}


def _first_in_partition(index: int, first: Partition, second: Partition
                        ) -> dict[str, Any] | None:
    from orchestrator.tosa.intermediates import run_with_intermediates

    inputs = draw_inputs(first.inputs, seed=index)
    values_a = run_with_intermediates(first.tosa, inputs)
    values_b = run_with_intermediates(second.tosa, inputs)
    ops_a = [op for op in main_operators(first.tosa) if op.op not in CONSTANTS]
    ops_b = [op for op in main_operators(second.tosa) if op.op not in CONSTANTS]
    for position, (op_a, op_b) in enumerate(zip(ops_a, ops_b, strict=False)):
        found = _compared_operator(position, index, op_a, op_b, values_a[op_a.outputs[0]],
                                   values_b[op_b.outputs[0]])
        if found is not None:
            return found
    if len(ops_a) != len(ops_b):
        return {"partition": index, "operator": min(len(ops_a), len(ops_b)),
                "a": len(ops_a), "b": len(ops_b), "why": "one graph has more operators"}
    return None


def first_tosa_difference(a: Product, b: Product) -> dict[str, Any] | None:
    """The first TOSA operator whose output differs when both toolsets' partitions run the
    same drawn inputs on the TOSA reference model (partitions paired by order; graphs
    compared operator by operator while they have the same structure)."""
    first, second = product_partitions(a), product_partitions(b)
    if len(first) != len(second):
        return {"partition": None, "operator": None, "a": len(first), "b": len(second),
                "why": "the number of NPU partitions differs"}
    for index, (one, other) in enumerate(zip(first, second, strict=True)):
        if _interface(one) != _interface(other):
            return {"partition": index, "operator": None, "why": "partition inputs differ"}
        found = _first_in_partition(index, one, other)
        if found is not None:
            return found
    return None


