"""Facts the run stage needs, read from an emitted ExecuTorch program (schema objects)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

VELA_BLOCK_HEADER = 32   # 16-byte name + int32 length + 12 bytes padding
ETHOSU_BACKEND = "EthosUBackend"


def iter_vela_blocks(blob: bytes) -> Iterator[tuple[str, bytes]]:
    """(name, data) blocks of an Ethos-U delegate blob (format written by arm_vela.py)."""
    offset = 0
    while offset + VELA_BLOCK_HEADER <= len(blob):
        name = blob[offset:offset + 16].split(b"\0", 1)[0].decode("ascii", "replace")
        (size,) = struct.unpack_from("<i", blob, offset + 16)
        start = offset + VELA_BLOCK_HEADER
        yield name, blob[start:start + size]
        offset = start + (size + 15) // 16 * 16
        if name == "vela_end_stream":
            return


def vela_scratch_size(blob: bytes) -> int | None:
    """The NPU scratch (arena) size in bytes an Ethos-U delegate needs, if the blob says."""
    for name, data in iter_vela_blocks(blob):
        if name == "scratch_size" and len(data) >= 4:
            return int(struct.unpack_from("<I", data)[0])
    return None


def _delegates(program: Any) -> list[dict[str, Any]]:
    records = []
    for plan in program.execution_plan:
        for delegate in plan.delegates:
            record: dict[str, Any] = {"backend": delegate.id, "method": plan.name}
            if delegate.id == ETHOSU_BACKEND and delegate.processed.location == 0:
                blob = program.backend_delegate_data[delegate.processed.index].data
                record["blob_bytes"] = len(blob)
                record["vela_scratch_bytes"] = vela_scratch_size(blob)
            records.append(record)
    return records


def _tensor_io(plan: Any, indices: list[int]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for index in indices:
        value = plan.values[index].val
        if not hasattr(value, "sizes"):
            records.append({"kind": type(value).__name__})
            continue
        records.append({"kind": "tensor", "scalar_type": value.scalar_type.name,
                        "shape": list(value.sizes), "dim_order": list(value.dim_order)})
    return records


def _operators(plan: Any) -> list[str]:
    return [f"{op.name}.{op.overload}" if op.overload else op.name for op in plan.operators]


def program_facts(program: Any) -> dict[str, Any]:
    """Memory planning per mem_id, delegates (with Vela scratch), operators and I/O layout."""
    methods = {}
    for plan in program.execution_plan:
        planned = {str(mem_id): size for mem_id, size in enumerate(plan.non_const_buffer_sizes)
                   if mem_id > 0}
        methods[plan.name] = {
            "planned_buffers": planned,
            "planned_bytes": sum(planned.values()),
            "operators": _operators(plan),
            "inputs": _tensor_io(plan, list(plan.inputs)),
            "outputs": _tensor_io(plan, list(plan.outputs)),
        }
    delegates = _delegates(program)
    scratch = [d["vela_scratch_bytes"] for d in delegates if d.get("vela_scratch_bytes")]
    return {"methods": methods, "delegates": delegates,
            "vela_scratch_bytes": scratch, "max_vela_scratch_bytes": max(scratch, default=0)}
