"""A real Dask scheduler and worker processes on 127.0.0.1 for the cluster tests: started
with the `dask` command line, each in its own process group, bounded waits, stopped (and
their simulators with them) on exit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestrator.foundation.paths import Scratch

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 90.0


@dataclass
class LoopbackCluster:
    """A scheduler plus workers; `address` is the scheduler's tcp://127.0.0.1:PORT."""

    folder: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    address: str = ""

    def start_scheduler(self) -> str:
        record = self.folder / "scheduler.json"
        self._spawn("scheduler", [_dask(), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(record)], {})
        deadline = time.monotonic() + START_TIMEOUT_S
        while not record.is_file():
            if time.monotonic() > deadline:
                raise TimeoutError("the Dask scheduler did not start")
            time.sleep(0.2)
        self.address = json.loads(record.read_text())["address"]
        return self.address

    def start_worker(self, name: str, scratch_root: Path) -> None:
        """One worker process, one thread, no nanny (a killed worker stays dead)."""
        env = {"ETHOSU_ORCH_SCRATCH": str(scratch_root)}
        self._spawn(name, [_dask(), "worker", self.address, "--nthreads", "1", "--no-nanny",
                           "--host", "127.0.0.1", "--name", name, "--no-dashboard",
                           "--death-timeout", "60"], env)

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        deadline = time.monotonic() + START_TIMEOUT_S
        with Client(self.address, timeout=30) as client:
            while len(client.scheduler_info()["workers"]) < count:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{count} Dask workers did not join")
                time.sleep(0.2)

    def worker_pids(self) -> dict[str, int]:
        return {name: process.pid for name, process in self.processes.items()
                if name != "scheduler"}

    def kill(self, name: str) -> None:
        os.kill(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes.values():
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        environment = {**os.environ, **env, "PYTHONPATH": str(REPO)}
        with (self.folder / f"{name}.log").open("wb") as log:
            self.processes[name] = subprocess.Popen(command, cwd=REPO, env=environment,
                                                    stdout=log, stderr=subprocess.STDOUT,
                                                    start_new_session=True)


def _dask() -> str:
    """The dask command of this interpreter's environment."""
    beside = Path(sys.executable).with_name("dask")
    return str(beside) if beside.is_file() else (shutil.which("dask") or "dask")


def start_far_workers(cluster: LoopbackCluster, folder: Path, client: Scratch,
                      names: tuple[str, ...] = ("far1", "far2")) -> None:
    """Start the scheduler and workers that each have a scratch of their own under `folder`
    (none sees the client's: products travel as bytes), set up as the client is: the system
    toolchain and the client's source trees (what `invoke setup --only sources --source ...`
    records on such a worker)."""
    from orchestrator.foundation.paths import scratch
    from orchestrator.setup.lock import read_lock, write_lock_entry
    from orchestrator.setup.toolchain import adopt_system_toolchain

    cluster.start_scheduler()
    sources = {name: entry for name, entry in read_lock(client).items()
               if entry.get("kind") == "source"}
    for name in names:
        own = scratch(folder / name).ensure()
        adopt_system_toolchain(own)
        for source, entry in sources.items():
            write_lock_entry(own, source, entry)
        cluster.start_worker(name, own.root)
    cluster.wait_for_workers(len(names))
