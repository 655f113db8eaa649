"""Artifact cells (`pte = [...]` in a matrix lane): a ready .pte or .bpte run as `invoke run
--pte` runs it, on the cell's simulator, with no compile. The runner is built (or reused by
content) for the program's kernels inside the run, so the lane's own build step is empty; a
target the file was not compiled for is refused by the run, and the cell errors with that
sentence."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.apps.registry import ARTIFACT
from orchestrator.foundation.paths import Scratch
from orchestrator.regress.lanes.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.regress.plan.cell_options import cell_placement, run_request
from orchestrator.regress.plan.cells import Cell
from orchestrator.results import RunResult
from orchestrator.runner.firmware import drives_npu_device
from orchestrator.targets.runner_data import runner_data


class ArtifactLane:
    """The `pte` app's lane: each cell runs its artifact on its target and simulator."""

    def unavailable(self, tree: Scratch, cell: Cell) -> str | None:
        """Why the runner cannot be built here (its upstream source trees are not set up)."""
        from orchestrator.runner.sources import sources_available

        return sources_available(tree, run_request(cell, ARTIFACT.name).runner.sources,
                                 npu=drives_npu_device(cell_placement(cell).target))

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        """One per cell: the runner is picked by the program's kernels when the cell runs."""
        return FirmwareConfig(f"{ARTIFACT.name}-{cell.slug}", cell.target, ARTIFACT.name)

    def build(self, tree: Scratch, config: FirmwareConfig, jobs: int) -> FirmwareOutcome:
        """Nothing to build ahead: the run builds (or reuses) the runner the file needs."""
        return FirmwareOutcome(config, True, cached=True)

    def run_cell(self, tree: Scratch, cell: Cell, built: Any, compiled: Any,
                 out_dir: Path) -> RunResult:
        """`invoke run --pte FILE --target T --sim S` into the cell's directory."""
        from orchestrator.artifacts.run import run_pte

        request = replace(run_request(cell, ARTIFACT.name), pte=cell.model_spec)
        if "kernel_set" not in cell.option_dict:
            # the runner follows the program's kernels, as `invoke run --pte` picks them
            # (the regress set keeps model cells' ELFs alike; an artifact brings its own)
            request = replace(request, runner=replace(
                request.runner, kernel_set=runner_data().default_kernel_set))
        return run_pte(request, tree, run_dir=out_dir)
