"""`invoke run --app runner --model M`: compile, build the runner (cached), check the model
fits, load it and its inputs into the simulator, run, parse, compare with the host."""

from __future__ import annotations

import secrets
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.vela_report import vela_estimate
from orchestrator.errors import OrchestratorError
from orchestrator.firmware_run import run_firmware
from orchestrator.paths import Scratch
from orchestrator.results import RunResult, Versions
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import InputTensor, pack_inputs, pack_model
from orchestrator.runner.config import memory_mode_of, pools_for
from orchestrator.runner.failure_causes import (
    check_nonce,
    explain_exit,
    explain_npu_model_refusal,
)
from orchestrator.runner.firmware import (
    RunnerBuild,
    RunnerOptions,
    build_runner,
    drives_npu_device,
    runner_npu_axi,
)
from orchestrator.runner.metrics import label_emulated_npu_cycles, npu_pmu, pools
from orchestrator.runner.output_check import check_outputs
from orchestrator.runner.overlap import OVERLAP_STAGE, compile_beside_runtime
from orchestrator.runner.precheck import check_fits, needs_for, program_facts_of
from orchestrator.runner.profiling import profile_run
from orchestrator.runner.write_checks import attach_write_checks
from orchestrator.sim.data import DataFile
from orchestrator.sim.plan import RunPlan, plan_request
from orchestrator.targets import Target

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.options.compile import CompileChoices
    from orchestrator.options.run import RunnerSettings, RunRequest

MODEL_FILE = "model_area.bin"
INPUT_FILE = "input_area.bin"


def run_runner(request: RunRequest, work: Scratch) -> RunResult:
    """The whole runner flow for one model on one target."""
    if not request.model:
        raise OrchestratorError("the runner app needs a model",
                                f"invoke run --target {request.target} --model mv2")
    plan = plan_request(work, request, needs_data=True)
    started = utc_now()
    options = runner_options_for(plan.target, request)
    model, choices = request.model, model_choices(request.compile)
    product, beside = compile_beside_runtime(
        lambda: compile_for(model, plan.target, choices, work),
        is_compiled(model, plan.target, choices, work), work, plan.target, options,
        request.runner.sources)
    options = replace(options, model_ops=model_operators(product))
    build = build_runner(work, plan.target, options, request.runner.sources)
    if beside is not None:
        build.seconds[OVERLAP_STAGE] = beside
    return simulate_product(plan, work.runs / request.run_id, request.run_id, product, build,
                            request, options, started)


def runner_options_for(target: Target, request: RunRequest) -> RunnerOptions:
    """The runner ELF the request selects: memory mode, pools, kernel set, build type."""
    settings = request.runner
    mode = memory_mode_of(target, request.compile.memory_mode)
    return RunnerOptions(mode, pools_for(mode, settings.method_pool, settings.temp_pool,
                                         settings.fast_scratch),
                         settings.kernel_set, request.build_type, settings.jobs,
                         profile=settings.profile or settings.intermediates,
                         intermediates=settings.intermediates)


def simulate_product(plan: RunPlan, run_dir: Path, run_id: str, product: Product,
                     build: RunnerBuild, request: RunRequest, options: RunnerOptions,
                     started: str | None = None) -> RunResult:
    """Load a compiled model into a built runner, run as planned, compare: one RunResult.
    With --inputs, the user's input sets in one sample session instead."""
    if request.compile.inputs:
        from orchestrator.evaluate.run_inputs import run_with_inputs

        return run_with_inputs(plan, run_dir, run_id, product, build, request, options)
    nonce = secrets.randbits(32)
    data = write_areas(run_dir, product, build, request, options, nonce)
    versions = product.versions.filled_from(Versions(runtime_commit=build.runtime_commit))
    run = run_firmware(plan, build.firmware, run_dir, run_id, started_at=started, data=data,
                       versions=versions)
    result = run.result
    axi = npu_axi_record(plan.target, options.memory_mode, plan.options.fast)
    if axi is not None:
        result.target.options["npu_axi"] = axi
    result = check_nonce(result, run.simulation.stream, nonce)
    return finish(result, run.simulation.stream, product, plan.target, build, request,
                  request.runner, run_dir)


def npu_axi_record(target: Target, memory_mode: str, fast: bool) -> dict[str, Any] | None:
    """Which timing-adapter and region settings the runner was built with (None when it
    drives no NPU device: a CPU target or the functional NPU model); under --fast the FVP
    ignores the timing adapters (upstream run_fvp.sh filters its warning for this)."""
    if not drives_npu_device(target):
        return None
    return {**runner_npu_axi(target, memory_mode).record(), "timing_adapters_in_effect": not fast}


def model_choices(choices: CompileChoices) -> CompileChoices:
    """What the runner compiles: the model with its own example inputs. `--inputs` are the
    run's input sets (a sample session, each judged against its own exact reference), so
    they never make a product of their own."""
    return replace(choices, inputs=None)


def compile_for(model: str, target: Target, choices: CompileChoices, work: Scratch) -> Product:
    """The compiled model (cached by the compile stage)."""
    from orchestrator.aot.api import compile_model

    return compile_model(model, target.name, choices, scratch_root=work.root)


def is_compiled(model: str, target: Target, choices: CompileChoices, work: Scratch) -> bool:
    """Is the product already in the cache (so no compile runs)?"""
    from orchestrator.aot.api import cached_product, request_for

    return cached_product(request_for(model, target.name, choices), work) is not None


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
    inputs = pack_inputs(input_tensors(product), nonce)
    return place_areas(run_dir, product, build, options, inputs,
                       f"invoke run --target {request.target} --model {request.model}")


def place_areas(run_dir: Path, product: Product, build: RunnerBuild, options: RunnerOptions,
                inputs: bytes, rerun: str, input_bytes: int | None = None) -> list[DataFile]:
    """Refuse a model or inputs that do not fit (`input_bytes`: what the input area must
    hold, default the input file's size); write the model and input area files."""
    pte = product.pte.read_bytes()
    model_addr, model_size = build.firmware.area("model_area")
    input_addr, input_size = build.firmware.area("input_area")
    check_fits(needs_for(program_facts_of(product.manifest), len(pte),
                         input_bytes or len(inputs), options.pools, model_size, input_size),
               rerun)
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
    if product.manifest["model"].get("kind") == "upstream":   # where it came from, its seed
        result.target.options["model_source"] = dict(product.manifest["model"])
    result.artifacts.update({"model_area": str(run_dir / MODEL_FILE),
                             "input_area": str(run_dir / INPUT_FILE)})
    result = explain_exit(result, stream, request.model or "")
    result = explain_npu_model_refusal(result, stream)
    known = product.manifest.get("known_issues") or []
    if known:
        result.classification.details["known_issues"] = list(known)
    if settings.profile or settings.intermediates:
        result = profile_run(result, stream, product, run_dir)
    result = attach_write_checks(result, product, request.model or "", target.name)
    return check_outputs(result, stream, product, settings.thresholds, run_dir,
                         f"invoke run --target {request.target} --model {request.model}")
