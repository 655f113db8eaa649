"""`invoke run`: one entry point, dispatched on the app. Each app handler builds, simulates
and returns a RunResult; this module writes it under scratch/runs/<id>/ and prints it.

Apps register here by name -> "module:function" (imported only when used); the ExecuTorch
runner (issue #6) adds "runner" with its own handler reading RunRequest.model; `--elf`
selects "elf", an upstream-built runner ELF read with the upstream log parser (issue #7).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from orchestrator.cli import print_json, resolve
from orchestrator.options import RunnerSettings, RunRequest
from orchestrator.parse.classify import make_classification
from orchestrator.paths import Scratch, scratch
from orchestrator.results import Accuracy, Comparison, Kind, RunResult, Status, TargetInfo
from orchestrator.results.summary_table import print_result
from orchestrator.sim.session import RESULT, TRANSCRIPT
from orchestrator.targets.catalogue import unknown_name_error
from orchestrator.write_faults import writing

APPS: dict[str, str] = {
    "selftest": "orchestrator.selftest:run_selftest",
    "npuselftest": "orchestrator.npu_selftest.handler:run_npu_selftest",
    "runner": "orchestrator.runner.handler:run_runner",
    "elf": "orchestrator.upstream_elf:run_upstream_elf",
}
RESULT_NAME = RESULT
__all__ = ["APPS", "RunRequest", "RunnerSettings", "execute", "run_command"]


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt (the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_dir_for(work: Scratch, run_id: str) -> Path:
    """scratch/runs/<run id>/."""
    return work.runs / run_id


def execute(request: RunRequest, work: Scratch | None = None) -> RunResult:
    """Run the request's app handler; write result.json next to the transcript. An unnamed
    app is resolved as `invoke run` does (RunRequest.resolved)."""
    if request.app is None:
        request = request.resolved()
    if request.app not in APPS:
        raise unknown_name_error("app", str(request.app), sorted(APPS), "invoke run --help")
    work = (work or scratch()).ensure()
    try:
        result: RunResult = resolve(APPS[request.app])(request, work)
    except KeyboardInterrupt:
        write_result(work, interrupted_result(request, run_dir_for(work, request.run_id)))
        raise
    return write_result(work, result)


def write_result(work: Scratch, result: RunResult) -> RunResult:
    """result.json in the run's directory (named in the result's artifacts)."""
    run_dir = run_dir_for(work, result.run_id)
    result.artifacts.setdefault("result", str(run_dir / RESULT_NAME))
    with writing(run_dir / RESULT_NAME):
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / RESULT_NAME).write_text(result.to_json() + "\n")
    return result


def interrupted_result(request: RunRequest, run_dir: Path) -> RunResult:
    """What an interrupted run leaves: status interrupted, and the transcript so far."""
    summary = "the run was interrupted (SIGINT or SIGTERM) before it finished"
    transcript = run_dir / TRANSCRIPT
    return RunResult(
        status=Status.INTERRUPTED, reason=summary, run_id=request.run_id,
        classification=make_classification(Kind.INTERRUPTED, summary, []),
        model=request.model, target=TargetInfo(name=request.target, simulator=request.sim),
        artifacts={"transcript": str(transcript)} if transcript.is_file() else {})


def comparison_line(comparison: Comparison) -> str:
    """'PASS bit-exact vs exact reference' or the tolerance numbers of a fallback."""
    verdict = "PASS" if comparison.passed else "FAIL"
    if comparison.exact is not None:
        if comparison.passed:
            return f"{verdict}: bit-exact vs the exact reference"
        where = comparison.first_mismatch
        first = f"; first at output {where.output}{where.index}" if where else ""
        return f"{verdict}: {comparison.mismatches} element(s) differ from the exact " \
               f"reference{first}"
    fallback = f" (no exact reference: {comparison.exact_fallback})" \
        if comparison.exact_fallback else ""
    return (f"{verdict} vs {comparison.reference} reference{fallback}: max abs "
            f"{_number(comparison.max_absolute_error)}, mean abs "
            f"{_number(comparison.mean_absolute_error)}")


def accuracy_line(accuracy: Accuracy) -> str:
    """Output 0's distance from the float model (and the gate verdict when one was set)."""
    first = accuracy.outputs[0]
    parts = [f"SNR {_number(first.snr_db, '.1f')} dB"]
    if first.max_abs_steps is not None:
        parts.append(f"max {_number(first.max_abs_steps, '.1f')} / mean "
                     f"{_number(first.mean_abs_steps, '.2f')} quantization steps")
    else:
        parts.append(f"max abs {_number(first.max_abs_error)}")
    for name, agrees in (("top-1", first.top1), ("top-5", first.top5)):
        if agrees is not None:
            parts.append(f"{name} {'agrees' if agrees else 'differs'}")
    gate = {None: "", True: " (gate passed)", False: " (GATE FAILED)"}[accuracy.passed]
    return f"vs float model: {', '.join(parts)}{gate}"


def _number(value: Any, spec: str = ".3g") -> str:
    return "n/a" if value is None else format(float(value), spec)


def format_result(result: RunResult) -> str:
    """A short table: verdict, target, cycles, memory, outputs, where the files are."""
    rows = [("status", f"{result.status.value} ({result.classification.kind.value})"),
            ("reason", result.reason),
            ("target", f"{result.target.name} on {result.target.simulator}")]
    if result.status is not Status.PASS:
        rows.append(("next", result.classification.next_step))
    if result.cpu is not None and result.cpu.total is not None:
        rows.append(("cpu", f"{result.cpu.total} {result.cpu.source}"))
    if result.memory is not None:
        for name, pool in result.memory.pools.items():
            rows.append((name, f"{pool.used} / {pool.size} bytes"))
    if result.model:
        rows.insert(2, ("model", result.model))
    if result.npu is not None:
        rows.append(("npu", npu_row(result)))
    if result.vela is not None and result.vela.npu_cycles is not None:
        rows.append(("vela", f"{result.vela.npu_cycles} NPU cycles (Vela's compile-time "
                             "estimate, not measured)"))
    if result.outputs:
        rows.append(("outputs", f"{len(result.outputs)} tensors (exact)"))
    if result.comparison is not None:
        rows.append(("compare", comparison_line(result.comparison)))
    if result.accuracy is not None and result.accuracy.outputs:
        rows.append(("accuracy", accuracy_line(result.accuracy)))
    rows.append(("run", str(Path(result.artifacts.get("result", "")).parent)))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def npu_row(result: RunResult) -> str:
    """Who executed the NPU: the functional model (no timing) or the FVP's NPU with its PMU."""
    assert result.npu is not None
    if result.npu.executor == "functional-model":
        return (f"functional NPU model {result.npu.executor_version} ran "
                f"{result.npu.delegations} delegations (outputs only: no NPU timing, no PMU)")
    counters = ", ".join(f"{c.event or c.index}={c.value}" for c in result.npu.counters)
    return f"{result.npu.cycles} NPU cycles; {counters}"


def run_command(request: RunRequest, json: bool = False) -> int:
    """CLI entry: run, print the table (or JSON); exit 0 only when the run passed. SIGTERM
    stops the run like Ctrl-C (the simulator is stopped, result.json says interrupted)."""
    request = request.resolved()
    with terminate_as_interrupt():
        result = execute(request)
    if json:
        print_json(result.to_dict())
    elif request.app == "elf":
        print_result(result)
    else:
        print(format_result(result))
    return 0 if result.status is Status.PASS else 1
