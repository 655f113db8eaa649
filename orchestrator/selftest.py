"""The selftest app's run: build it for the target, simulate it, turn the records into a
RunResult (the adapter lives in orchestrator/sim/result.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.build import build_firmware, config_for_target
from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.results import RunResult
from orchestrator.results.model import utc_now
from orchestrator.sim import choose_simulator, simulate
from orchestrator.sim.result import run_result
from orchestrator.sim.select import placed_on, target_binary
from orchestrator.sim.versions import simulator_version
from orchestrator.targets import load_catalogue

if TYPE_CHECKING:
    from orchestrator.options.run import RunRequest


def run_selftest(request: RunRequest, work: Scratch) -> RunResult:
    """Build (incrementally) and run the selftest; the verdict comes from its records."""
    if request.model is not None:
        raise OrchestratorError("the selftest app takes no model",
                                f"invoke run --target {request.target} --app runner "
                                f"--model {request.model}")
    target = load_catalogue().target(request.target)
    simulator = choose_simulator(target, request.sim)
    target = placed_on(target, simulator)
    binary = target_binary(work, simulator, target,
                           f"invoke run --target {target.name} --app {request.app}")
    started = utc_now()
    config = config_for_target(target, app="selftest", build_type=request.build_type,
                               options=list(request.build_options))
    build = build_firmware(work, config)
    run_id = request.run_id
    simulation = simulate(simulator, binary, build.elf, work.runs / run_id,
                          deadline_s=request.timeout_s, idle_s=request.idle_timeout_s,
                          expected_build_id=build.build_id, macs=target.macs)
    return run_result(run_id, target, build, simulation, started_at=started,
                      simulator_version=simulator_version(work, binary))
