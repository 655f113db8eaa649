"""Adapter: a protocol run (build + simulation) -> the project's RunResult document."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

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
from orchestrator.sim.session import COMMAND, TRANSCRIPT, SimulationResult
from orchestrator.targets import Target

PROTOCOL_FORMAT = "eor-protocol-1"


class _Config(Protocol):
    @property
    def app(self) -> str: ...
    @property
    def build_type(self) -> str: ...
    @property
    def options(self) -> tuple[tuple[str, str], ...]: ...


class _Section(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def size(self) -> int: ...


class BuiltFirmware(Protocol):
    """What a run's result records of the firmware build (orchestrator.build.BuiltFirmware)."""

    @property
    def config(self) -> _Config: ...
    @property
    def elf(self) -> Path: ...
    @property
    def map_file(self) -> Path: ...
    @property
    def build_id(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def toolchain_version(self) -> str: ...
    @property
    def sections(self) -> Sequence[_Section]: ...
    @property
    def seconds(self) -> dict[str, float]: ...


def classification(verdict: Verdict, target: Target, build: BuiltFirmware,
                   transcript: str) -> Classification:
    """The verdict as a RunResult Classification with a concrete next step."""
    pc = verdict.details.get("registers", {}).get("pc")
    next_step = verdict.rule.next_step.format(
        transcript=transcript, elf=build.elf, pc=f"0x{pc or 0:08x}", target=target.name,
        app=build.config.app)
    return Classification(kind=verdict.kind, summary=verdict.summary,
                          next_step=next_step, evidence=list(verdict.evidence),
                          details={"verdict": verdict.cause, **verdict.details})


def memory(stream: ParsedStream, build: BuiltFirmware) -> MemoryUse:
    """Heap/stack use reported by the firmware and the image's section sizes."""
    pools = {}
    for name in ("heap", "stack"):
        used, size = stream.metric(f"{name}_used"), stream.metric(f"{name}_size")
        if used or size:
            pools[name] = PoolUse(used=used.value if used else None,
                                  size=size.value if size else None)
    return MemoryUse(pools=pools,
                     image_sections={s.name: s.size for s in build.sections})


def run_result(run_id: str, target: Target, build: BuiltFirmware, simulation: SimulationResult,
               started_at: str | None = None, simulator_version: str | None = None) -> RunResult:
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
            "checks": {c.name: c.ok for c in stream.checks}}),
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
