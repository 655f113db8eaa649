"""`invoke run --app runner --model M`: compile, build the runner (cached), check the model
fits, load it and its inputs into the simulator, run, parse, compare with the host."""

from __future__ import annotations

import secrets
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.vela_report import vela_estimate
from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.results import RunResult
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import InputTensor, pack_inputs, pack_model
from orchestrator.runner.config import memory_mode_of, pools_for
from orchestrator.runner.failure_causes import (
    check_nonce,
    explain_exit,
    explain_fvp_stop,
    explain_npu_model_refusal,
)
from orchestrator.runner.firmware import (
    RunnerBuild,
    RunnerOptions,
    build_runner,
    drives_npu_device,
    runner_npu_axi,
)
from orchestrator.runner.judge import judge
from orchestrator.runner.metrics import label_emulated_npu_cycles, npu_pmu, pools
from orchestrator.runner.precheck import check_fits, needs_for, program_facts_of
from orchestrator.runner.profiling import profile_run
from orchestrator.runner.request import RunnerSettings
from orchestrator.sim import choose_simulator, simulate
from orchestrator.sim.data import DataFile
from orchestrator.sim.result import run_result
from orchestrator.sim.select import placed_on, target_binary
from orchestrator.targets import Simulator, Target, load_catalogue

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.options.run import RunRequest

MODEL_FILE = "model_area.bin"
PMU_TRACE = "ethosu_pmu_trace.txt"
INPUT_FILE = "input_area.bin"


def run_runner(request: RunRequest, work: Scratch) -> RunResult:
    """The whole runner flow for one model on one target."""
    if not request.model:
        raise OrchestratorError("the runner app needs a model",
                                f"invoke run --target {request.target} --model mv2")
    target = load_catalogue().target(request.target)
    settings = request.runner
    simulator = choose_simulator(target, None if request.sim in (None, "auto") else request.sim)
    target = placed_on(target, simulator)
    binary = target_binary(work, simulator, target,
                           f"invoke run --target {target.name} --model {request.model}")
    started = utc_now()
    options = runner_options_for(target, request)
    product = compile_for(request.model, target, options.memory_mode, settings, work)
    options = replace(options, model_ops=model_operators(product))
    build = build_runner(work, target, options, settings.sources)
    run_id = request.run_id
    return simulate_product(work.runs / run_id, run_id, target, simulator, binary, product,
                            build, request, settings, options, started)


def runner_options_for(target: Target, request: RunRequest) -> RunnerOptions:
    """The runner ELF the request selects: memory mode, pools, kernel set, build type."""
    settings = request.runner
    mode = memory_mode_of(target, settings.memory_mode)
    return RunnerOptions(mode, pools_for(mode, settings.method_pool, settings.temp_pool,
                                         settings.fast_scratch),
                         settings.kernel_set, request.build_type, settings.jobs,
                         profile=settings.profile or settings.intermediates,
                         intermediates=settings.intermediates)


def simulate_product(run_dir: Path, run_id: str, target: Target, simulator: Simulator,
                     binary: Path, product: Product, build: RunnerBuild, request: RunRequest,
                     settings: RunnerSettings, options: RunnerOptions,
                     started: str | None = None) -> RunResult:
    """Load a compiled model into a built runner, simulate, parse, compare: one RunResult."""
    started = started or utc_now()
    nonce = secrets.randbits(32)
    data = write_areas(run_dir, product, build, request, options, nonce)
    simulation = simulate(simulator, binary, build.firmware.elf, run_dir, data=data,
                          deadline_s=request.timeout_s, idle_s=request.idle_timeout_s,
                          expected_build_id=build.firmware.build_id, macs=target.macs,
                          fast=settings.fast,
                          pmu_trace=run_dir / PMU_TRACE if settings.pmu_trace else None)
    result = run_result(run_id, target, build.firmware, simulation, started_at=started)
    axi = npu_axi_record(target, options.memory_mode, settings.fast)
    if axi is not None:
        result.target.options["npu_axi"] = axi
    if simulator.kind == "fvp":
        result = explain_fvp_stop(result, simulation.outcome.transcript)
    result = check_nonce(result, simulation.stream, nonce)
    return finish(result, simulation.stream, product, target, build, request, settings, run_dir)


