"""Simulator processes by owner: each carries its starter's pid (process.OWNER_ENV), so a
job can stop the simulators one process started (Ctrl-C on a cluster job) and the orphans
of a known owner that died without stopping them (a worker killed mid-cell). Linux /proc only;
elsewhere nothing is found."""

from __future__ import annotations

import os
import signal
from collections.abc import Collection
from pathlib import Path

from orchestrator.sim.process import OWNER_ENV

PROC = Path("/proc")


def simulator_owners() -> dict[int, int]:
    """{simulator pid: owner pid} for every simulator this user can see."""
    found = {}
    marker = OWNER_ENV.encode() + b"="
    for entry in PROC.glob("[0-9]*"):
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        for item in environ.split(b"\0"):
            if item.startswith(marker):
                owner = item[len(marker):]
                if owner.isdigit():
                    found[int(entry.name)] = int(owner)
                break
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_groups(pids: list[int]) -> list[int]:
    """SIGKILL the process group of each pid (a simulator leads its own session)."""
    killed = []
    for pid in pids:
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
        killed.append(pid)
    return killed


def kill_owned(owner: int | None = None) -> list[int]:
    """Stop every simulator `owner` (default: this process) started; return their pids."""
    owner = os.getpid() if owner is None else owner
    return _kill_groups([pid for pid, by in simulator_owners().items() if by == owner])


def reap_orphans(owners: Collection[int]) -> list[int]:
    """Stop every simulator started by one of `owners` that is gone (a worker killed
    mid-cell); return their pids. Simulators of living owners are never touched."""
    dead = {owner for owner in owners if not _alive(owner)}
    return _kill_groups([pid for pid, by in simulator_owners().items() if by in dead])
