"""The CPU lane's op-by-op comparison: every operator's output the device kept (upstream's
ET_DUMP_INTERMEDIATE_OUTPUTS: ETDump debug events plus the debug buffer, read by ExecuTorch's
Inspector) against the exact reference's intermediates (the host's exact run of the same
program, kept with the product), in execution order. It names the first operator whose
output departs, with its first and worst element."""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from orchestrator.comparison.departure import departure, departure_sentence
from orchestrator.profile.table import KERNEL_PREFIX

Intermediate = tuple[str, np.ndarray[Any, Any]]


NUMPY_DTYPES = {"CHAR": "int8", "BYTE": "uint8", "SHORT": "int16", "INT": "int32",
                "LONG": "int64", "HALF": "float16", "FLOAT": "float32", "DOUBLE": "float64",
                "BOOL": "bool", "UINT16": "uint16"}


def _tensor_value(tensor: Any, buffer: bytes) -> np.ndarray[Any, Any] | None:
    """The logical values of one ETDump tensor in the debug buffer, laid out by its strides
    (upstream's Inspector reads sizes only, so a channels-last tensor comes out scrambled)."""
    name = NUMPY_DTYPES.get(tensor.scalar_type.name)
    if name is None or tensor.offset is None:
        return None
    dtype = np.dtype(name)
    sizes, strides = tuple(tensor.sizes), tuple(tensor.strides)
    span = 1 + sum((size - 1) * stride for size, stride in zip(sizes, strides, strict=True)) \
        if all(sizes) else 0
    flat = np.frombuffer(buffer, dtype=dtype, count=span, offset=tensor.offset)
    return np.lib.stride_tricks.as_strided(
        flat, sizes, tuple(stride * dtype.itemsize for stride in strides)).copy()


def device_intermediates(etdump: Path, debug_buffer: Path) -> list[Intermediate]:
    """(kernel, output) of every operator call the device traced, in execution order (the
    ETDump read by ExecuTorch's own deserializer; kernels named by instruction)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc

        dump = deserialize_from_etdump_flatcc(etdump.read_bytes())
    buffer = debug_buffer.read_bytes()
    found: list[Intermediate] = []
    for run in (dump.run_data or [])[1:2]:   # the first Execute block (after Default)
        events = run.events or []
        kernels = {e.profile_event.instruction_id: e.profile_event.name
                   for e in events if e.profile_event is not None
                   and e.profile_event.name.startswith(KERNEL_PREFIX)}
        seen: set[int] = set()   # the program's outputs are logged again after the last op
        for event in events:
            debug = event.debug_event
            tensor = debug.debug_entry.tensor if debug is not None else None
            if debug is None or tensor is None or debug.instruction_id not in kernels \
                    or debug.instruction_id in seen:
                continue
            seen.add(debug.instruction_id)
            value = _tensor_value(tensor, buffer)
            if value is not None:
                found.append((kernels[debug.instruction_id].removeprefix(KERNEL_PREFIX), value))
    return found


def _next_like(reference: Sequence[Intermediate], start: int,
               array: np.ndarray[Any, Any]) -> int | None:
    """The next reference output (from `start`) with the device output's shape and dtype:
    reference ops the device does not run as operators (views) are passed over."""
    for index in range(start, len(reference)):
        candidate = reference[index][1]
        if candidate.shape == array.shape and candidate.dtype == array.dtype:
            return index
    return None


def first_departure(device: Sequence[Intermediate], reference: Sequence[Intermediate]
                    ) -> dict[str, Any]:
    """The comparison record: operators compared, and the first departure (None: none)."""
    position = 0
    for index, (kernel, array) in enumerate(device):
        matched = _next_like(reference, position, array)
        if matched is None:
            return {"compared": index, "device_operators": len(device), "departure": None,
                    "stopped": f"operator {index} ({kernel}, {array.dtype}{list(array.shape)})"
                               " has no counterpart in the exact reference"}
        found = departure(array, reference[matched][1])
        if found is not None:
            return {"compared": index + 1, "device_operators": len(device), "departure": {
                "operator_index": index, "operator": kernel,
                "reference_op": reference[matched][0], "shape": list(array.shape),
                "dtype": str(array.dtype), **found.to_json()}}
        position = matched + 1
    return {"compared": len(device), "device_operators": len(device), "departure": None}


def describe(comparison: dict[str, Any]) -> str:
    """One sentence: where the device first departs from the exact reference, or that it
    does not."""
    found = comparison.get("departure")
    if found is None:
        extra = f" ({comparison['stopped']})" if comparison.get("stopped") else ""
        return (f"every one of {comparison['compared']} compared operator outputs equals the "
                f"exact reference{extra}")
    return (f"operator {found['operator_index']} ({found['operator']}) is the first "
            f"whose output departs from the exact reference ({found['reference_op']}): "
            f"{departure_sentence(found)}; next: compare the {found['operator']} kernel with "
            "its host model (orchestrator/exact/kernels.py) on that operator's inputs")
