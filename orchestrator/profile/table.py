"""Timed events -> the per-operator table: each operator or delegate call inside a
Method::execute, grouped by operator and executor, with calls, total, per call and share;
what the calls do not cover is the runtime's own overhead, so rows plus overhead add up to the
Method::execute total. Delegate calls carry Vela's estimate for their partition."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from orchestrator.profile.events import TracedEvent
from orchestrator.profile.sources import TickSource
from orchestrator.results import OperatorTime, Profile
from orchestrator.tosa.graph import operators_behind

EXECUTE = "Method::execute"
OPERATOR_CALL = "OPERATOR_CALL"
DELEGATE_CALL = "DELEGATE_CALL"
KERNEL_PREFIX = "native_call_"
CPU_KERNEL = "CPU kernel"


@dataclass(frozen=True)
class Call:
    """One operator or delegate call: what it was, who ran it, how long it took."""

    operator: str
    executor: str
    duration: int
    partition: int | None = None


def inside(outer: TracedEvent, events: Sequence[TracedEvent]) -> list[TracedEvent]:
    """The events that lie within `outer` (same block, `outer` itself excluded)."""
    return [e for e in events if e is not outer and e.block_index == outer.block_index
            and outer.start <= e.start and e.end <= outer.end]


def _kernel_name(call: TracedEvent, nested: list[TracedEvent]) -> str:
    kernel = next((e.name for e in nested if e.name.startswith(KERNEL_PREFIX)), None)
    if kernel:
        return kernel.removeprefix(KERNEL_PREFIX)
    return call.op_types[0] if call.op_types else "operator (no name in the ETDump)"


def _backend_name(call: TracedEvent, nested: list[TracedEvent]) -> str:
    named = next((e.name.lstrip("+").split("::")[0] for e in nested if "::" in e.name), None)
    return call.delegate or named or "delegate"


def calls_of(execute: TracedEvent, events: Sequence[TracedEvent]) -> list[Call]:
    """The operator and delegate calls of one Method::execute, in order (the n-th delegate
    call runs partition n)."""
    within = inside(execute, events)
    calls, partition = [], 0
    for event in within:
        if event.name == OPERATOR_CALL:
            calls.append(Call(_kernel_name(event, inside(event, within)), CPU_KERNEL,
                              event.duration))
        elif event.name == DELEGATE_CALL:
            backend = _backend_name(event, inside(event, within))
            calls.append(Call(f"{backend} partition {partition}", f"delegate {backend}",
                              event.duration, partition))
            partition += 1
    return calls


def vela_partition(vela_partitions: Sequence[dict[str, Any]], index: int | None,
                   tosa: Sequence[bytes] = ()
                   ) -> tuple[int | None, list[dict[str, Any]]]:
    """Vela's estimated NPU cycles of partition `index` and its operations, each with the
    TOSA tensor it writes and the TOSA operators it implements (from the partition's
    flatbuffer), the source and Vela operator and the estimated cycles."""
    if index is None or index >= len(vela_partitions):
        return None, []
    block = vela_partitions[index]
    rows = block.get("operators", [])
    behind = operators_behind(tosa[index], [str(row.get("name")) for row in rows]) \
        if index < len(tosa) else {}
    operations = [{"name": row.get("name"),
                   "tosa_operators": behind.get(str(row.get("name")), []),
                   "original_operator": row.get("original_operator"),
                   "vela_operator": row.get("nng_operator"), "target": row.get("target"),
                   "estimated_cycles": row.get("op_cycles"), "macs": row.get("mac_count")}
                  for row in block.get("operators", [])]
    cycles = block.get("npu_cycles")
    return (int(cycles) if cycles is not None else None), operations


def _rows(calls: list[Call], total: int, vela_partitions: Sequence[dict[str, Any]],
          tosa: Sequence[bytes]) -> list[OperatorTime]:
    grouped: dict[tuple[str, str], list[Call]] = {}
    for call in calls:
        grouped.setdefault((call.operator, call.executor), []).append(call)
    rows = []
    for (operator, executor), group in grouped.items():
        spent = sum(call.duration for call in group)
        cycles, operations = vela_partition(vela_partitions, group[0].partition, tosa)
        rows.append(OperatorTime(operator, executor, len(group), spent,
                                 round(spent / len(group), 1),
                                 round(100.0 * spent / total, 2) if total else 0.0,
                                 cycles, operations))
    return sorted(rows, key=lambda row: -row.total)


def build_profile(events: Sequence[TracedEvent], source: TickSource, *,
                  vela_partitions: Sequence[dict[str, Any]] = (),
                  tosa: Sequence[bytes] = (), npu_note: str | None = None,
                  reader: str | None = None, etdump_bytes: int | None = None,
                  etrecord: bool = False) -> Profile:
    """The per-operator profile of every Method::execute in `events` (`tosa`: each delegated
    partition's TOSA flatbuffer, to name the TOSA operators behind Vela's operations)."""
    executes = [e for e in events if e.name == EXECUTE]
    calls = [call for execute in executes for call in calls_of(execute, events)]
    total = sum(e.duration for e in executes)
    return Profile(source=source.name, unit=source.unit, timing=source.timing,
                   note=source.note, total=total, inferences=len(executes),
                   operators=_rows(calls, total, vela_partitions, tosa),
                   runtime_overhead=total - sum(call.duration for call in calls),
                   npu_note=npu_note, reader=reader, etdump_bytes=etdump_bytes,
                   etrecord=etrecord)
