"""Model cells: the run stage's ExecuTorch runner (orchestrator.runner) driven per cell, with
the model the batch compile already produced and a runner ELF built once per config. The
cell's target is placed on its simulator first (an NPU target on QEMU runs on the functional
NPU model, its runner built for the model's platform)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.command_line import invoke_line
from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.regress.cell_options import cell_placement, run_request
from orchestrator.regress.cells import Cell
from orchestrator.regress.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.results import RunResult
from orchestrator.runner.firmware import RunnerOptions, drives_npu_device
from orchestrator.runner.model_run import ModelRun, rerun_of, runner_options_for


def unavailable(tree: Scratch, cell: Cell) -> str | None:
    """Why the runner cannot be built here (its upstream source trees are not set up)."""
    from orchestrator.runner.sources import sources_available

    target = cell_placement(cell).target
    return sources_available(tree, run_request(cell, "runner").runner.sources,
                             npu=drives_npu_device(target))


def _runner_options(cell: Cell) -> RunnerOptions:
    """The RunnerOptions that select the cell's runner ELF (as `invoke run` selects them)."""
    return runner_options_for(cell_placement(cell).target, run_request(cell, "runner"))


def firmware_config(cell: Cell) -> FirmwareConfig:
    """One runner config per (target, platform, memory mode, pools, kernel set, build type)."""
    options = _runner_options(cell)
    target = cell_placement(cell).target
    key = "-".join(("runner", cell.target, target.platform.name, options.memory_mode,
                    options.kernel_set, options.build_type, options.pools.describe()))
    return FirmwareConfig(key, cell.target, "runner",
                          (("options", options), ("target", target),
                           ("sources", run_request(cell, "runner").runner.sources)))


def build(tree: Scratch, config: FirmwareConfig) -> FirmwareOutcome:
    """Build the runtime and the runner ELF (both incremental); `cached` if nothing changed."""
    from orchestrator.runner.firmware import build_runner

    detail = dict(config.detail)
    try:
        built = build_runner(tree, detail["target"], detail["options"], detail["sources"])
    except OrchestratorError as error:
        return FirmwareOutcome(config, False, error.message)
    firmware = built.firmware
    cached = not (built.runtime.configured or firmware.configured or firmware.rebuilt)
    return FirmwareOutcome(config, True, product=built, cached=cached,
                           log=str(firmware.build_dir / "build.log"),
                           seconds=round(sum(built.seconds.values()), 3))


def run_cell(tree: Scratch, cell: Cell, built: Any, product: Any, out_dir: Path) -> RunResult:
    """Load the compiled model into the runner on the cell's simulator; compare outputs.

    The model run of `invoke run` (orchestrator.evaluate.run_inputs.run_prepared), made of
    the compile and build the engine did once for all cells, with the cell's directory as
    the run dir."""
    from orchestrator.evaluate.run_inputs import run_prepared
    from orchestrator.results.model import new_run_id
    from orchestrator.sim.plan import plan_request

    request = run_request(cell, "runner")
    plan = plan_request(tree, request, needs_data=True,
                        rerun=invoke_line("regress", filter=cell.key))
    return run_prepared(ModelRun(request, plan, _runner_options(cell), product, built, out_dir,
                                 new_run_id(), rerun_of(request)))
