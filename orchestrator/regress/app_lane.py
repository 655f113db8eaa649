"""App cells: a firmware app (the selftest, the NPU self-test on the functional NPU model, or
another app under firmware/apps/) built once per config and run on the cell's simulator
through the same run plan and app functions `invoke run --app` uses."""

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

NPU_SELFTEST = "npuselftest"


def firmware_config(cell: Cell) -> FirmwareConfig:
    """The app's build for the cell's target as placed on its simulator."""
    from orchestrator.firmware_build import config_for_target

    request = run_request(cell, cell.model_spec)
    target = cell_placement(cell).target
    if cell.model_spec == NPU_SELFTEST:
        key = "-".join((NPU_SELFTEST, cell.target, target.platform.name, request.build_type))
        return FirmwareConfig(key, cell.target, NPU_SELFTEST,
                              (("target", target), ("build_type", request.build_type)))
    config = config_for_target(target, app=cell.model_spec, build_type=request.build_type,
                               options=list(request.build_options))
    return FirmwareConfig(config.key, cell.target, config.app, (("config", config),))


def build(tree: Scratch, config: FirmwareConfig, jobs: int) -> FirmwareOutcome:
    """Configure if needed and build incrementally; `cached` when nothing was rebuilt. The
    NPU self-test first compiles its case (cached) and renders it for the app."""
    from orchestrator.firmware_build import build_firmware
    from orchestrator.firmware_build.driver import build_dir_for

    detail = dict(config.detail)
    case = None
    try:
        if config.app == NPU_SELFTEST:
            from orchestrator.npu_selftest.handler import DEFAULT_MODEL, build_case, compile_case

            case = compile_case(tree, DEFAULT_MODEL, config.target)
            built = build_case(tree, detail["target"], case, detail["build_type"])
        else:
            built = build_firmware(tree, detail["config"], jobs=jobs)
    except OrchestratorError as error:
        log = build_dir_for(tree, detail["config"]) / "build.log" if "config" in detail else None
        return FirmwareOutcome(config, False, error.message, log=str(log) if log else None)
    return FirmwareOutcome(config, True, product=(built, case),
                           cached=not (built.configured or built.rebuilt),
                           log=str(built.build_dir / "build.log"),
                           seconds=round(sum(built.seconds.values()), 3))


def run_cell(tree: Scratch, cell: Cell, product: Any, out_dir: Path) -> RunResult:
    """Run the built app on the cell's simulator as `invoke run --app` runs it."""
    from orchestrator.firmware_run import run_firmware
    from orchestrator.npu_selftest.handler import run_case
    from orchestrator.results.model import new_run_id
    from orchestrator.sim.plan import plan_request

    built, case = product
    request = run_request(cell, cell.model_spec)
    plan = plan_request(tree, request, rerun=invoke_line("regress", filter=cell.key))
    if case is not None:
        return run_case(tree, plan, case, built, run_dir=out_dir)
    return run_firmware(plan, built, out_dir, new_run_id()).result
