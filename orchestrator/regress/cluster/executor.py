"""A regression job on a Dask cluster, from the client: preflight the workers, submit the
graph (builds and compiles once, each cell after its two products), collect cells as they
finish (journalled, so the same command resumes), survive lost workers (Dask runs their
cells again; the report counts the attempts), end in one sentence when the scheduler goes,
and on Ctrl-C cancel the graph and stop every simulator the workers started."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.paths import Scratch
from orchestrator.regress.cluster.connect import open_client
from orchestrator.regress.cluster.journal import Journal
from orchestrator.regress.cluster.preflight import WorkerCheck, fingerprint
from orchestrator.regress.cluster.tally import WorkerTally
from orchestrator.regress.cluster.transfer import relocate, unpack
from orchestrator.regress.cluster.worker import (
    BYTES,
    START_TOPIC,
    CellDone,
    StagesFactory,
    WorkerJob,
    build_task,
    cell_task,
    compile_task,
    kill_simulators,
    preflight,
    reap,
    token_path,
)
from orchestrator.regress.engine import (
    EngineOptions,
    EngineRun,
    assemble,
    cell_dir,
    describe,
    not_runnable,
)
from orchestrator.regress.lanes.stages import (
    CompileJob,
    CompileOutcome,
    FirmwareConfig,
    FirmwareOutcome,
    Stages,
)
from orchestrator.regress.plan.cells import Cell
from orchestrator.regress.plan.lowering import lowering_leaders
from orchestrator.regress.progress import Progress
from orchestrator.regress.report.records import ClusterSection
from orchestrator.regress.verdict.outcome import CellReport, Outcome, Placement

POLL_S = 0.2
NO_WORKER_GRACE_S = 30.0


@dataclass(frozen=True)
class ClusterSpec:
    """Where the job runs: a scheduler address, or a local cluster of `workers` workers."""

    scheduler: str | None
    workers: int | None
    factory: StagesFactory
    retries: int = 2


class SchedulerGone(Exception):
    """The client lost its scheduler."""


def job_identity(matrix: Path, cells: list[Cell], extra: dict[str, Any]) -> dict[str, Any]:
    """What makes two commands the same job (for resuming): the matrix text, the cells, the
    options that change results."""
    text = matrix.read_bytes() if matrix.is_file() else b""
    return {"matrix": str(matrix), "matrix_sha256": hashlib.sha256(text).hexdigest(),
            "cells": [cell.key for cell in cells], **extra}


@dataclass
class _Graph:
    """The submitted futures and what each one stands for."""

    builds: dict[Any, FirmwareConfig] = field(default_factory=dict)
    compiles: dict[Any, CompileJob] = field(default_factory=dict)
    cells: dict[Any, Cell] = field(default_factory=dict)

    def pending(self) -> list[Any]:
        return [*self.builds, *self.compiles, *self.cells]


class ClusterJob:
    """One cluster run of a list of cells (see the module docstring)."""

    def __init__(self, cells: list[Cell], stages: Stages, options: EngineOptions,
                 spec: ClusterSpec, tree: Scratch, journal: Journal, progress: Progress,
                 say: Callable[[str], None]) -> None:
        self.cells, self.stages, self.options, self.spec = cells, stages, options, spec
        self.tree, self.journal, self.progress, self.say = tree, journal, progress, say
        self.tally = WorkerTally(progress)
        self.nonce = secrets.token_hex(4)
        self.job = WorkerJob(options.run_id, secrets.token_hex(16), spec.factory)
        self.reports: dict[str, CellReport] = {}
        self.placement: dict[str, Placement] = {}
        self.builds: dict[str, FirmwareOutcome] = {}
        self.compiles: dict[CompileJob, CompileOutcome] = {}
        self.starts: dict[str, list[str]] = {}
        self.checks: list[WorkerCheck] = []
        self.build_order: list[str] = []

    # -- the job -----------------------------------------------------------------------

    def run(self) -> tuple[EngineRun, ClusterSection]:
        """Run every cell; return the engine run and the report's cluster section."""
        started = time.monotonic()
        self.journal.start(self.options.run_id)
        token = token_path(self.tree.root, self.options.run_id)
        with writing(token):
            token.parent.mkdir(parents=True, exist_ok=True)
            token.write_text(self.job.token, encoding="utf-8")
        try:
            with open_client(self.spec.scheduler, self.spec.workers, self.tree) as client:
                self._run_on(client)
        finally:
            token.unlink(missing_ok=True)
        phases = {"cluster": time.monotonic() - started}
        builds = [self.builds[key] for key in self.build_order if key in self.builds]
        compiles = {request: self.compiles[request]
                    for request in sorted(self.compiles, key=CompileJob.report_order)}
        run = assemble(self.cells, self.reports, builds, compiles, phases, self.options)
        for report in run.cells:
            report.placement = self.placement.get(report.key)
        self.journal.close()
        return run, self._section()

    def _run_on(self, client: Any) -> None:
        address = str(client.scheduler.address)
        self.scheduler = address
        fit = self._preflight(client)
        self.job = replace(self.job, ship_bytes=any(c.products == BYTES for c in fit))
        active = self._settle_known(fit)
        client.subscribe_topic(START_TOPIC, self._on_start)
        graph = self._submit(client, active, fit)
        try:
            self._collect(client, graph, {check.address for check in fit})
        except KeyboardInterrupt:
            self._cancel(client, graph)
            raise
        except SchedulerGone:
            left = len(self.cells) - len(self.reports)
            raise OrchestratorError(
                f"the Dask scheduler at {address} went away with {left} of "
                f"{len(self.cells)} cells unfinished; the {len(self.reports)} finished are "
                f"kept in {self.journal.folder}",
                "start the scheduler and workers again and rerun the same command (it "
                "resumes)") from None
        finally:
            _quietly(lambda: client.run(reap, self._worker_pids()))

    # -- preflight ---------------------------------------------------------------------

    def _preflight(self, client: Any) -> list[WorkerCheck]:
        """Every worker's check; refusals said in one line each; the fit ones returned."""
        simulating = [cell for cell in self.cells if cell.simulates]
        answers = client.run(preflight, self.job, simulating, on_error="return")
        mine = fingerprint(self.tree)
        for address, answer in sorted(answers.items()):
            check = (answer if isinstance(answer, WorkerCheck)
                     else WorkerCheck(address, error=describe(answer)))
            check.judge(mine)
            self.checks.append(check)
            self.tally.name(address)
            if check.refused:
                self.say(check.refused)
        fit = [check for check in self.checks if not check.refused]
        if not fit:
            first = self.checks[0].refused if self.checks else "it has no workers"
            raise OrchestratorError(f"no worker of the scheduler at {self.scheduler} can take "
                                    f"cells: {first}", "fix the worker as the line above says,"
                                    " or start workers: dask worker " + self.scheduler)
        self.say("workers: " + self.tally.legend())
        return fit

    def _settle_known(self, fit: list[WorkerCheck]) -> list[Cell]:
        """Cells recorded by an earlier run of this job, and cells no fit worker can run,
        get their reports now; the rest are returned to run."""
        finished = self.journal.finished()
        active = []
        for cell in self.cells:
            if cell.key in finished:
                self.reports[cell.key] = finished[cell.key]
                self.placement[cell.key] = replace(
                    finished[cell.key].placement or Placement(), resumed=True)
                continue
            report = not_runnable(cell, lambda one: _nowhere(one, fit), self.options)
            if report is None:
                active.append(cell)
            else:
                self.reports[cell.key] = report
        return active

    # -- the graph ---------------------------------------------------------------------

    def _submit(self, client: Any, active: list[Cell], fit: list[WorkerCheck]) -> _Graph:
        graph = _Graph()
        everyone = [check.address for check in fit]
        builds: dict[str, Any] = {}
        compiles: dict[CompileJob, Any] = {}
        leaders = lowering_leaders(CompileJob.of(cell) for cell in active if cell.compiles)
        for cell in active:
            if cell.simulates:
                config = self.stages.firmware_config(cell)
                if config.key not in builds:
                    builds[config.key] = self._task(client, build_task, config,
                                                    key=f"build-{config.key}",
                                                    workers=everyone, priority=100)
                    graph.builds[builds[config.key]] = config
                    self.build_order.append(config.key)
            if cell.compiles:
                request = CompileJob.of(cell)
                if request not in compiles:   # after the compile that lowers for it
                    digest = hashlib.sha256(repr(request).encode()).hexdigest()[:12]
                    leader = leaders.get(request)
                    compiles[request] = self._task(client, compile_task, request,
                                                   compiles[leader] if leader else None,
                                                   key=f"compile-{request.model}-{digest}",
                                                   workers=everyone, priority=100)
                    graph.compiles[compiles[request]] = request
        self.progress.phase("build", len(builds))
        self.progress.phase("compile", len(compiles))
        self.progress.phase("simulate", sum(1 for cell in active if cell.simulates))
        for cell in sorted(active, key=lambda one: (-one.weight, one.key)):
            built = builds[self.stages.firmware_config(cell).key] if cell.simulates else None
            compiled = compiles[CompileJob.of(cell)] if cell.compiles else None
            allowed = [check.address for check in fit if cell.key not in check.unavailable]
            future = self._task(client, cell_task, cell, built, compiled,
                                key=f"cell-{cell.slug}", workers=allowed,
                                priority=cell.weight)
            graph.cells[future] = cell
        return graph

    def _task(self, client: Any, function: Callable[..., Any], *args: Any, key: str,
              workers: list[str], priority: int) -> Any:
        return client.submit(function, self.job, *args, key=f"{key}-{self.nonce}",
                             workers=workers, allow_other_workers=False, pure=False,
                             retries=self.spec.retries, priority=priority)

    # -- collecting --------------------------------------------------------------------

    def _collect(self, client: Any, graph: _Graph, fit: set[str]) -> None:
        """Take finished futures until none is left; watch the scheduler and the workers."""
        pending = set(graph.pending())
        alone_since: float | None = None
        while pending:
            done = {future for future in pending if future.done()}
            for future in done:
                self._take(future, graph)
            pending -= done
            if done:
                continue
            alive = self._alive(client) & fit
            alone_since = None if alive else (alone_since or time.monotonic())
            if alone_since and time.monotonic() - alone_since > NO_WORKER_GRACE_S:
                raise OrchestratorError(
                    f"every worker that passed the preflight left the scheduler at "
                    f"{self.scheduler} ({len(self.cells) - len(self.reports)} cells "
                    f"unfinished, the finished kept in {self.journal.folder})",
                    "start workers (dask worker ADDRESS) and rerun the same command")
            time.sleep(POLL_S)

    def _alive(self, client: Any) -> set[str]:
        if client.status not in ("running", "connecting"):
            raise SchedulerGone()
        try:
            workers = set(client.scheduler_info()["workers"])
        except Exception:  # noqa: BLE001 - a client without a scheduler
            raise SchedulerGone() from None
        for address in set(self.tally.names) - workers:
            self.tally.lost(address)
        return workers

    def _take(self, future: Any, graph: _Graph) -> None:
        """File one finished future as a build, a compile or a cell."""
        if future.status == "cancelled":
            raise SchedulerGone()
        error = future.exception() if future.status == "error" else None
        if future in graph.builds:
            config = graph.builds[future]
            outcome = (FirmwareOutcome(config, False, f"on the cluster: {describe(error)}")
                       if error else future.result().outcome)
            self.builds[config.key] = replace(outcome, product=None)
            self.progress.advance("build", f"{_state(outcome)} {config.key} "
                                           f"({outcome.seconds:.1f} s)")
        elif future in graph.compiles:
            request = graph.compiles[future]
            compiled = (CompileOutcome(False, f"on the cluster: {describe(error)}")
                        if error else future.result().outcome)
            self.compiles[request] = replace(compiled, product=None)
            self.progress.advance("compile", f"{_state(compiled)} "
                                             f"{request.model}@{request.target}")
        else:
            self._take_cell(graph.cells[future], future, error)

    def _take_cell(self, cell: Cell, future: Any, error: BaseException | None) -> None:
        attempts = self.starts.get(cell.key, [])
        if error is not None:
            report = CellReport(cell, Outcome.ERROR, f"the cluster could not run the cell: "
                                f"{describe(error)} (after {len(attempts)} attempts); next: "
                                f"invoke regress --filter '{cell.key}' -j 1",
                                str(cell_dir(self.options, cell)), run_id=self.options.run_id)
            worker = attempts[-1] if attempts else "-"
        else:
            done: CellDone = future.result()
            report, worker = self._install(done), done.worker
            self.placement[cell.key] = Placement(
                worker=worker, products=done.products, attempts=len(attempts) or 1,
                retried=len(attempts) > 1, workers_tried=attempts)
            report.placement = self.placement[cell.key]
            self.journal.record(report)
        self.reports[cell.key] = report
        retried = " (retried)" if len(attempts) > 1 else ""
        if cell.simulates:
            self.tally.finished(worker, report.outcome.failing,
                                f"{report.outcome.value:9} {cell.key} "
                                f"({report.seconds.get('simulate', 0.0):.1f} s) on "
                                f"{self.tally.name(worker)}{retried}")

    def _install(self, done: CellDone) -> CellReport:
        """The report with its outputs in the client's run directory."""
        if done.outputs is None:
            return done.report
        target = cell_dir(self.options, done.report.cell)
        unpack(done.outputs, target, replace=True)
        moved: CellReport = relocate(done.report, Path(done.run_dir), self.options.run_dir)
        return moved

    def _on_start(self, event: Any) -> None:
        """A worker began a cell: count the attempt and the running cell."""
        _, message = event
        if not isinstance(message, dict) or message.get("run_id") != self.options.run_id:
            return
        self.starts.setdefault(message["cell"], []).append(message["worker"])
        self.tally.started(message["worker"])

    def _cancel(self, client: Any, graph: _Graph) -> None:
        """Ctrl-C: cancel every task, then stop every simulator the workers started."""
        self.say("cancelling the cluster job: stopping simulators on every worker")
        _quietly(lambda: client.cancel(graph.pending(), force=True))
        _quietly(lambda: client.run(kill_simulators, self._worker_pids()))

    def _worker_pids(self) -> dict[str, list[int]]:
        """{host: [pid]} of every worker that answered the preflight."""
        pids: dict[str, list[int]] = {}
        for check in self.checks:
            pids.setdefault(check.host, []).append(check.pid)
        return pids

    def _section(self) -> ClusterSection:
        """The report's `cluster` section: the scheduler, each worker, retried cells."""
        per_worker = Counter(place.worker for place in self.placement.values()
                             if not place.resumed)
        return ClusterSection(
            scheduler=getattr(self, "scheduler", self.spec.scheduler),
            workers=[check.row(per_worker.get(check.address, 0)) for check in self.checks],
            retried=sorted(key for key, place in self.placement.items() if place.retried),
            resumed=sorted(key for key, place in self.placement.items() if place.resumed))


def cluster_execute(cells: list[Cell], stages: Stages, options: EngineOptions,
                    spec: ClusterSpec, tree: Scratch, journal: Journal, progress: Progress,
                    say: Callable[[str], None]) -> tuple[EngineRun, ClusterSection]:
    """Run `cells` on the cluster `spec` names; the run and the report's cluster section."""
    return ClusterJob(cells, stages, options, spec, tree, journal, progress, say).run()


def _nowhere(cell: Cell, fit: list[WorkerCheck]) -> str | None:
    """Why no fit worker can run the cell (the first worker's reason), or None."""
    reasons = [check.unavailable.get(cell.key) for check in fit]
    if any(reason is None for reason in reasons):
        return None
    return reasons[0]


def _state(outcome: FirmwareOutcome | CompileOutcome) -> str:
    return "cached" if outcome.cached else ("ok" if outcome.ok else "FAILED")


def _quietly(action: Callable[[], object]) -> None:
    """Best effort on the way out (the scheduler may be gone already)."""
    try:
        action()
    except Exception:  # noqa: BLE001 - cleanup must not hide the job's own ending
        pass
