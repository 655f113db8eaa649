"""What the runner's metric records add to a RunResult: its memory pools (used / size, planned
bytes, .pte size). The NPU's record (PMU counters, or the NPU model that ran) is
run_firmware's, from orchestrator.firmware.npu_model_facts."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.protocol import ParsedStream
from orchestrator.results import MemoryUse, PoolUse

POOLS = ("method_pool", "temp_pool", "fast_scratch")


def pools(stream: ParsedStream, memory: MemoryUse | None) -> MemoryUse:
    """The runner's pools (used / size) next to heap and stack, plus planned and .pte bytes."""
    memory = memory or MemoryUse()
    found = dict(memory.pools)
    for name in POOLS:
        used, size = stream.metric(f"{name}_used"), stream.metric(f"{name}_size")
        if used or size:
            found[name] = PoolUse(used=used.value if used else None,
                                  size=size.value if size else None)
    planned, pte = stream.metric("planned_bytes"), stream.metric("pte_bytes")
    return replace(memory, pools=found, pte_size=pte.value if pte else memory.pte_size,
                   allocations={**memory.allocations,
                                **({"planned": planned.value} if planned else {})})
