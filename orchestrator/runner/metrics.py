"""What the runner's metric records add to a RunResult: its memory pools (used / size, planned
bytes, .pte size) and the Ethos-U PMU counters, in the catalogue's counter order (or, on the
functional NPU model, which model executed: no counters, and CPU cycles labelled as including
the model's emulation of the NPU)."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.firmware_build.npu_model import (
    EXECUTOR_FVP,
    EXECUTOR_MODEL,
    model_version,
    placed_model,
)
from orchestrator.protocol import ParsedStream
from orchestrator.results import MemoryUse, NpuPmu, PmuCounter, PoolUse, RunResult
from orchestrator.targets import Target, load_catalogue

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


def npu_pmu(stream: ParsedStream, target: Target) -> NpuPmu | None:
    """NPU cycles and the named event counters, in the catalogue's counter order; on the
    functional NPU model, which model ran and how often (no cycles, no counters: it has none)."""
    if placed_model(target) is not None:
        return functional_model_npu(stream)
    cycles = stream.metric("ethosu_pmu_cycle_cntr")
    if not target.has_npu or cycles is None:
        return None
    counters = [PmuCounter(index=i, value=metric.value, event=event)
                for i, event in enumerate(target.pmu_events)
                if (metric := stream.metric(event)) is not None]
    delegations = stream.metric("npu_delegations")
    runs = stream.metric("inferences")
    return NpuPmu(cycles=cycles.value, counters=counters,
                  inferences=runs.value if runs else None,
                  delegations=delegations.value if delegations else None,
                  event_source="ethosu_pmu", executor=EXECUTOR_FVP)


def functional_model_npu(stream: ParsedStream) -> NpuPmu:
    """The NPU record of a functional-model run: the model and its version (as the firmware
    reported it, else the version it was built with), delegations; never cycles or events."""
    reported = next((frame.fields["npu_model_version"] for frame in stream.other
                     if frame.type == "note" and "npu_model_version" in frame.fields), None)
    delegations, runs = stream.metric("npu_delegations"), stream.metric("inferences")
    return NpuPmu(cycles=None, counters=[], inferences=runs.value if runs else None,
                  delegations=delegations.value if delegations else None,
                  executor=EXECUTOR_MODEL, executor_version=reported or model_version())


EMULATED_NPU_NOTE = ("includes the functional NPU model emulating the Ethos-U on this CPU: "
                     "neither the CPU's share of the inference nor NPU timing")


def label_emulated_npu_cycles(result: RunResult, target: Target | None = None) -> None:
    """On a functional-model run, mark the CPU count as including the NPU's emulated work and
    (given the placed target) say which CPU ran it: the model's platform's, which for an
    Ethos-U85 is not the target's own Cortex-M85 (QEMU has no Corstone-320)."""
    if result.npu is None or result.npu.executor != EXECUTOR_MODEL:
        return
    if target is not None:
        record_emulating_cpu(result, target)
    if result.cpu is None:
        return
    result.cpu = replace(result.cpu, includes_npu_model=True,
                         note=f"{result.cpu.note}; {EMULATED_NPU_NOTE}")


def record_emulating_cpu(result: RunResult, target: Target) -> None:
    """target.options.cpu: the CPU that ran the program and the NPU model; cpu_note when the
    target's own board has another CPU."""
    ran_on = target.platform.cpu
    result.target.options["cpu"] = ran_on
    if target.npu is None:
        return
    own = load_catalogue().platforms[target.npu.platform].cpu
    if own != ran_on:
        result.target.options["cpu_note"] = (
            f"the {ran_on} of {target.platform.name} ran the program and the functional NPU "
            f"model, not {target.name}'s own {own} ({target.npu.platform})")
