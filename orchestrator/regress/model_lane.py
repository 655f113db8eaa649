"""Model cells: the run stage's ExecuTorch runner (orchestrator.runner) driven per cell, with
the model the batch compile already produced and a runner ELF built once per config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.regress.cell_options import run_request
from orchestrator.regress.cells import Cell
from orchestrator.regress.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.results import RunResult
from orchestrator.runner.firmware import RunnerOptions
from orchestrator.runner.handler import runner_options_for
from orchestrator.targets import load_catalogue


def unavailable(tree: Scratch, cell: Cell) -> str | None:
    """Why the runner cannot be built here (its upstream source trees are not set up)."""
    from orchestrator.runner.sources import sources_available

    target = load_catalogue().target(cell.target)
    return sources_available(tree, run_request(cell, "runner").runner.sources,
                             npu=target.has_npu)

def idle_seconds(cell: Cell) -> float:
    """The no-output watchdog: the option set's idle_timeout_s, else min(30 s, timeout)."""
    return run_request(cell, "runner").idle_s

def _runner_options(cell: Cell) -> RunnerOptions:
    """The RunnerOptions that select the cell's runner ELF (as `invoke run` selects them)."""
    return runner_options_for(load_catalogue().target(cell.target), run_request(cell, "runner"))


def firmware_config(cell: Cell) -> FirmwareConfig:
    """One runner config per (target, memory mode, pools, kernel set, build type)."""
    options = _runner_options(cell)
    key = "-".join(("runner", cell.target, options.memory_mode, options.kernel_set,
                    options.build_type, options.pools.describe()))
    return FirmwareConfig(key, cell.target, "runner",
                          (("options", options),
                           ("sources", run_request(cell, "runner").runner.sources)))

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
    from orchestrator.runner.handler import simulate_product
    from orchestrator.sim.select import refuse_unless_capable, simulator_binary

    catalogue = load_catalogue()
    target, simulator = catalogue.target(cell.target), catalogue.simulators[cell.simulator]
    refuse_unless_capable(simulator, target, needs_npu=target.has_npu, needs_data=True)
    request = run_request(cell, "runner")
    return simulate_product(out_dir, new_run_id(), target, simulator,
                            simulator_binary(tree, simulator), product, built, request,
                            request.runner, _runner_options(cell))
