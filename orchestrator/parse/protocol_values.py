"""Values our protocol records carry, as RunResult parts: exact output tensors and CPU cycles
with their source (shared by `invoke parse` and the simulator layer's results)."""

from __future__ import annotations

from orchestrator.protocol import ParsedStream
from orchestrator.results import CpuCycles, OutputTensor

CYCLE_NOTES = {
    "systick": "SysTick ticks of the simulated system clock; under QEMU -icount shift=0 they "
               "follow virtual time (1 instruction = 1 ns) and are deterministic, not CPU cycles",
    "pmu_ccntr": "Armv8.1-M PMU cycle counter (on an FVP the CPU is not cycle accurate)",
    "dwt_cyccnt": "DWT CYCCNT cycle counter (on an FVP the CPU is not cycle accurate)",
}



def outputs(stream: ParsedStream) -> list[OutputTensor]:
    """Every tensor record, exact (decoded from its raw bytes)."""
    return [OutputTensor(index=t.index, dtype=t.dtype, shape=list(t.shape), values=t.values(),
                         exact=True) for _, t in sorted(stream.tensors.items())]


def cpu_cycles(stream: ParsedStream) -> CpuCycles | None:
    """total_cycles with its source; other *_cycles metrics per part."""
    total = stream.metric("total_cycles")
    if total is None:
        return None
    source = total.source or "unknown"
    parts = {m.name.removesuffix("_cycles"): m.value for m in stream.metrics
             if m.name.endswith("_cycles") and m.name != "total_cycles"}
    return CpuCycles(source=source, note=CYCLE_NOTES.get(source, total.unit),
                     total=total.value, per_operator=parts)


def reported_model_version(stream: ParsedStream) -> str | None:
    """The NPU model's version as the firmware's note reported it (None: none)."""
    return next((str(frame.fields["npu_model_version"]) for frame in stream.other
                 if frame.type == "note" and "npu_model_version" in frame.fields), None)
