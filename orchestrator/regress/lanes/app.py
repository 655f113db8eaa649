"""App cells: a firmware app (the protocol self-test or another app under firmware/apps/, or the
NPU self-test on the NPU model) built once per config and run on the cell's simulator
through the same run plan and app functions `invoke run --app` uses. One lane per kind of app
firmware (orchestrator.apps.app.Firmware)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.apps.registry import NPU_SELFTEST
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.regress.lanes.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.regress.plan.cell_options import cell_placement, run_request
from orchestrator.regress.plan.cells import Cell
from orchestrator.results import RunResult
from orchestrator.sim.plan import RunPlan


def cell_plan(tree: Scratch, cell: Cell) -> RunPlan:
    """The cell's run plan, its rerun command the regress filter of the cell."""
    from orchestrator.sim.plan import plan_request

    return plan_request(tree, run_request(cell, cell.model_spec),
                        rerun=invoke_line("regress", filter=cell.key))


class ProtocolAppLane:
    """An app under firmware/apps/ (the selftest, ...): its build for the cell's target."""

    def unavailable(self, tree: Scratch, cell: Cell) -> str | None:
        return None

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        """The app's build for the cell's target as placed on its simulator."""
        from orchestrator.firmware.build import config_for_target

        request = run_request(cell, cell.model_spec)
        config = config_for_target(cell_placement(cell).target, app=cell.model_spec,
                                   build_type=request.build_type,
                                   options=list(request.build_options))
        return FirmwareConfig(config.key, cell.target, config.app, (("config", config),))

    def build(self, tree: Scratch, config: FirmwareConfig, jobs: int) -> FirmwareOutcome:
        """Configure if needed and build incrementally; `cached` when nothing was rebuilt."""
        from orchestrator.firmware.build import build_firmware
        from orchestrator.firmware.build.driver import build_dir_for

        build_config = dict(config.detail)["config"]
        try:
            built = build_firmware(tree, build_config, jobs=jobs)
        except OrchestratorError as error:
            log = build_dir_for(tree, build_config) / "build.log"
            return FirmwareOutcome(config, False, error.message, log=str(log))
        return built_outcome(config, built)

    def run_cell(self, tree: Scratch, cell: Cell, built: Any, compiled: Any,
                 out_dir: Path) -> RunResult:
        """Run the built app on the cell's simulator as `invoke run --app` runs it."""
        from orchestrator.firmware.run import run_firmware
        from orchestrator.foundation.run_ids import new_run_id

        return run_firmware(cell_plan(tree, cell), built, out_dir, new_run_id()).result


class NpuSelftestLane:
    """The NPU self-test: its case compiled (cached) for the cell's target, the app built
    around it with the NPU model."""

    def unavailable(self, tree: Scratch, cell: Cell) -> str | None:
        return None

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        request = run_request(cell, cell.model_spec)
        target = cell_placement(cell).target
        key = "-".join((NPU_SELFTEST.name, cell.target, target.platform.name,
                        request.build_type))
        return FirmwareConfig(key, cell.target, NPU_SELFTEST.name,
                              (("target", target), ("build_type", request.build_type)))

    def build(self, tree: Scratch, config: FirmwareConfig, jobs: int) -> FirmwareOutcome:
        """Compile the case (cached), render it for the app and build the app around it."""
        from orchestrator.apps.npu_selftest.run import DEFAULT_MODEL, build_case, compile_case

        detail = dict(config.detail)
        try:
            case = compile_case(tree, DEFAULT_MODEL, config.target)
            built = build_case(tree, detail["target"], case, detail["build_type"])
        except OrchestratorError as error:
            return FirmwareOutcome(config, False, error.message)
        return built_outcome(config, built, (built, case))

    def run_cell(self, tree: Scratch, cell: Cell, built: Any, compiled: Any,
                 out_dir: Path) -> RunResult:
        """Run the built app and its case as `invoke run --app npuselftest` runs it."""
        from orchestrator.apps.npu_selftest.run import run_case

        build, case = built
        return run_case(tree, cell_plan(tree, cell), case, build, run_dir=out_dir)


def built_outcome(config: FirmwareConfig, built: Any, product: Any = None) -> FirmwareOutcome:
    """A finished build as the engine sees it; `cached` when nothing was rebuilt."""
    return FirmwareOutcome(config, True, product=built if product is None else product,
                           cached=not (built.configured or built.rebuilt),
                           log=str(built.build_dir / "build.log"),
                           seconds=round(sum(built.seconds.values()), 3))
