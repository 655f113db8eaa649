"""`invoke isa-check`: scalar = DSP = MVE on the device. The same model, compiled for the same
quantization, runs on each named CPU's QEMU board (invoke run's path: its own compile, runtime
build and exact-reference check), and the runs' outputs are compared bit for bit
(orchestrator.runner.isa_agreement). Exit 0 when every run passed and all agree; 1 otherwise,
with the first differing output (or, with --intermediates, operator) and each run's CMSIS-NN
path named."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from orchestrator.api.run_job import execute
from orchestrator.foundation.cli import print_json
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options.isa_check import IsaCheck
from orchestrator.options.run import RunRequest
from orchestrator.results import RunResult, Status
from orchestrator.runner.isa_agreement import Agreement, agreement, run_label
from orchestrator.targets import load_catalogue
from orchestrator.targets.cortex_m import check_isa

EXAMPLE = "invoke isa-check --model convnet --on cortex-m3 --on cortex-m4 --on cortex-m55"


def run_specs(check: IsaCheck) -> list[tuple[str, str | None]]:
    """(CPU, ISA or None) of each --on, checked before anything is built: a CPU target,
    an ISA it can execute, at least two runs."""
    if len(check.on) < 2:
        raise OrchestratorError(f"isa-check compares runs, and {len(check.on)} --on "
                                "was given (it needs at least two)", EXAMPLE)
    catalogue, found = load_catalogue(), []
    for spec in check.on:
        cpu, _, isa = spec.partition(":")
        target = catalogue.target(cpu)
        if target.cpu_spec is None:
            raise OrchestratorError(f"--on {spec}: {cpu} has an NPU; isa-check runs "
                                    "CMSIS-NN on Cortex-M CPUs only", EXAMPLE)
        check_isa(target, isa or check.compile.isa)
        found.append((cpu, isa or check.compile.isa))
    return found


def request_for(check: IsaCheck, cpu: str, isa: str | None) -> RunRequest:
    """The `invoke run` request of one --on (its own board's QEMU, the app runner)."""
    return RunRequest(target=cpu, model=check.model, app="runner", sim="qemu",
                      timeout_s=check.timeout_s, runner=check.runner,
                      compile=replace(check.compile, isa=isa))


def isa_check(check: IsaCheck, work: Scratch | None = None
              ) -> tuple[list[RunResult], Agreement | None]:
    """Run every --on; the agreement of their outputs (None when a run did not pass)."""
    results = [execute(request_for(check, cpu, isa), work) for cpu, isa in run_specs(check)]
    if any(result.status is not Status.PASS for result in results):
        return results, None
    return results, agreement(results)


def _line(result: RunResult) -> str:
    record = result.target.options.get("cortex_m") or {}
    where = f", {record['ran_on']}" if record.get("ran_on") else ""
    return (f"  {run_label(result):<22} {result.status.value:<5} run {result.run_id}{where}: "
            f"{result.reason}")


def isa_check_command(check: IsaCheck, json: bool = False) -> int:
    """CLI entry: one line per run, then the verdict; exit 0 only when all agree."""
    results, found = isa_check(check)
    document: dict[str, Any] = {
        "runs": [{"label": run_label(r), "status": r.status.value, "run_id": r.run_id,
                  "reason": r.reason} for r in results],
        "agreement": found.to_json() if found else None}
    if json:
        print_json(document)
    else:
        print("\n".join(_line(result) for result in results))
        print(found.sentence() if found else
              "not compared: a run did not pass (its line above says why)")
    return 0 if found is not None and found.agreed else 1