def npu_axi_record(target: Target, memory_mode: str, fast: bool) -> dict[str, Any] | None:
    """Which timing-adapter and region settings the runner was built with (None when it
    drives no NPU device: a CPU target or the functional NPU model); under --fast the FVP
    ignores the timing adapters (upstream run_fvp.sh filters its warning for this)."""
    if not drives_npu_device(target):
        return None
    return {**runner_npu_axi(target, memory_mode).record(), "timing_adapters_in_effect": not fast}


def compile_for(model: str, target: Target, mode: str, settings: RunnerSettings,
                work: Scratch) -> Product:
    """The compiled model (cached by the compile stage)."""
    from orchestrator.aot.api import compile_model

    return compile_model(model, target.name, scratch_root=work.root,
                         **compile_choices_for(target, mode, settings))


def compile_choices_for(target: Target, mode: str, settings: RunnerSettings) -> dict[str, Any]:
    """The compile options the runner passes on: quantization, a non-default memory mode."""
    options: dict[str, Any] = {}
    if settings.quantize:
        options["quantize"] = settings.quantize
    if target.has_npu and mode != target.memory_mode:
        options["memory_mode"] = mode
    return options


def model_operators(product: Product) -> tuple[str, ...]:
    """Every operator the compiled program calls (all methods), sorted."""
    methods = program_facts_of(product.manifest).get("methods") or {}
    return tuple(sorted({op for method in methods.values()
                         for op in method.get("operators", [])}))


def input_tensors(product: Product) -> list[InputTensor]:
    """The compile stage's inputs: raw bytes (in the program's dim order) with dtype/shape."""
    return [InputTensor(t.dtype, tuple(t.shape), t.path.read_bytes()) for t in product.inputs]


def write_areas(run_dir: Path, product: Product, build: RunnerBuild, request: RunRequest,
                options: RunnerOptions, nonce: int) -> list[DataFile]:
    """Refuse a model that does not fit; write the two area files; return what to load."""
    pte = product.pte.read_bytes()
    inputs = pack_inputs(input_tensors(product), nonce)
    model_addr, model_size = build.firmware.area("model_area")
    input_addr, input_size = build.firmware.area("input_area")
    rerun = f"invoke run --target {request.target} --model {request.model}"
    check_fits(needs_for(program_facts_of(product.manifest), len(pte), len(inputs),
                         options.pools, model_size, input_size), rerun)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / MODEL_FILE).write_bytes(pack_model(pte))
    (run_dir / INPUT_FILE).write_bytes(inputs)
    return [DataFile(run_dir / MODEL_FILE, model_addr), DataFile(run_dir / INPUT_FILE, input_addr)]


def finish(result: RunResult, stream: Any, product: Product, target: Target, build: RunnerBuild,
           request: RunRequest, settings: RunnerSettings, run_dir: Path) -> RunResult:
    """Pools, NPU counters, exit meaning, exactness and accuracy, build facts."""
    result.model = request.model
    result.memory = pools(stream, result.memory)
    result.npu = npu_pmu(stream, target)
    label_emulated_npu_cycles(result, target)
    result.vela = result.vela or vela_estimate(product.manifest.get("vela"))
    result.timings_s.update({f"{name}_build": s for name, s in build.seconds.items()})
    result.target.options.update({"runtime": str(build.runtime.build_dir),
                                  "kernel_set": settings.kernel_set,
                                  "kernels": build.runtime.kernels_json(),
                                  "product": str(product.directory)})
    result.artifacts.update({"model_area": str(run_dir / MODEL_FILE),
                             "input_area": str(run_dir / INPUT_FILE)})
    result = explain_exit(result, stream, request.model or "")
    result = explain_npu_model_refusal(result, stream)
    known = product.manifest.get("known_issues") or []
    if known:
        result.classification.details["known_issues"] = list(known)
    if settings.profile or settings.intermediates:
        result = profile_run(result, stream, product, run_dir)
    return judge(result, stream, product, settings.thresholds, run_dir,
                 f"invoke run --target {request.target} --model {request.model}")
