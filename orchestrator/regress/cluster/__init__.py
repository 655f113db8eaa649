"""Regression matrices on a Dask cluster: the same cells, the same reports, more machines.

The client turns the cells into a task graph (each firmware configuration built once, each
compile product made once, each cell depending on just those two), checks every worker
before giving it cells (preflight), ships products to workers that do not share its
scratch, records finished cells so the same command resumes, and assembles the engine's
run exactly as a local job would. Dask (dask, distributed) is an optional extra:
`pip install -e '.[cluster]'`; nothing here imports it before a cluster job starts.

    executor   cluster_execute: the job on the client (graph, wait loop, faults)
    connect    a client on a scheduler address, or on a local cluster of N workers
    preflight  what a worker can do and whether its versions equal the client's
    worker     the functions that run on the workers (preflight, build, compile, cell)
    transfer   products and cell outputs as bytes for workers without the shared scratch
    journal    finished cells on disk: re-running the same command resumes
    tally      progress per worker (done, running, failed)
"""

from __future__ import annotations

from orchestrator.regress.cluster.executor import ClusterSpec, cluster_execute, job_identity

__all__ = ["ClusterSpec", "cluster_execute", "job_identity"]
