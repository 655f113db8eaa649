"""`invoke run --target ethos-u55-128 --app npuselftest --sim qemu [--model convnet]`: compile
the model (cached), make its case (Vela stream + host TOSA reference outputs), build the app
with the case and the functional NPU model, run it on QEMU; the verdict is the device's checks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.build import BuildResult, build_firmware, config_for_target
from orchestrator.build.npu_model import model_definitions, placed_model
from orchestrator.errors import OrchestratorError
from orchestrator.npu_selftest.case import NpuCase, make_case, write_header
from orchestrator.paths import Scratch
from orchestrator.results import RunResult
from orchestrator.results.model import new_run_id, utc_now
from orchestrator.runner.config import pools_for, runner_data
from orchestrator.runner.failure_causes import explain_npu_model_refusal
from orchestrator.runner.metrics import functional_model_npu, label_emulated_npu_cycles
from orchestrator.sim import choose_simulator, simulate
from orchestrator.sim.result import run_result
from orchestrator.sim.select import placed_on, simulator_binary
from orchestrator.targets import Simulator, Target, load_catalogue

if TYPE_CHECKING:
    from orchestrator.options.run import RunRequest

APP = "npuselftest"
DEFAULT_MODEL = "convnet"
CASE_OPTION = "EOR_NPU_SELFTEST_CASE_DIR"


def model_target(name: str) -> tuple[Target, Simulator]:
    """`name` placed on the simulator that runs the functional NPU model (QEMU)."""
    target = load_catalogue().target(name)
    simulator = choose_simulator(target, "qemu")
    placed = placed_on(target, simulator)
    if placed_model(placed) is None:
        raise OrchestratorError(f"the NPU self-test runs NPU targets on the functional NPU "
                                f"model, and {name} has none",
                                "invoke run --target ethos-u55-128 --app npuselftest --sim qemu")
    return placed, simulator


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


def run_case(work: Scratch, target: Target, simulator: Simulator, case: NpuCase,
             build: BuildResult, timeout_s: float | None, idle_s: float | None,
             started: str | None = None, run_id: str | None = None) -> RunResult:
    """Simulate the built app; the RunResult names the functional model as the NPU."""
    run_id = run_id or new_run_id()
    binary = simulator_binary(work, simulator)
    simulation = simulate(simulator, binary, build.elf, work.runs / run_id, deadline_s=timeout_s,
                          idle_s=idle_s, expected_build_id=build.build_id)
    result = run_result(run_id, target, build, simulation, started_at=started or utc_now())
    result.model = case.name
    result.npu = functional_model_npu(simulation.stream)
    label_emulated_npu_cycles(result, target)
    result.target.options["compiled_for"] = case.compiled_for
    return explain_npu_model_refusal(result, simulation.stream)


def run_npu_selftest(request: RunRequest, work: Scratch) -> RunResult:
    """The app's whole flow for one target (default model: convnet)."""
    target, simulator = model_target(request.target)
    started = utc_now()
    case = compile_case(work, request.model or DEFAULT_MODEL, request.target)
    build = build_case(work, target, case, request.build_type)
    return run_case(work, target, simulator, case, build, request.timeout_s, request.idle_timeout_s,
                    started, run_id=request.run_id)
