"""`invoke run --target ethos-u55-128 --app npuselftest --sim qemu [--model convnet]`: compile
the model (cached), make its case (Vela stream + host TOSA reference outputs), build the app
with the case and the NPU model, run it on QEMU; the verdict is the device's checks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.apps.npu_selftest.case import NpuCase, make_case, write_header
from orchestrator.firmware.build import BuildResult, build_firmware, config_for_target
from orchestrator.firmware.build.npu_model import model_definitions
from orchestrator.firmware.run import run_firmware
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.run_ids import new_run_id
from orchestrator.results import RunResult
from orchestrator.results.model import utc_now
from orchestrator.runner.config import pools_for, runner_data
from orchestrator.sim.kinds import SimOptions
from orchestrator.sim.plan import RunPlan, plan_run, sim_options
from orchestrator.targets import Target
from orchestrator.targets.model import EXECUTOR_MODEL

if TYPE_CHECKING:
    from orchestrator.options.run import RunRequest

APP = "npuselftest"
DEFAULT_MODEL = "convnet"
CASE_OPTION = "EOR_NPU_SELFTEST_CASE_DIR"


def model_plan(work: Scratch, name: str, options: SimOptions | None = None) -> RunPlan:
    """The plan running `name` on the NPU model (QEMU's), or why it cannot."""
    plan = plan_run(work, name, "qemu", options,
                    rerun=invoke_line("run", target=name, app=APP))
    if plan.npu_executor != EXECUTOR_MODEL:
        raise OrchestratorError(f"the NPU self-test runs NPU targets on the NPU "
                                f"model, and {name} has none",
                                "invoke run --target ethos-u55-128 --app npuselftest --sim qemu")
    return plan


def compile_case(work: Scratch, model: str, compiled_for: str) -> NpuCase:
    """The case of `model` compiled (cached) for `compiled_for`."""
    from orchestrator.aot.api import compile_model

    product = compile_model(model, compiled_for, scratch_root=work.root)
    mode = product.manifest.get("options", {}).get("memory_mode")
    fast = pools_for(mode).fast_scratch_size if mode in runner_data().pools else 0
    return make_case(product, model, compiled_for, fast)


def build_case(work: Scratch, target: Target, case: NpuCase, build_type: str) -> BuildResult:
    """The app built for `target` (placed on the model's platform) around `case`."""
    case_dir = work.build / "npu-selftest-cases" / f"{case.name}-{case.compiled_for}"
    write_header(case, case_dir)
    extra = ((CASE_OPTION, str(case_dir)), *model_definitions(target).items())
    return build_firmware(work, config_for_target(target, app=APP, build_type=build_type,
                                                  extra=tuple(extra)))


def run_case(work: Scratch, plan: RunPlan, case: NpuCase, build: BuildResult,
             started: str | None = None, run_id: str | None = None,
             run_dir: Path | None = None) -> RunResult:
    """Run the built app as planned (in scratch/runs/<id>/ unless `run_dir` is given); the
    RunResult names the NPU model as the NPU (run_firmware's npu_model_facts)."""
    run_id = run_id or new_run_id()
    run = run_firmware(plan, build, run_dir or work.runs / run_id, run_id, started_at=started,
                       versions=case.versions)
    result = run.result
    result.model = case.name
    result.target.options["compiled_for"] = case.compiled_for
    return result


def run_npu_selftest(request: RunRequest, work: Scratch) -> RunResult:
    """The app's whole flow for one target (default model: convnet)."""
    plan = model_plan(work, request.target, sim_options(request))
    started = utc_now()
    case = compile_case(work, request.model or DEFAULT_MODEL, request.target)
    build = build_case(work, plan.target, case, request.build_type)
    return run_case(work, plan, case, build, started, run_id=request.run_id)
