"""How a simulator is started for a run: its command, environment and run directory (the
Launch a plan makes), and the start itself. Apart from the session (parsing, verdicts) so that
a warm run's early start (orchestrator.runner.early_start) imports only this."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.sim.process import RunningProcess, clean_env

if TYPE_CHECKING:
    from orchestrator.sim.data import DataFile
    from orchestrator.sim.plan import RunPlan

TRANSCRIPT = "transcript.log"
COMMAND = "command.txt"


@dataclass(frozen=True)
class Launch:
    """One simulator start as a plan makes it: the command, its environment and the run
    directory it runs in (its semihosting cwd, beside the transcript and command files)."""

    command: tuple[str, ...]
    env: dict[str, str]
    run_dir: Path


def launch_of(plan: RunPlan, elf: Path, run_dir: Path, data: Sequence[DataFile] = ()
              ) -> Launch:
    """How `plan` starts `elf` in `run_dir` with `data` loaded."""
    command = plan.kind.command(plan.invocation(elf, run_dir, tuple(data)))
    return Launch(tuple(command), clean_env(run_dir, plan.environment), run_dir)


def start(launch: Launch, log_path: Path, terminal: bool = True) -> RunningProcess:
    """Start `launch` (its command kept in the run directory), its output in `log_path`
    (RunningProcess.attach hands it to a reader)."""
    launch.run_dir.mkdir(parents=True, exist_ok=True)
    (launch.run_dir / COMMAND).write_text(" ".join(launch.command) + "\n")
    return RunningProcess(launch.command, cwd=launch.run_dir, log_path=log_path,
                          env=launch.env, terminal=terminal)
