"""Facts the run stage needs, read from an emitted ExecuTorch program (schema objects)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# A block's header: a 16-byte name, its length (int32), then 12 bytes: zero padding up to
# executorch 1.4; from 1.5 (arm_vela.py _BLOCK_HEADER "<16sIB11s") the first of them is an
# external flag (1: the data is the sha256 key of a named-data payload kept outside the
# stream) and 11 reserved bytes. The layout is the same size, so one reader serves both.
VELA_BLOCK_HEADER = 32
EXTERNAL_FLAG_OFFSET = 20
ETHOSU_BACKEND = "EthosUBackend"


@dataclass(frozen=True)
class VelaBlock:
    """One block of a delegate stream; `external`: `data` is the key of a named-data
    payload kept outside the stream (executorch 1.5 external Vela blocks)."""

    name: str
    data: bytes
    external: bool = False


def vela_blocks(blob: bytes) -> Iterator[VelaBlock]:
    """The blocks of an Ethos-U delegate blob (format written by arm_vela.py)."""
    offset = 0
    while offset + VELA_BLOCK_HEADER <= len(blob):
        name = blob[offset:offset + 16].split(b"\0", 1)[0].decode("ascii", "replace")
        (size,) = struct.unpack_from("<i", blob, offset + 16)
        start = offset + VELA_BLOCK_HEADER
        yield VelaBlock(name, blob[start:start + size], blob[offset + EXTERNAL_FLAG_OFFSET] == 1)
        offset = start + (size + 15) // 16 * 16
        if name == "vela_end_stream":
            return


def iter_vela_blocks(blob: bytes) -> Iterator[tuple[str, bytes]]:
    """(name, data) of every block kept inside the stream."""
    return ((block.name, block.data) for block in vela_blocks(blob) if not block.external)


def vela_scratch_size(blob: bytes) -> int | None:
    """The NPU scratch (arena) size in bytes an Ethos-U delegate needs, if the blob says."""
    for name, data in iter_vela_blocks(blob):
        if name == "scratch_size" and len(data) >= 4:
            return int(struct.unpack_from("<I", data)[0])
    return None


def delegate_record(backend: str, method: str, blob: bytes | None) -> dict[str, Any]:
    """A delegate's facts; `blob`: its inline data (None when kept in a segment)."""
    record: dict[str, Any] = {"backend": backend, "method": method}
    if backend == ETHOSU_BACKEND and blob is not None:
        record["blob_bytes"] = len(blob)
        record["vela_scratch_bytes"] = vela_scratch_size(blob)
    return record


def _delegates(program: Any) -> list[dict[str, Any]]:
    return [delegate_record(delegate.id, plan.name,
                            program.backend_delegate_data[delegate.processed.index].data
                            if delegate.processed.location == 0 else None)
            for plan in program.execution_plan for delegate in plan.delegates]


def with_delegates(facts: dict[str, Any], delegates: list[dict[str, Any]]) -> dict[str, Any]:
    """`facts` (program_facts of a program) with these delegates and their Vela scratch."""
    scratch = [d["vela_scratch_bytes"] for d in delegates if d.get("vela_scratch_bytes")]
    return {**facts, "delegates": delegates, "vela_scratch_bytes": scratch,
            "max_vela_scratch_bytes": max(scratch, default=0)}


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
    return with_delegates({"methods": methods}, _delegates(program))
