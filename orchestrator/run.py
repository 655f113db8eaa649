"""`invoke run`: one entry point, dispatched on the app. Each app handler builds, simulates
and returns a RunResult; this module writes it under scratch/runs/<id>/ and prints it.

Apps register here by name -> "module:function" (imported only when used); the ExecuTorch
runner (issue #6) adds "runner" with its own handler reading RunRequest.model; `--elf`
selects "elf", an upstream-built runner ELF read with the upstream log parser (issue #7).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.cli import print_json, resolve
from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch, scratch
from orchestrator.results import RunResult, Status
from orchestrator.results.report import print_result
from orchestrator.sim.session import RESULT
from orchestrator.targets.catalogue import unknown_name_error

APPS: dict[str, str] = {
    "selftest": "orchestrator.selftest:run_selftest",
    "npuselftest": "orchestrator.npu_selftest.handler:run_npu_selftest",
    "runner": "orchestrator.runner.handler:run_runner",
    "elf": "orchestrator.upstream_elf:run_upstream_elf",
}
RESULT_NAME = RESULT


@dataclass(frozen=True)
class RunRequest:
    """Everything `invoke run` was asked for; app handlers read what they need."""

    target: str
    app: str = "selftest"
    sim: str | None = None
    timeout_s: float = 60.0
    idle_timeout_s: float = 20.0
    build_type: str = "release"
    options: tuple[str, ...] = ()
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def run_dir_for(work: Scratch, run_id: str) -> Path:
    """scratch/runs/<run id>/."""
    return work.runs / run_id


def execute(request: RunRequest, work: Scratch | None = None) -> RunResult:
    """Run the request's app handler; write result.json next to the transcript."""
    if request.app not in APPS:
        raise unknown_name_error("app", request.app, sorted(APPS), "invoke run --help")
    work = (work or scratch()).ensure()
    result: RunResult = resolve(APPS[request.app])(request, work)
    run_dir = run_dir_for(work, result.run_id)
    run_dir.mkdir(parents=True, exist_ok=True)
    result.artifacts.setdefault("result", str(run_dir / RESULT_NAME))
    (run_dir / RESULT_NAME).write_text(result.to_json() + "\n")
    return result


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
        verdict = "PASS" if result.comparison.passed else "FAIL"
        rows.append(("compare", f"{verdict} vs {result.comparison.reference} reference: max abs "
                                f"{result.comparison.max_absolute_error:.3g}, mean abs "
                                f"{result.comparison.mean_absolute_error:.3g}"))
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


def app_for(app: str | None, model: str | None, elf: str | None) -> str:
    """The app to run: --elf means an upstream ELF, --model the runner, else the selftest."""
    if elf and app not in (None, "elf"):
        raise OrchestratorError(f"--elf runs an upstream ELF, so --app {app} does not apply",
                                "invoke run --target <target> --elf <ELF>")
    if elf:
        return "elf"
    return app or ("runner" if model else "selftest")  # --app npuselftest takes --model too


def run_command(target: str, app: str | None = None, sim: str | None = None,
                timeout: float = 60.0, idle_timeout: float = 20.0, build_type: str = "release",
                options: list[str] | None = None, model: str | None = None,
                json: bool = False, **extra: Any) -> int:
    """CLI entry: run, print the table (or JSON); exit 0 only when the run passed."""
    if timeout <= 0 or idle_timeout <= 0:
        raise OrchestratorError("--timeout and --idle-timeout must be positive seconds",
                                "invoke run --help")
    app = app_for(app, model, extra.get("elf"))
    request = RunRequest(target=target, app=app, sim=sim, timeout_s=float(timeout),
                         idle_timeout_s=float(idle_timeout), build_type=build_type,
                         options=tuple(options or ()), model=model,
                         extra={k: v for k, v in extra.items() if v is not None})
    result = execute(request)
    if json:
        print_json(result.to_dict())
    elif app == "elf":
        print_result(result)
    else:
        print(format_result(result))
    return 0 if result.status is Status.PASS else 1
