"""`invoke regress --scheduler ADDRESS` / `--workers N`: the cluster spec from the flags, the
job's identity (so the same command resumes) and the run on the cluster."""

from __future__ import annotations

import sys
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.cluster.executor import ClusterSpec, cluster_execute, job_identity
from orchestrator.regress.cluster.journal import Journal
from orchestrator.regress.cluster.worker import StagesFactory, real_stages
from orchestrator.regress.engine import EngineOptions, EngineRun
from orchestrator.regress.lanes.stages import Stages
from orchestrator.regress.plan.cells import Cell
from orchestrator.regress.plan.matrix import Matrix
from orchestrator.regress.progress import Progress
from orchestrator.regress.report.records import ClusterSection


def cluster_spec(task: RegressTask, factory: StagesFactory | None = None) -> ClusterSpec | None:
    """The cluster the flags name, or None for a local (threads) run."""
    if not task.scheduler and task.workers in (None, ""):
        return None
    if task.scheduler and task.workers not in (None, ""):
        raise OrchestratorError("--scheduler and --workers both name a cluster",
                                "pass --scheduler ADDRESS (an existing cluster) or "
                                "--workers N (a local one), not both")
    workers = None
    if not task.scheduler:
        try:
            workers = int(str(task.workers))
        except ValueError:
            workers = 0
        if workers < 1:
            raise OrchestratorError(f"--workers {task.workers} is not a positive number of "
                                    "workers", "invoke regress --workers 2 ...")
    return ClusterSpec(task.scheduler, workers, factory or real_stages)


def job_journal(task: RegressTask, tree: Scratch, loaded: Matrix, cells: list[Cell]
                ) -> Journal:
    """The journal of this command's job (same matrix, cells and options: same job)."""
    extra: dict[str, Any] = {"filter": task.filter, "shard": task.shard,
                             "rerun_failed": task.rerun_failed, "require": task.require,
                             "baselines": task.baselines}
    return Journal(tree.runs, job_identity(loaded.path, cells, extra))


def run_on_cluster(cells: list[Cell], stages: Stages | None, options: EngineOptions,
                   spec: ClusterSpec, tree: Scratch, journal: Journal, progress: Progress
                   ) -> tuple[EngineRun, ClusterSection]:
    """The engine run on the cluster and the report's `cluster` section."""
    client_stages = stages or spec.factory(tree)
    return cluster_execute(cells, client_stages, options, spec, tree, journal, progress, _say)


def _say(line: str) -> None:
    """A one-line notice for the user (refused workers, cancelling), on stderr."""
    print(line, file=sys.stderr, flush=True)
