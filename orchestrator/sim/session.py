"""One simulation: build the command, run it, parse the stream, judge the outcome."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.progress import step
from orchestrator.protocol import ParsedStream, StreamParser
from orchestrator.sim.classify import Verdict, judge
from orchestrator.sim.data import DataFile
from orchestrator.sim.fvp import FvpOptions, fvp_command
from orchestrator.sim.fvp_run import fvp_environment
from orchestrator.sim.limits import RunLimits, run_limits
from orchestrator.sim.process import ProcessOutcome, clean_env, run_process
from orchestrator.sim.qemu import qemu_command
from orchestrator.targets import Simulator

TRANSCRIPT = "transcript.log"
COMMAND = "command.txt"
RESULT = "result.json"   # the RunResult document, written beside the transcript


@dataclass(frozen=True)
class SimulationResult:
    """Exit code, transcript, parsed records and the verdict of one simulator run."""

    simulator: Simulator
    command: list[str]
    outcome: ProcessOutcome
    stream: ParsedStream
    verdict: Verdict
    limits: RunLimits


def command_for(simulator: Simulator, binary: Path, elf: Path, data: Sequence[DataFile],
                run_dir: Path, deadline_s: float, macs: int | None = None, fast: bool = False,
                pmu_trace: Path | None = None) -> list[str]:
    """The simulator command line for this run."""
    if simulator.kind == "qemu":
        return qemu_command(simulator, binary, elf, data)
    options = FvpOptions(macs=macs, timelimit_s=int(deadline_s), semihosting_cwd=run_dir,
                         fast=fast, pmu_trace=pmu_trace)
    return fvp_command(simulator, binary, elf, data, options)


def launch(simulator: Simulator, binary: Path, elf: Path, run_dir: Path, *,
           consumer: Callable[[str], None], data: Sequence[DataFile] = (),
           limits: RunLimits | None = None, macs: int | None = None,
           fast: bool = False, pmu_trace: Path | None = None,
           env: dict[str, str] | None = None,
           terminal: bool = True) -> tuple[list[str], ProcessOutcome]:
    """Run `elf` in `run_dir` (semihosting cwd), output streamed to `consumer`; keep the
    transcript and command there. `limits` default to the simulator's catalogue limits; an
    FVP without `env` gets fvp_environment(binary). `terminal` False: output through a pipe
    (what C stdio block-buffers; the way runs were read before issue 16)."""
    limits = limits or run_limits(simulator)
    run_dir.mkdir(parents=True, exist_ok=True)
    command = command_for(simulator, binary, elf, data, run_dir, limits.deadline_s, macs, fast,
                          pmu_trace)
    if env is None and simulator.kind == "fvp":
        env = fvp_environment(binary)
    (run_dir / COMMAND).write_text(" ".join(command) + "\n")
    outcome = run_process(command, cwd=run_dir, log_path=run_dir / TRANSCRIPT,
                          deadline_s=limits.host_deadline_s, idle_s=limits.idle_s,
                          consumer=consumer, env=clean_env(run_dir, env), terminal=terminal)
    return command, outcome


def simulate(simulator: Simulator, binary: Path, elf: Path, run_dir: Path, *,
             data: Sequence[DataFile] = (), deadline_s: float | None = None,
             idle_s: float | None = None, expected_build_id: str | None = None,
             macs: int | None = None, fast: bool = False,
             pmu_trace: Path | None = None,
             env: dict[str, str] | None = None) -> SimulationResult:
    """Run our protocol firmware `elf`: parse its records and judge the outcome. Deadline
    and watchdog: the simulator's catalogue limits unless given (idle_s 0: no watchdog)."""
    parser = StreamParser()
    limits = run_limits(simulator, deadline_s, idle_s)
    with step(f"simulate on {simulator.name}"):
        command, outcome = launch(simulator, binary, elf, run_dir, consumer=parser.feed,
                                  data=data, limits=limits, macs=macs, fast=fast,
                                  pmu_trace=pmu_trace, env=env)
    stream = parser.finish()
    return SimulationResult(simulator, command, outcome, stream,
                            judge(outcome, stream, expected_build_id, limits), limits)
