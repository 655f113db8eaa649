"""A planned run of firmware we built: simulate it as the run plan says, and assemble the
RunResult document from the build, the simulation and every version in play (the plan's:
simulator, NPU model; the build's toolchain; what the caller adds: the compile's
tools, the runtime's source commit). Every run path of our firmware ends here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.firmware.build import BuildResult
from orchestrator.firmware.npu_model_facts import apply_npu_model_facts
from orchestrator.parse.protocol_values import cpu_cycles, outputs
from orchestrator.protocol import ParsedStream
from orchestrator.results import (
    Classification,
    LogInfo,
    MemoryUse,
    PoolUse,
    RunResult,
    Simulation,
    TargetInfo,
    Versions,
)
from orchestrator.results.model import utc_now
from orchestrator.sim.classify import Verdict
from orchestrator.sim.data import DataFile
from orchestrator.sim.launch import COMMAND, TRANSCRIPT
from orchestrator.sim.plan import RunPlan
from orchestrator.sim.process import RunningProcess
from orchestrator.sim.session import SimulationResult, simulate
from orchestrator.targets import Target
from orchestrator.targets.cortex_m import cortex_m_record

PROTOCOL_FORMAT = "eor-protocol-1"


def classification(verdict: Verdict, target: Target, build: BuildResult,
                   transcript: str) -> Classification:
    """The verdict as a RunResult Classification with a concrete next step."""
    pc = verdict.details.get("registers", {}).get("pc")
    next_step = verdict.rule.next_step.format(
        transcript=transcript, elf=build.elf, pc=f"0x{pc or 0:08x}", target=target.name,
        app=build.config.app)
    return Classification(kind=verdict.kind, summary=verdict.summary,
                          next_step=next_step, evidence=list(verdict.evidence),
                          details={"verdict": verdict.cause, **verdict.details})


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


@dataclass(frozen=True)
class PlannedRun:
    """A finished run: its RunResult and the simulation it came from (records, outcome)."""

    result: RunResult
    simulation: SimulationResult


def run_firmware(plan: RunPlan, build: BuildResult, run_dir: Path, run_id: str, *,
                 started_at: str | None = None, data: Sequence[DataFile] = (),
                 versions: Versions | None = None,
                 started: RunningProcess | None = None) -> PlannedRun:
    """Simulate `build` as `plan` says in `run_dir`; the RunResult with the plan's and the
    build's versions (and `versions`: the compile's, the runtime's), the simulator's stop
    explained by its kind. `started`: that simulation, already running (an early start)."""
    started_at = started_at or utc_now()
    simulation = simulate(plan, build.elf, run_dir, data=data,
                          expected_build_id=build.build_id, started=started)
    result = run_result(run_id, plan.target, build, simulation, started_at=started_at)
    result.versions = result.versions.filled_from(plan.versions_now(), versions)
    result = plan.kind.explain_stop(result, simulation.outcome.transcript)
    result = apply_npu_model_facts(result, plan, build, simulation.stream)
    if plan.target.cpu_spec is not None:   # every Cortex-M run says which core ran it
        result.target.options["cortex_m"] = cortex_m_record(plan.target, None, plan.simulator,
                                                            ran=True)
    return PlannedRun(result, simulation)


def run_result(run_id: str, target: Target, build: BuildResult, simulation: SimulationResult,
               started_at: str | None = None) -> RunResult:
    """Assemble the RunResult of one protocol run."""
    stream, outcome, verdict = simulation.stream, simulation.outcome, simulation.verdict
    run_dir = outcome.log_path.parent
    return RunResult(
        status=verdict.status, reason=verdict.summary,
        classification=classification(verdict, target, build, str(outcome.log_path)),
        run_id=run_id, started_at=started_at, finished_at=utc_now(),
        target=TargetInfo(name=target.name, simulator=simulation.simulator.name, options={
            "app": build.config.app, "build_type": build.config.build_type,
            "build_key": build.key, "build_id": build.build_id,
            "options": dict(build.config.options),
            "checks": {c.name: c.ok for c in stream.checks},
            "limits": simulation.limits.record()}),
        versions=Versions(toolchain=build.toolchain_version or None,
                          simulator=simulation.simulator.binary),
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
