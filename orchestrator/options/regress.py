"""The options of `invoke regress` and `invoke regress-merge` (the matrix keys of a cell are
the run and compile groups' options: orchestrator.regress.plan.matrix)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.fields import option, switch, text

QUIET_HELP = "print nothing but errors"
SCHEDULER_EXAMPLE = "invoke regress --scheduler tcp://HOST:8786 ..."


def scheduler_address(value: object, label: str) -> str:
    """[PROTOCOL://]HOST:PORT, the form a Dask client connects to."""
    address = text(value, label)
    host, _, port = address.rpartition("://")[2].rpartition(":")
    if not host or not port.isdigit():
        raise OrchestratorError(f"{label} {address!r} is not a scheduler address "
                                "(tcp://HOST:PORT)", SCHEDULER_EXAMPLE)
    return address


@dataclass(frozen=True)
class RegressTask:
    """`invoke regress`: which matrix, which of its cells, how many at once, which baselines."""

    matrix: str | None = option(None, "matrix TOML file (examples/regress/qemu.toml runs "
                                "anywhere with QEMU)", parse=text, matrix=False)
    jobs: int | str | None = option(None, "cells simulated in parallel (default: number of "
                                    "cores)", parse=text, matrix=False)
    shard: str | None = option(None, "run only shard i/N of the cells (deterministic, balanced; "
                               "for CI job matrices)", parse=text, matrix=False)
    filter: str | None = option(None, "comma-separated globs on model, target, lane or cell key "
                                "(e.g. 'mv2,*u85*')", parse=text, matrix=False)
    rerun_failed: bool = option(False, "run only the cells that failed in the last report",
                                parse=switch, matrix=False)
    toolsets: str | None = option(None, "A: the matrix under toolset A (compiles in its "
                                  "environment; model cells on a simulator only where the "
                                  "runtime sources match its tag); A,B: the compile and host "
                                  "lanes under both and one comparison report "
                                  "(toolsets.json/.md/.html). Names or requirements like "
                                  "executorch==1.5.1 (invoke toolsets lists them)",
                                  parse=text, matrix=False)
    update_baselines: bool = option(False, "record this run's metrics as the baselines and "
                                    "print the diff", parse=switch, matrix=False)
    baselines: str | None = option(None, "baselines JSON (default: the matrix's `baselines` key, "
                                   "else <matrix>.baselines.json)", parse=text, matrix=False)
    require: str | None = option(None, "simulator kinds that must be present (fvp, qemu): their "
                                 "absence fails cells", parse=text, matrix=False)
    quiet: bool = option(False, f"{QUIET_HELP} (reports are still written)", parse=switch,
                         matrix=False)
    scheduler: str | None = option(None, "run the cells on the Dask cluster at this scheduler "
                                   "address (tcp://HOST:PORT; pip install -e '.[cluster]')",
                                   parse=scheduler_address, matrix=False)
    workers: int | str | None = option(None, "run the cells on a local Dask cluster of N "
                                       "one-thread workers started for this job",
                                       parse=text, matrix=False)


@dataclass(frozen=True)
class RegressMerge:
    """`invoke regress-merge`: the shard reports to merge and where the merged one goes."""

    reports: str | None = option(None, "comma-separated report.json files (or run directories) "
                                 "of the shards", parse=text, matrix=False)
    out: str | None = option(None, "directory for the merged reports (default: "
                             "scratch/runs/<new run id>/)", parse=text, matrix=False)
    quiet: bool = option(False, QUIET_HELP, parse=switch, matrix=False)
