"""Run a list of cells: build each firmware config once, compile in one batch, simulate in
parallel, then judge every cell against its expectation and baseline."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.regress.lanes.stages import (
    CompileJob,
    CompileOutcome,
    FirmwareConfig,
    FirmwareOutcome,
    Stages,
)
from orchestrator.regress.plan.cells import Cell, Expect, Mode
from orchestrator.regress.plan.lowering import lowering_leaders
from orchestrator.regress.progress import Progress, QuietProgress
from orchestrator.regress.verdict.baseline import Baselines
from orchestrator.regress.verdict.metrics import extract_metrics, extract_versions
from orchestrator.regress.verdict.outcome import (
    CellReport,
    Outcome,
    apply_baseline,
    expected_outcome,
    skipped,
)
from orchestrator.results import (
    Classification,
    Kind,
    RunResult,
    Status,
    TargetInfo,
    Versions,
)
from orchestrator.results.record import write_result


@dataclass
class EngineOptions:
    """How to run: parallel jobs, required simulator kinds, where outputs go, baselines."""

    run_id: str
    run_dir: Path
    jobs: int = 1
    require: frozenset[str] = frozenset()
    baselines: Baselines | None = None
    tolerances: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass
class EngineRun:
    """What the engine did: per-cell reports plus the builds and compiles it ran."""

    cells: list[CellReport]
    builds: list[FirmwareOutcome]
    compiles: dict[CompileJob, CompileOutcome]
    phases_s: dict[str, float] = field(default_factory=dict)


def execute(cells: list[Cell], stages: Stages, options: EngineOptions,
            progress: Progress | None = None) -> EngineRun:
    """Run every cell; never raises for a cell's failure (it lands in that cell's report)."""
    progress = progress or QuietProgress()
    reports: dict[str, CellReport] = {}
    active = []
    for cell in cells:
        report = not_runnable(cell, stages.unavailable, options)
        if report is None:
            active.append(cell)
        else:
            reports[cell.key] = report
    started = time.monotonic()
    firmware, compiles = _prepare(active, stages, options, progress)
    prepared = time.monotonic()
    reports.update(_run_all(active, stages, options, firmware, compiles, progress))
    phases = {"build_and_compile": prepared - started, "simulate": time.monotonic() - prepared}
    return assemble(cells, reports, list(firmware.values()), compiles, phases, options)


def assemble(cells: list[Cell], reports: dict[str, CellReport], builds: list[FirmwareOutcome],
             compiles: dict[CompileJob, CompileOutcome], phases: dict[str, float],
             options: EngineOptions) -> EngineRun:
    """The run of `cells` in matrix order from their reports (any executor's), each passing
    cell checked against its baseline."""
    for report in reports.values():
        check_baseline(report, options)
    ordered = [reports[cell.key] for cell in cells]
    return EngineRun(ordered, builds, compiles,
                     {name: round(seconds, 3) for name, seconds in phases.items()})


def _run_all(active: list[Cell], stages: Stages, options: EngineOptions,
             firmware: dict[str, FirmwareOutcome],
             compiles: dict[CompileJob, CompileOutcome], progress: Progress
             ) -> dict[str, CellReport]:
    """Every active cell on `options.jobs` workers, heaviest first."""
    progress.phase("simulate", sum(1 for cell in active if cell.executes))
    reports = {}
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        futures = {cell.key: pool.submit(_run_one, cell, stages, options, firmware, compiles,
                                         progress)
                   for cell in sorted(active, key=lambda cell: (-cell.weight, cell.key))}
        try:
            for key, future in futures.items():
                reports[key] = future.result()
        except KeyboardInterrupt:
            # Start no more cells; running simulators stop at their own deadlines (the
            # process layer kills their process groups), so nothing is left behind.
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return reports


def not_runnable(cell: Cell, unavailable: Callable[[Cell], str | None],
                 options: EngineOptions) -> CellReport | None:
    """A report for a cell that will not run (expected skip, missing simulator), else None;
    `unavailable` says why a simulating cell cannot run (Stages.unavailable, or for a
    cluster: why no worker can)."""
    out_dir = str(cell_dir(options, cell))
    if cell.expect is Expect.SKIP:
        return skipped(cell, f"skipped by the matrix: {cell.expect_reason}", out_dir,
                       options.run_id)
    reason = unavailable(cell) if cell.simulates else None
    if reason is None:
        return None
    if cell.sim_kind in options.require:
        return CellReport(cell, Outcome.ERROR, f"--require {cell.sim_kind}: {reason}", out_dir,
                          run_id=options.run_id)
    return skipped(cell, reason, out_dir, options.run_id)


def _prepare(active: list[Cell], stages: Stages, options: EngineOptions, progress: Progress
             ) -> tuple[dict[str, FirmwareOutcome], dict[CompileJob, CompileOutcome]]:
    """Build each distinct firmware config once while the batch compile runs beside it."""
    configs: dict[str, FirmwareConfig] = {}
    for cell in active:
        if cell.simulates:
            config = stages.firmware_config(cell)
            configs.setdefault(config.key, config)
    requests = planned(sorted({CompileJob.of(cell) for cell in active if cell.compiles},
                              key=lambda request: (request.model, request.target,
                                                   str(request.options))))
    progress.phase("build", len(configs))
    progress.phase("compile", len(requests))
    with ThreadPoolExecutor(max_workers=2) as pool:
        built = pool.submit(_build_all, list(configs.values()), stages, progress)
        compiled = pool.submit(_compile_all, requests, stages, options, progress)
        return built.result(), compiled.result()


def planned(requests: list[CompileJob]) -> list[CompileJob]:
    """The compile stage's plan: every request that lowers a model for an NPU family first,
    then the configurations of those lowerings (each one Vela run)."""
    leaders = lowering_leaders(requests)
    return sorted(requests, key=lambda request: leaders[request] is not None)


def _build_all(configs: list[FirmwareConfig], stages: Stages, progress: Progress
               ) -> dict[str, FirmwareOutcome]:
    """Build configurations one after another (each build is itself parallel)."""
    outcomes = {}
    for config in configs:
        outcome = outcomes[config.key] = build_one(config, stages)
        state = "cached" if outcome.cached else ("ok" if outcome.ok else "FAILED")
        progress.advance("build", f"{state} {config.key} ({outcome.seconds:.1f} s)")
    return outcomes


def build_one(config: FirmwareConfig, stages: Stages) -> FirmwareOutcome:
    """Build one configuration; a failure becomes the outcome, never an exception."""
    started = time.monotonic()
    try:
        outcome = stages.build_firmware(config)
    except Exception as error:  # noqa: BLE001 - one failed build must not stop the job
        outcome = FirmwareOutcome(config, False, describe(error))
    outcome.seconds = outcome.seconds or round(time.monotonic() - started, 3)
    return outcome


def _compile_all(requests: list[CompileJob], stages: Stages, options: EngineOptions,
                 progress: Progress) -> dict[CompileJob, CompileOutcome]:
    """One batch compile for every (model, target, options) the cells need."""
    if not requests:
        return {}
    outcomes = compile_requests(requests, stages, options)
    for request in requests:
        outcome = outcomes[request]
        state = "cached" if outcome.cached else ("ok" if outcome.ok else "FAILED")
        chosen = ",".join(f"{k}={v}" for k, v in request.options) or "defaults"
        progress.advance("compile", f"{state} {request.model}@{request.target} ({chosen})")
    return outcomes


def compile_requests(requests: list[CompileJob], stages: Stages, options: EngineOptions
                     ) -> dict[CompileJob, CompileOutcome]:
    """One batch compile of `requests` (logs under the run's compile/); every request gets
    an outcome, a failure included."""
    log_dir = options.run_dir / "compile"
    with writing(log_dir):
        log_dir.mkdir(parents=True, exist_ok=True)
    try:
        outcomes = dict(stages.compile_batch(requests, log_dir))
    except Exception as error:  # noqa: BLE001 - reported on every cell that needed it
        outcomes = {request: CompileOutcome(False, describe(error)) for request in requests}
    for request in requests:
        outcomes.setdefault(request,
                            CompileOutcome(False, "the batch compile returned nothing for it"))
    return outcomes


def _run_one(cell: Cell, stages: Stages, options: EngineOptions,
             firmware: dict[str, FirmwareOutcome],
             compiles: dict[CompileJob, CompileOutcome], progress: Progress) -> CellReport:
    """Produce one cell's report and advance the progress display."""
    compiled = compiles.get(CompileJob.of(cell)) if cell.compiles else None
    built = firmware[stages.firmware_config(cell).key] if cell.simulates else None
    report = cell_report(cell, stages, options, built, compiled)
    if cell.executes:
        progress.advance("simulate", f"{report.outcome.value:9} {cell.key} "
                                     f"({report.seconds.get('simulate', 0.0):.1f} s)")
    return report


def cell_report(cell: Cell, stages: Stages, options: EngineOptions,
                built: FirmwareOutcome | None, compiled: CompileOutcome | None) -> CellReport:
    """Produce one cell's result (simulating when it is a run or app cell) and judge it:
    the engine's cell-level step, whichever executor (threads here, a Dask worker) runs it."""
    out_dir = cell_dir(options, cell)
    with writing(out_dir):
        out_dir.mkdir(parents=True, exist_ok=True)
    seconds = {"compile": compiled.seconds} if compiled else {}
    cached = {"compile": compiled.cached} if compiled else {}
    if compiled is not None and not compiled.ok:
        result = _not_run(cell, Status.FAIL if cell.mode is Mode.COMPILE else Status.ERROR,
                          f"compile failed: {compiled.reason}", compiled.log)
    elif cell.mode is Mode.VERIFY:
        assert compiled is not None
        result = _verify(cell, stages, compiled, out_dir)
        seconds["simulate"] = result.timings_s.get("simulate", 0.0)
    elif not cell.simulates:
        result = _compile_only(cell, compiled)
    else:
        assert built is not None
        seconds["build"], cached["build"] = built.seconds, built.cached
        result = _simulate(cell, stages, built, compiled, out_dir)
        seconds["simulate"] = result.timings_s.get("simulate", 0.0)
    write_result(out_dir, result)
    outcome, reason = expected_outcome(cell, result)
    return CellReport(cell, outcome, reason, str(out_dir), result, _log_of(result),
                      extract_metrics(result), extract_versions(result), None, seconds,
                      cached, options.run_id)


def _simulate(cell: Cell, stages: Stages, built: FirmwareOutcome,
              compiled: CompileOutcome | None, out_dir: Path) -> RunResult:
    """Run the cell on its simulator, or say why it could not."""
    if not built.ok:
        return _not_run(cell, Status.ERROR, f"firmware build {built.config.key} failed: "
                                            f"{built.reason}", built.log)
    started = time.monotonic()
    try:
        result = stages.run_cell(cell, built, compiled, out_dir)
    except Exception as error:  # noqa: BLE001 - the cell errors, the job goes on
        result = _not_run(cell, Status.ERROR, f"run failed: {describe(error)}", None)
    result.timings_s.setdefault("simulate", round(time.monotonic() - started, 3))
    if compiled is not None:
        _add_compile_facts(result, compiled)
    return result


def _verify(cell: Cell, stages: Stages, compiled: CompileOutcome, out_dir: Path) -> RunResult:
    """Check the cell's product on the NPU model, or say why that could not start."""
    try:
        result = stages.verify_cell(cell, compiled, out_dir)
    except Exception as error:  # noqa: BLE001 - the cell errors, the job goes on
        result = _not_run(cell, Status.ERROR, f"verify failed: {describe(error)}", None)
    _add_compile_facts(result, compiled)
    return result


def _add_compile_facts(result: RunResult, compiled: CompileOutcome) -> None:
    """Vela's estimates beside the measured numbers, and the compile's tool versions."""
    result.vela = result.vela or compiled.vela
    if compiled.versions is not None:
        result.versions.executorch = result.versions.executorch or compiled.versions.executorch
        result.versions.vela = result.versions.vela or compiled.versions.vela
        for name, version in compiled.versions.extra.items():
            result.versions.extra.setdefault(name, version)


def _compile_only(cell: Cell, compiled: CompileOutcome | None) -> RunResult:
    """A compile-only cell's result: Vela estimates and memory, nothing simulated."""
    assert compiled is not None
    return RunResult(
        status=Status.PASS,
        reason="compiled; compile-only cell (Vela estimates, not simulated)",
        classification=Classification(Kind.SUCCESS, "compile-only cell", "none"),
        model=cell.model,
        target=TargetInfo(cell.target, None, cell.option_dict),
        versions=compiled.versions or Versions(),
        vela=compiled.vela,
        memory=compiled.memory,
        timings_s={"compile": compiled.seconds},
        artifacts=dict(compiled.artifacts, **({"log": compiled.log} if compiled.log else {})),
    )


def _not_run(cell: Cell, status: Status, reason: str, log: str | None) -> RunResult:
    """A result for a cell that did not get to its simulator."""
    return RunResult(
        status=status,
        reason=reason,
        classification=Classification(Kind.NOT_RUN, reason, f"read {log}" if log else
                                       f"invoke regress --filter '{cell.key}' -j1"),
        model=cell.model,
        target=TargetInfo(cell.target, cell.sim, cell.option_dict),
        artifacts={"log": log} if log else {},
    )


def check_baseline(report: CellReport, options: EngineOptions) -> None:
    """Compare a passing cell's metrics with its baseline entry."""
    if options.baselines is None or report.outcome is not Outcome.PASS:
        return
    apply_baseline(report, options.baselines.check(report.key, report.metrics, report.versions,
                                                   options.tolerances))


def _log_of(result: RunResult) -> str | None:
    """The most useful log of a result: its transcript, else the compile or build log."""
    artifacts = result.artifacts
    return artifacts.get("transcript") or artifacts.get("log")


def describe(error: BaseException) -> str:
    """One line for an exception (OrchestratorError already is one)."""
    if isinstance(error, OrchestratorError):
        return error.message
    return f"{type(error).__name__}: {error}"


def cell_dir(options: EngineOptions, cell: Cell) -> Path:
    """scratch/runs/<run id>/cells/<cell>: every cell's outputs carry the run id."""
    return options.run_dir / "cells" / cell.slug
