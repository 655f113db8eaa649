"""One model run: prepared once from a request (plan, compile, the runner's options and its
ELF build, where it writes, the rerun command), then simulated with the compile stage's
inputs: check the model fits, load it and its inputs, run, parse, compare with the host."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.vela.report import vela_estimate
from orchestrator.firmware.run import run_firmware
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.results import RunResult, Versions
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import NONCE_OFFSET, InputTensor, pack_inputs, pack_model
from orchestrator.runner.board_fit import check_board_fits
from orchestrator.runner.config import memory_mode_of, pools_for
from orchestrator.runner.early_start import EarlyStart, claim, drop, remember
from orchestrator.runner.failure_causes import check_nonce, explain_exit
from orchestrator.runner.firmware import (
    RunnerBuild,
    RunnerOptions,
    build_runner,
    drives_npu_device,
    runner_npu_axi,
)
from orchestrator.runner.metrics import pools
from orchestrator.runner.output_check import check_outputs
from orchestrator.runner.overlap import OVERLAP_STAGE, compile_beside_runtime
from orchestrator.runner.precheck import check_fits, needs_for, program_facts_of
from orchestrator.runner.write_checks import attach_write_checks
from orchestrator.sim.data import DataFile
from orchestrator.sim.launch import Launch, launch_of
from orchestrator.sim.plan import RunPlan, plan_request
from orchestrator.sim.process import RunningProcess
from orchestrator.targets import Target
from orchestrator.targets.cortex_m import cortex_m_record, parse_isa, with_isa

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.options.compile import CompileChoices
    from orchestrator.options.run import RunChoices, RunRequest

MODEL_FILE = "model_area.bin"
INPUT_FILE = "input_area.bin"


@dataclass(frozen=True)
class ModelRun:
    """One model run, prepared once from a request: the run plan (where, how long), the
    runner's options and the ELF built with them, the compiled model, where the run writes
    and the command that repeats it. `invoke run` simulates it once with the compile stage's
    inputs; `--inputs`, `invoke evaluate` and regress cells with a data set run it over many
    input sets in one sample session (orchestrator.runner.sample_session)."""

    request: RunChoices
    plan: RunPlan
    options: RunnerOptions
    product: Product
    build: RunnerBuild
    run_dir: Path
    run_id: str
    rerun: str
    started: str | None = None


def rerun_of(request: RunChoices, inputs: str | None = None) -> str:
    """The command that repeats a model run (over `inputs`: the input sets of --inputs)."""
    return invoke_line("run", target=request.target, model=request.model, inputs=inputs)


def prepare_model_run(request: RunRequest, work: Scratch) -> ModelRun:
    """Plan, compile (cached) and build the runner (cached) for one model on one target:
    nothing has been simulated yet."""
    if not request.model:
        raise OrchestratorError("the runner app needs a model",
                                invoke_line("run", target=request.target, model="mv2"))
    plan = with_isa_plan(plan_request(work, request, needs_data=True), request.compile.isa)
    started = utc_now()
    options = runner_options_for(plan.target, request)
    model, choices = request.model, model_choices(request.compile)
    compiled = is_compiled(model, plan.target, choices, work)
    if not compiled:   # a new product: a simulator started early runs another model
        drop(request.run_id)
    product, beside = compile_beside_runtime(
        lambda: compile_for(model, plan.target, choices, work), compiled, work, plan.target,
        options, request.runner.sources)
    return build_model_run(work, request, plan, options, product, rerun_of(request), started,
                           beside)


def build_model_run(work: Scratch, request: RunChoices, plan: RunPlan, options: RunnerOptions,
                    product: Product, rerun: str, started: str | None = None,
                    beside: float | None = None) -> ModelRun:
    """The runner built (cached) for `product`'s operators: the prepared model run, writing
    to scratch/runs/<the request's run id>/ (`beside`: seconds a runtime build overlapped
    the compile)."""
    options = replace(options, model_ops=model_operators(product))
    check_board_fits(plan.target, product.manifest, product.pte.stat().st_size,
                     sum(tensor.nbytes for tensor in product.inputs))
    build = build_runner(work, plan.target, options, request.runner.sources)
    if beside is not None:
        build.seconds[OVERLAP_STAGE] = beside
    return ModelRun(request, plan, options, product, build, work.runs / request.run_id,
                    request.run_id, rerun, started)


def with_isa_plan(plan: RunPlan, isa: str | None) -> RunPlan:
    """The plan with its target's firmware built for the compile's ISA override."""
    placed = with_isa(plan.target, parse_isa(isa))
    return plan if placed is plan.target else replace(
        plan, placement=replace(plan.placement, target=placed))


def runner_options_for(target: Target, request: RunChoices) -> RunnerOptions:
    """The runner ELF the request selects: memory mode, pools, kernel set, build type."""
    settings = request.runner
    mode = memory_mode_of(target, request.compile.memory_mode)
    return RunnerOptions(mode, pools_for(mode, settings.method_pool, settings.temp_pool,
                                         settings.fast_scratch, target.platform),
                         settings.kernel_set, request.build_type, settings.jobs,
                         profile=settings.profile or settings.intermediates,
                         intermediates=settings.intermediates)


def simulate_model(run: ModelRun) -> RunResult:
    """Load the compiled model and the compile stage's inputs into the built runner, run as
    planned, compare: one RunResult. A warm `invoke run` finds its simulator already started
    with exactly this launch (orchestrator.runner.early_start) and watches that one."""
    early = claim(run.run_id)
    nonce = early.nonce if early is not None else secrets.randbits(32)
    areas = area_files(run, pack_inputs(input_tensors(run.product), nonce))
    launch = launch_of(run.plan, run.build.firmware.elf, run.run_dir, list(areas))
    started = adopted(early, launch, areas, run)
    versions = run.product.versions.filled_from(Versions(runtime_commit=run.build.runtime_commit))
    fired = run_firmware(run.plan, run.build.firmware, run.run_dir, run.run_id,
                         started_at=run.started, data=list(areas), versions=versions,
                         started=started)
    if fired.simulation.stream.end is not None:   # completed: the next run may start early
        remember(run.run_id, launch, by_name(areas), (INPUT_FILE, NONCE_OFFSET),
                 run.plan.limits.host_deadline_s, run.build.firmware.elf)
    result = fired.result
    if early is not None:   # which simulator this run watched: the one started early, or its own
        result.target.options["early_start"] = "adopted" if started else "stopped: another launch"
    axi = npu_axi_record(run.plan.target, run.options.memory_mode, run.plan.options.fvp.fast)
    if axi is not None:
        result.target.options["npu_axi"] = axi
    result = check_nonce(result, fired.simulation.stream, nonce)
    return finish(result, fired.simulation.stream, run)


def adopted(early: EarlyStart | None, launch: Launch, areas: Mapping[DataFile, bytes],
            run: ModelRun) -> RunningProcess | None:
    """The simulator started early when it is exactly `launch` with these area files;
    otherwise (it is stopped then) None, with the area files written for the run's own."""
    started = None if early is None else early.adopt(
        launch, by_name(areas), run.build.firmware.elf, run.plan.limits.host_deadline_s)
    if started is None:
        write_areas(areas)
    return started


