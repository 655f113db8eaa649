"""Model cells: the model app's run (orchestrator.apps.registry MODEL: the ExecuTorch runner)
driven per cell, with the model the batch compile already produced and a runner ELF built once
per config. The cell's target is placed on its simulator first (an NPU target on QEMU runs on
the NPU model, its runner built for the model's platform); a cell's run request,
placement and runner options are one ModelCell, made once per cell."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.apps.registry import MODEL
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options.run import RunRequest
from orchestrator.regress.lanes.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.regress.plan.cell_options import cell_placement, run_request
from orchestrator.regress.plan.cells import Cell
from orchestrator.results import RunResult
from orchestrator.runner.firmware import RunnerOptions, drives_npu_device
from orchestrator.runner.model_run import ModelRun, rerun_of, runner_options_for
from orchestrator.targets import Target


@dataclass(frozen=True)
class ModelCell:
    """What a model cell runs: its run request, its target as placed on its simulator and the
    runner options (the ELF) the request selects there, as `invoke run` selects them."""

    cell: Cell
    request: RunRequest
    target: Target
    options: RunnerOptions

    def config(self) -> FirmwareConfig:
        """One runner config per (target, platform, memory mode, pools, kernel set, build
        type)."""
        options, target = self.options, self.target
        key = "-".join((MODEL.name, self.cell.target, target.platform.name,
                        options.memory_mode, options.kernel_set, options.build_type,
                        options.pools.describe()))
        return FirmwareConfig(key, self.cell.target, MODEL.name,
                              (("options", options), ("target", target),
                               ("sources", self.request.runner.sources)))


def model_cell(cell: Cell) -> ModelCell:
    """The cell's ModelCell: its request, placement and runner options."""
    request = run_request(cell, MODEL.name)
    target = cell_placement(cell).target
    return ModelCell(cell, request, target, runner_options_for(target, request))


class ModelLane:
    """The regress lane of the model app; each cell's ModelCell is made once per lane (one
    lane per regression run)."""

    def __init__(self) -> None:
        self._cells: dict[Cell, ModelCell] = {}

    def model_cell(self, cell: Cell) -> ModelCell:
        if cell not in self._cells:
            self._cells[cell] = model_cell(cell)
        return self._cells[cell]

    def unavailable(self, tree: Scratch, cell: Cell) -> str | None:
        """Why the runner cannot be built here (its upstream source trees are not set up)."""
        from orchestrator.runner.sources import sources_available

        made = self.model_cell(cell)
        return sources_available(tree, made.request.runner.sources,
                                 npu=drives_npu_device(made.target))

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        return self.model_cell(cell).config()

    def build(self, tree: Scratch, config: FirmwareConfig, jobs: int) -> FirmwareOutcome:
        """Build the runtime and the runner ELF (both incremental); `cached` if nothing
        changed (the runner's own options say its jobs)."""
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

    def run_cell(self, tree: Scratch, cell: Cell, built: Any, compiled: Any,
                 out_dir: Path) -> RunResult:
        """Load the compiled model into the runner on the cell's simulator; compare outputs.

        The model run of `invoke run` (orchestrator.apps.model.run_prepared), made of
        the compile and build the engine did once for all cells, with the cell's directory as
        the run dir."""
        from orchestrator.apps.model import run_prepared
        from orchestrator.foundation.run_ids import new_run_id
        from orchestrator.sim.plan import plan_request

        made = self.model_cell(cell)
        plan = plan_request(tree, made.request, needs_data=True,
                            rerun=invoke_line("regress", filter=cell.key))
        return run_prepared(ModelRun(made.request, plan, made.options, compiled, built, out_dir,
                                     new_run_id(), rerun_of(made.request)))

