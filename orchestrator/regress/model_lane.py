"""Model cells: the run stage's ExecuTorch runner (orchestrator.runner) driven per cell, with
the model the batch compile already produced and a runner ELF built once per config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.regress.cells import Cell
from orchestrator.regress.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.results import RunResult
from orchestrator.targets import load_catalogue

RUNNER_KEYS = ("memory_mode", "quantize", "kernel_set", "method_pool", "temp_pool",
               "fast_scratch", "atol", "rtol", "min_snr", "top1", "fast", "pmu_trace", "sources")
DEFAULT_IDLE_S = 30.0


def unavailable(tree: Scratch, cell: Cell) -> str | None:
    """Why the runner cannot be built here (its upstream source trees are not set up)."""
    from orchestrator.runner.sources import sources_available

    target = load_catalogue().target(cell.target)
    return sources_available(tree, _request(cell).sources, npu=target.has_npu)


def idle_seconds(cell: Cell) -> float:
    """The no-output watchdog: the option set's idle_timeout_s, else min(30 s, timeout)."""
    return float(cell.option_dict.get("idle_timeout_s", min(DEFAULT_IDLE_S, cell.timeout_s)))


def _request(cell: Cell) -> Any:
    """The runner part of the cell's option set (pools, kernels, thresholds, fast mode)."""
    from orchestrator.runner.config import runner_data
    from orchestrator.runner.request import RunnerRequest

    options = cell.option_dict
    # Baselines hold section sizes: the ELF must not depend on which models ran before.
    chosen = {"kernel_set": runner_data().regress_kernel_set}
    chosen.update({key: options[key] for key in RUNNER_KEYS if key in options})
    return RunnerRequest.from_extra(chosen)


def _runner_options(cell: Cell) -> Any:
    """The RunnerOptions that select the cell's runner ELF."""
    from orchestrator.runner.config import memory_mode_of, pools_for
    from orchestrator.runner.firmware import RunnerOptions

    target = load_catalogue().target(cell.target)
    extra = _request(cell)
    mode = memory_mode_of(target, extra.memory_mode)
    return RunnerOptions(mode, pools_for(mode, extra.method_pool, extra.temp_pool,
                                         extra.fast_scratch),
                         extra.kernel_set, str(cell.option_dict.get("build_type", "release")),
                         extra.jobs)


def firmware_config(cell: Cell) -> FirmwareConfig:
    """One runner config per (target, memory mode, pools, kernel set, build type)."""
    options = _runner_options(cell)
    key = "-".join(("runner", cell.target, options.memory_mode, options.kernel_set,
                    options.build_type, options.pools.describe()))
    return FirmwareConfig(key, cell.target, "runner",
                          (("options", options), ("sources", _request(cell).sources)))


def build(tree: Scratch, config: FirmwareConfig) -> FirmwareOutcome:
    """Build the runtime and the runner ELF (both incremental); `cached` if nothing changed."""
    from orchestrator.runner.firmware import build_runner

    detail = dict(config.detail)
    target = load_catalogue().target(config.target)
    try:
        built = build_runner(tree, target, detail["options"], detail["sources"])
    except OrchestratorError as error:
        return FirmwareOutcome(config, False, error.message)
    firmware = built.firmware
    cached = not (built.runtime.configured or firmware.configured or firmware.rebuilt)
    return FirmwareOutcome(config, True, product=built, cached=cached,
                           log=str(firmware.build_dir / "build.log"),
                           seconds=round(sum(built.seconds.values()), 3))


def run_cell(tree: Scratch, cell: Cell, built: Any, product: Any, out_dir: Path) -> RunResult:
    """Load the compiled model into the runner on the cell's simulator; compare outputs.

    The runner stage's own simulate step, after the compile and build the engine did once
    for all cells, with the cell's directory as the run dir."""
    from orchestrator.results.model import new_run_id
    from orchestrator.run import RunRequest
    from orchestrator.runner.handler import simulate_product
    from orchestrator.sim.select import refuse_unless_capable, simulator_binary

    catalogue = load_catalogue()
    target, simulator = catalogue.target(cell.target), catalogue.simulators[cell.sim]
    refuse_unless_capable(simulator, target, needs_npu=target.has_npu, needs_data=True)
    options = _runner_options(cell)
    request = RunRequest(target=cell.target, app="runner", sim=cell.sim,
                         timeout_s=cell.timeout_s, idle_timeout_s=idle_seconds(cell),
                         build_type=options.build_type, model=cell.model)
    return simulate_product(out_dir, new_run_id(), target, simulator,
                            simulator_binary(tree, simulator), product, built, request,
                            _request(cell), options)