def by_name(areas: Mapping[DataFile, bytes]) -> dict[str, bytes]:
    """The area files' bytes by file name (what a launch record keeps)."""
    return {file.path.name: content for file, content in areas.items()}


def npu_axi_record(target: Target, memory_mode: str, fast: bool) -> dict[str, Any] | None:
    """Which timing-adapter and region settings the runner was built with (None when it
    drives no NPU device: a CPU target or the NPU model); under --fast the FVP
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


def area_files(run: ModelRun, inputs: bytes, input_bytes: int | None = None
               ) -> dict[DataFile, bytes]:
    """The model and input area files of the run's directory (where each loads) and their
    bytes; a model or inputs that do not fit are refused (`input_bytes`: what the input area
    must hold, default the input file's size)."""
    pte = run.product.pte.read_bytes()
    model_addr, model_size = run.build.firmware.area("model_area")
    input_addr, input_size = run.build.firmware.area("input_area")
    check_fits(needs_for(program_facts_of(run.product.manifest), len(pte),
                         input_bytes or len(inputs), run.options.pools, model_size, input_size),
               run.rerun)
    return {DataFile(run.run_dir / MODEL_FILE, model_addr): pack_model(pte),
            DataFile(run.run_dir / INPUT_FILE, input_addr): inputs}


def write_areas(areas: Mapping[DataFile, bytes]) -> None:
    """Write the area files (area_files) into the run's directory."""
    for file, content in areas.items():
        file.path.parent.mkdir(parents=True, exist_ok=True)
        file.path.write_bytes(content)


def place_areas(run: ModelRun, inputs: bytes, input_bytes: int | None = None
                ) -> list[DataFile]:
    """area_files written into the run's directory: what to load."""
    areas = area_files(run, inputs, input_bytes)
    write_areas(areas)
    return list(areas)


def finish(result: RunResult, stream: Any, run: ModelRun) -> RunResult:
    """Pools, exit meaning, exactness and accuracy, build facts (the NPU record is
    run_firmware's: orchestrator.firmware.npu_model_facts)."""
    product, target, build, run_dir = run.product, run.plan.target, run.build, run.run_dir
    settings, model = run.request.runner, run.request.model or ""
    result.model = run.request.model
    result.memory = pools(stream, result.memory)
    result.vela = result.vela or vela_estimate(product.manifest.get("vela"))
    result.timings_s.update({f"{name}_build": s for name, s in build.seconds.items()})
    result.target.options.update({"runtime": str(build.runtime.build_dir),
                                  "kernel_set": settings.kernel_set,
                                  "kernels": build.runtime.kernels_json(),
                                  "product": str(product.directory)})
    if target.cpu_spec is not None:   # CPU, ISA, CMSIS-NN backend and the core that ran it
        result.target.options["cortex_m"] = cortex_m_record(
            target, (product.manifest.get("options") or {}).get("isa"),  # none: a .pte given
            run.plan.simulator, ran=True)
    if product.manifest["model"].get("kind") == "upstream":   # where it came from, its seed
        result.target.options["model_source"] = dict(product.manifest["model"])
    result.artifacts.update({"model_area": str(run_dir / MODEL_FILE),
                             "input_area": str(run_dir / INPUT_FILE)})
    result = explain_exit(result, stream, model)
    known = product.manifest.get("known_issues") or []
    if known:
        result.classification.details["known_issues"] = list(known)
    if settings.profile or settings.intermediates:   # the profile modules: only then
        from orchestrator.runner.profiling import profile_run

        result = profile_run(result, stream, product, run_dir)
    result = attach_write_checks(result, product, model, target.name)
    return check_outputs(result, stream, product, settings.thresholds, run_dir, run.rerun)
