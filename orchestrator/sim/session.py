"""One simulation of a run plan: its command, run, the stream parsed, the outcome judged."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.progress import step
from orchestrator.parse.classify import make_classification
from orchestrator.protocol import ParsedStream, StreamParser
from orchestrator.results import Kind, RunResult, Status, TargetInfo
from orchestrator.sim.classify import Verdict, verdict_of
from orchestrator.sim.data import DataFile
from orchestrator.sim.launch import TRANSCRIPT, launch_of, start
from orchestrator.sim.limits import RunLimits
from orchestrator.sim.plan import RunPlan
from orchestrator.sim.process import ProcessOutcome, RunningProcess
from orchestrator.targets import Simulator


def interrupted_result(run_id: str, run_dir: Path, target: str, simulator: str | None,
                       model: str | None = None) -> RunResult:
    """What an interrupted run leaves: status interrupted, and the transcript so far."""
    summary = "the run was interrupted (SIGINT or SIGTERM) before it finished"
    transcript = run_dir / TRANSCRIPT
    return RunResult(
        status=Status.INTERRUPTED, reason=summary, run_id=run_id,
        classification=make_classification(Kind.INTERRUPTED, summary, []),
        model=model, target=TargetInfo(name=target, simulator=simulator),
        artifacts={"transcript": str(transcript)} if transcript.is_file() else {})


@dataclass(frozen=True)
class SimulationResult:
    """Exit code, transcript, parsed records and the verdict of one simulator run."""

    simulator: Simulator
    command: list[str]
    outcome: ProcessOutcome
    stream: ParsedStream
    verdict: Verdict
    limits: RunLimits


def launch(plan: RunPlan, elf: Path, run_dir: Path, *, consumer: Callable[[str], None],
           data: Sequence[DataFile] = (), terminal: bool = True,
           started: RunningProcess | None = None) -> tuple[list[str], ProcessOutcome]:
    """Run `elf` as `plan` says in `run_dir` (semihosting cwd), output streamed to
    `consumer`; keep the transcript and command there. `terminal` False: output through a
    pipe (what C stdio block-buffers; the way runs were read before issue 16). `started`:
    this very launch, already running (a warm run's early start,
    orchestrator.runner.early_start), which is watched to its end instead."""
    running = started or start(launch_of(plan, elf, run_dir, data), run_dir / TRANSCRIPT,
                               terminal=terminal)
    running.attach(consumer)
    limits = plan.limits
    return running.command, running.finish(limits.host_deadline_s, limits.idle_s)


def simulate(plan: RunPlan, elf: Path, run_dir: Path, *, data: Sequence[DataFile] = (),
             expected_build_id: str | None = None,
             started: RunningProcess | None = None) -> SimulationResult:
    """Run our protocol firmware `elf` as `plan` says: parse its records and judge the
    outcome (`started`: the launch already running, as for `launch`)."""
    parser = StreamParser()
    with step(f"simulate on {plan.simulator.name}",
              started=None if started is None else started.started):
        command, outcome = launch(plan, elf, run_dir, consumer=parser.feed, data=data,
                                  started=started)
    stream = parser.finish()
    return SimulationResult(plan.simulator, command, outcome, stream,
                            verdict_of(outcome, stream, expected_build_id, plan.limits),
                            plan.limits)
