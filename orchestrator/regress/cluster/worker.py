"""What runs on a Dask worker: the preflight, one firmware build, one compile, one cell.

Each function gets the job (run id, the client's scratch and its token, the stages
factory) and works in the client's scratch when the worker sees it (token found: products
are shared), else in the worker's own scratch, receiving products as bytes and returning
the cell's outputs as bytes. The engine's own cell-level functions do the work.
"""

from __future__ import annotations

import os
import platform
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.regress.cluster.preflight import WorkerCheck, fingerprint
from orchestrator.regress.cluster.transfer import pack, pack_folder, relocate, unpack
from orchestrator.regress.engine import EngineOptions, build_one, cell_dir, cell_report
from orchestrator.regress.engine import compile_requests as engine_compile
from orchestrator.regress.lanes.stages import (
    CompileJob,
    CompileOutcome,
    FirmwareConfig,
    FirmwareOutcome,
    Stages,
)
from orchestrator.regress.plan.cells import Cell
from orchestrator.regress.verdict.outcome import CellReport

TOKEN_DIR = "cluster"
START_TOPIC = "ethosu-orch-cell-start"
SHARED, BYTES = "shared", "bytes"

StagesFactory = Callable[[Scratch], Stages]


@dataclass(frozen=True)
class WorkerJob:
    """What every task of one job needs to know about the client."""

    run_id: str
    token: str
    factory: StagesFactory
    ship_bytes: bool = False      # some fit worker does not share the client's scratch


@dataclass
class Shipped:
    """A build or compile outcome as it leaves its worker: the files as bytes when needed."""

    outcome: Any
    root: str
    host: str
    bundle: bytes | None = None


@dataclass
class CellDone:
    """A cell's report as it leaves its worker, its outputs as bytes when not shared."""

    report: CellReport
    worker: str
    products: str
    run_dir: str
    outputs: bytes | None = None


_STAGES: dict[tuple[Any, str], Stages] = {}
_STAGES_LOCK = threading.Lock()


def token_path(root: Path, run_id: str) -> Path:
    """The file whose content proves a worker sees the client's scratch."""
    return root / TOKEN_DIR / f"{run_id}.token"


def worker_tree(job: WorkerJob) -> tuple[Scratch, str]:
    """This worker's own scratch (ETHOSU_ORCH_SCRATCH or the default) and whether it is
    the client's (the client's token is in it: products are shared in place) or not
    (products and cell outputs travel as bytes). Stage progress lines are off on workers:
    the client reports per cell."""
    from orchestrator.foundation.progress import quiet_if

    quiet_if(True)
    tree = scratch().ensure()
    try:
        shared = token_path(tree.root, job.run_id).read_text(encoding="utf-8") == job.token
    except OSError:
        shared = False
    return tree, SHARED if shared else BYTES


def _stages(job: WorkerJob, tree: Scratch) -> Stages:
    """One stages object per (factory, scratch) in this worker process."""
    with _STAGES_LOCK:
        key = (job.factory, str(tree.root))
        if key not in _STAGES:
            _STAGES[key] = job.factory(tree)
        return _STAGES[key]


def _options(job: WorkerJob, tree: Scratch) -> EngineOptions:
    return EngineOptions(run_id=job.run_id, run_dir=tree.runs / job.run_id)


def preflight(job: WorkerJob, cells: list[Cell], dask_worker: Any = None) -> WorkerCheck:
    """This worker's versions, products mode, and which cells its stages cannot run (run
    through Client.run, which passes the worker as `dask_worker`)."""
    tree, mode = worker_tree(job)
    stages = _stages(job, tree)
    unavailable = {}
    for cell in cells:
        reason = stages.unavailable(cell)
        if reason is not None:
            unavailable[cell.key] = reason
    return WorkerCheck(str(dask_worker.address), socket.gethostname(), os.getpid(), mode,
                       str(tree.root), fingerprint(tree), unavailable)


def build_task(job: WorkerJob, config: FirmwareConfig) -> Shipped:
    """Build one firmware configuration (one build at a time per scratch)."""
    from distributed import Lock

    tree, mode = worker_tree(job)
    where = "shared" if mode == SHARED else platform.node()
    with Lock(f"ethosu-orch-build:{where}:{tree.root}"):  # type: ignore[no-untyped-call]
        outcome = build_one(config, _stages(job, tree))
    return _ship(job, tree, outcome)


def compile_task(job: WorkerJob, request: CompileJob, lowered: Shipped | None = None
                 ) -> Shipped:
    """Compile one (model, target, options); the product is content-keyed and cached. After
    `lowered` (the compile that lowered this model for the family) it is one Vela run on
    that lowering, received first when this worker does not see the scratch it is in."""
    tree, mode = worker_tree(job)
    if lowered is not None and lowered.outcome.ok:
        _receive(lowered, tree, mode)
    outcome = engine_compile([request], _stages(job, tree), _options(job, tree))[request]
    return _ship(job, tree, outcome)


def _ship(job: WorkerJob, tree: Scratch, outcome: FirmwareOutcome | CompileOutcome
          ) -> Shipped:
    bundle = pack(outcome, tree.root) if job.ship_bytes and outcome.ok else None
    return Shipped(outcome, str(tree.root), socket.gethostname(), bundle)


def _receive(shipped: Shipped | None, tree: Scratch, mode: str) -> Any:
    """The outcome with its files under this worker's scratch."""
    if shipped is None:
        return None
    here = str(tree.root)
    if shipped.root == here and (mode == SHARED or shipped.host == socket.gethostname()):
        return shipped.outcome
    if shipped.bundle is not None:
        unpack(shipped.bundle, tree.root)
    return relocate(shipped.outcome, Path(shipped.root), tree.root)


def cell_task(job: WorkerJob, cell: Cell, built: Shipped | None, compiled: Shipped | None
              ) -> CellDone:
    """Run one cell with the engine's cell step; announce the start (retries are counted
    from these announcements) and hand back the report and, if not shared, its outputs."""
    from distributed import get_worker

    worker = get_worker()
    worker.log_event(START_TOPIC, {"run_id": job.run_id, "cell": cell.key,
                                   "worker": worker.address})
    tree, mode = worker_tree(job)
    options = _options(job, tree)
    report = cell_report(cell, _stages(job, tree), options, _receive(built, tree, mode),
                         _receive(compiled, tree, mode))
    outputs = pack_folder(cell_dir(options, cell)) if mode == BYTES else None
    return CellDone(report, worker.address, mode, str(options.run_dir), outputs)


def kill_simulators(workers: dict[str, list[int]]) -> list[int]:
    """Stop the simulators this worker started (a cancelled job) and those of the job's
    dead workers on this host."""
    from orchestrator.sim.owners import kill_owned

    return kill_owned() + reap(workers)


def reap(workers: dict[str, list[int]]) -> list[int]:
    """Stop the simulators of the job's workers on this host ({host: [pid]}) that died
    mid-cell; nothing else is touched."""
    from orchestrator.sim.owners import reap_orphans

    return reap_orphans(workers.get(socket.gethostname(), []))


def real_stages(tree: Scratch) -> Stages:
    """The tool's own stages in a worker's scratch (the default stages factory)."""
    from orchestrator.regress.lanes.real_stages import RealStages

    return RealStages(tree)
