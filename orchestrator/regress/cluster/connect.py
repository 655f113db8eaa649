"""A Dask client: on an existing scheduler's address, or on a local cluster of N workers
(one thread each, loopback only). Without dask installed: one line saying how to add it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import SCRATCH_ENV, Scratch
from orchestrator.options.regress import SCHEDULER_EXAMPLE

INSTALL = "pip install -e '.[cluster]'"
CONNECT_TIMEOUT_S = 20


def distributed_module() -> Any:
    """dask.distributed, or the one-line error naming the extra that provides it."""
    try:
        import distributed
    except ImportError:
        raise OrchestratorError("--scheduler and --workers need dask and distributed, which "
                                "are not installed", INSTALL) from None
    return distributed


def dask_config() -> Any:
    """dask.config (after distributed is imported: its defaults must be loaded before a
    temporary setting, or leaving the setting drops them)."""
    import dask

    return dask.config


@contextmanager
def open_client(scheduler: str | None, workers: int | None, tree: Scratch) -> Iterator[Any]:
    """A connected client; when no address, a local cluster (started here, stopped on exit)
    whose workers use the client's scratch."""
    distributed = distributed_module()
    with ExitStack() as stack:
        if scheduler:
            address: Any = scheduler
        else:
            # forked, not spawned: a worker starts with this process's imports instead of
            # importing Python, dask and the orchestrator again (the serial start of a job)
            stack.enter_context(dask_config().set(
                {"distributed.worker.multiprocessing-method": "fork"}))
            address = stack.enter_context(distributed.LocalCluster(
                n_workers=workers or 1, threads_per_worker=1, processes=True,
                host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=40,
                env={SCRATCH_ENV: str(tree.root)}))
        try:
            client = stack.enter_context(distributed.Client(address,
                                                            timeout=CONNECT_TIMEOUT_S))
        except OSError as error:
            raise OrchestratorError(
                f"no Dask scheduler answers at {scheduler} ({error})",
                "start one (dask scheduler --host HOST) or pass its address: "
                + SCHEDULER_EXAMPLE) from None
        yield client
