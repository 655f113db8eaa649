"""Result documents carrying numbers from real runs (sources in fixtures/SOURCES.md)."""

from __future__ import annotations

from orchestrator.results import (
    FVP_CPU_CYCLES_NOTE,
    Classification,
    CpuCycles,
    Kind,
    MemoryUse,
    NpuPmu,
    PmuCounter,
    PoolUse,
    RunResult,
    Status,
    TargetInfo,
    VelaEstimate,
    Versions,
)

FVP_VERSIONS = Versions(executorch="0.5.0", simulator="FVP_Corstone_SSE-320_Ethos-U85")


def _ok(model: str, target: str, simulator: str) -> RunResult:
    return RunResult(status=Status.PASS, reason="ran to completion",
                     classification=Classification(Kind.SUCCESS, "completed", "none"),
                     model=model, target=TargetInfo(target, simulator), versions=FVP_VERSIONS)


def mv2_u85_128() -> RunResult:
    """et-docs-v0.5.0-1.log: MV2 on Corstone-320 U85-128 with the arm_perf_monitor block."""
    result = _ok("mv2", "ethos-u85-128", "fvp-corstone-320")
    events = ["ETHOSU_PMU_EXT0_RD_DATA_BEAT_RECEIVED", "ETHOSU_PMU_EXT1_RD_DATA_BEAT_RECEIVED",
              "ETHOSU_PMU_EXT0_WR_DATA_BEAT_WRITTEN", "ETHOSU_PMU_NPU_IDLE"]
    result.npu = NpuPmu(cycles=5920305, inferences=1, counters=[
        PmuCounter(i, value, events[i]) for i, value in enumerate((359921, 0, 0, 503))])
    result.cpu = CpuCycles("fvp-ccntr", FVP_CPU_CYCLES_NOTE, total=6925114,
                           operators_total=1498202, npu_wait=729)
    result.memory = MemoryUse(pte_size=4425968, pools={
        "method_allocator": PoolUse(1355722, 62914560), "temp_allocator": PoolUse(0, 1048576)})
    return result


def add_u55_128() -> RunResult:
    """et-issue-9356-1.log: add on Corstone-300 U55 (PMU block, truncated after cntr0)."""
    result = _ok("add", "ethos-u55-128", "fvp-corstone-300-u55")
    result.npu = NpuPmu(cycles=411, inferences=1, counters=[PmuCounter(0, 6)])
    result.cpu = CpuCycles("fvp-ccntr", FVP_CPU_CYCLES_NOTE, total=2585, operators_total=0,
                           npu_wait=256)
    return result


def conv_m55() -> RunResult:
    """et-pr-16580-1.log: cortex_m conv2d_x3 on Corstone-300 Cortex-M55 (memory block)."""
    result = _ok("conv", "cortex-m55", "qemu")
    result.memory = MemoryUse(pte_size=10208, pools={
        "input_file_allocator": PoolUse(10976, 62914560),
        "method_allocator": PoolUse(5433, 62914560)}, allocations={"planned": 2560})
    return result


def vela_mv2_u85_128() -> VelaEstimate:
    """lp-visualizing-ethosu-1.log: Vela summary for MV2 on Ethos_U85_128, Sram_Only."""
    return VelaEstimate(accelerator="Ethos_U85_128", system_config="Ethos_U85_SYS_DRAM_Mid",
                        memory_mode="Sram_Only", clock_mhz=1000.0, npu_operators=64,
                        cpu_operators=0, npu_cycles=4832315, total_cycles=4942076,
                        inference_time_ms=4.94, inferences_per_second=202.34,
                        macs=300836992, sram_used_kib=5178.77)


def failed(model: str, target: str) -> RunResult:
    """et-issue-7177-3.log: a method load failure from an allocation that did not fit."""
    return RunResult(
        status=Status.FAIL,
        reason="Memory allocation failed: 1785600B requested, 1024B available",
        classification=Classification(Kind.ALLOC_FAILURE, "allocation failed",
                                       "enlarge the method allocator pool"),
        model=model, target=TargetInfo(target, "qemu"))
