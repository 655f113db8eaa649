"""Adapter: a protocol run (build + simulation) -> the project's RunResult document."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.protocol import ParsedStream
from orchestrator.results import (
    Classification,
    CpuCycles,
    Kind,
    LogInfo,
    MemoryUse,
    OutputTensor,
    PoolUse,
    RunResult,
    Simulation,
    Status,
    TargetInfo,
    Versions,
)
from orchestrator.results.model import utc_now
from orchestrator.sim.classify import Verdict
from orchestrator.sim.session import COMMAND, TRANSCRIPT, SimulationResult
from orchestrator.targets import Target

if TYPE_CHECKING:
    from orchestrator.build import BuildResult

PROTOCOL_FORMAT = "eor-protocol-1"
KINDS = {
    "pass": Kind.SUCCESS, "fail": Kind.ASSERTION, "abort": Kind.ASSERTION,
    "hard_fault": Kind.HARD_FAULT, "timeout": Kind.TIMEOUT, "hang": Kind.TIMEOUT,
    "stale_firmware": Kind.UNKNOWN, "protocol_error": Kind.INCOMPLETE,
    "incomplete": Kind.INCOMPLETE, "no_output": Kind.NO_OUTPUT,
    "launch_failure": Kind.LAUNCH_FAILURE,
}
NEXT_STEPS = {
    "pass": "nothing to do",
    "fail": "read the failed check records in {transcript}",
    "abort": "read the lines before the abort in {transcript}",
    "hard_fault": "find the faulting code: arm-none-eabi-addr2line -f -e {elf} {pc}",
    "timeout": "re-run with a longer --timeout, or read where it stopped in {transcript}",
    "hang": "the firmware went silent: read the last lines of {transcript}, or raise "
            "--idle-timeout if it computes for long without printing",
    "stale_firmware": "rebuild and re-run: invoke build --target {target} --app {app}",
    "protocol_error": "re-run; if records keep getting lost read {transcript}",
    "incomplete": "read the end of {transcript} to see where it stopped",
    "no_output": "check the simulator and the ELF: invoke doctor, then read {transcript}",
    "launch_failure": "read the simulator's error in {transcript}, then check it: invoke doctor",
}
CYCLE_NOTES = {
    "systick": "SysTick ticks of the simulated system clock; under QEMU -icount shift=0 they "
               "follow virtual time (1 instruction = 1 ns) and are deterministic, not CPU cycles",
    "pmu_ccntr": "Armv8.1-M PMU cycle counter (on an FVP the CPU is not cycle accurate)",
    "dwt_cyccnt": "DWT CYCCNT cycle counter (on an FVP the CPU is not cycle accurate)",
}


def classification(verdict: Verdict, target: Target, build: BuildResult,
                   transcript: str) -> Classification:
    """The verdict as a RunResult Classification with a concrete next step."""
    pc = verdict.details.get("registers", {}).get("pc")
    next_step = NEXT_STEPS[verdict.kind].format(
        transcript=transcript, elf=build.elf, pc=f"0x{pc or 0:08x}", target=target.name,
        app=build.config.app)
    return Classification(kind=KINDS[verdict.kind], summary=verdict.summary,
                          next_step=next_step, evidence=list(verdict.evidence),
                          details={"verdict": verdict.kind, **verdict.details})


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


def memory(stream: ParsedStream, build: BuildResult) -> MemoryUse:
    """Heap/stack use reported by the firmware and the image's section sizes."""
    pools = {}
    for name in ("heap", "stack"):
        used, size = stream.metric(f"{name}_used"), stream.metric(f"{name}_size")
        if used or size:
            pools[name] = PoolUse(used=used.value if used else None,
                                  size=size.value if size else None)
    return MemoryUse(pools=pools,
                     image_sections={s.name: s.size for s in build.sections})


def run_result(run_id: str, target: Target, build: BuildResult, simulation: SimulationResult,
               started_at: str | None = None, simulator_version: str | None = None) -> RunResult:
    """Assemble the RunResult of one protocol run."""
    stream, outcome, verdict = simulation.stream, simulation.outcome, simulation.verdict
    run_dir = outcome.log_path.parent
    return RunResult(
        status=Status(verdict.status), reason=verdict.summary,
        classification=classification(verdict, target, build, str(outcome.log_path)),
        run_id=run_id, started_at=started_at, finished_at=utc_now(),
        target=TargetInfo(name=target.name, simulator=simulation.simulator.name, options={
            "app": build.config.app, "build_type": build.config.build_type,
            "build_key": build.key, "build_id": build.build_id,
            "options": dict(build.config.options),
            "checks": {c.name: c.ok for c in stream.checks},
            "limits": simulation.limits.record()}),
        versions=Versions(toolchain=build.toolchain_version or None,
                          simulator=simulation.simulator.binary,
                          simulator_version=simulator_version),
        outputs=outputs(stream), cpu=cpu_cycles(stream), memory=memory(stream, build),
        simulation=Simulation(exit_code=outcome.exit_code, stop_reason=outcome.stopped_by,
                              completed=stream.end is not None,
                              host_timeout_s=outcome.seconds if outcome.stopped_by else None),
        timings_s={"configure": build.seconds["configure"], "build": build.seconds["build"],
                   "simulate": round(outcome.seconds, 3)},
        artifacts={"elf": str(build.elf), "map": str(build.map_file),
                   "transcript": str(run_dir / TRANSCRIPT), "command": str(run_dir / COMMAND)},
        log=LogInfo(formats=[PROTOCOL_FORMAT], lines=stream.lines,
                    errors=list(stream.problems)))
