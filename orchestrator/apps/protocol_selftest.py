"""A protocol app's run (the selftest, or any other app under firmware/apps/ that firmware.toml
declares and needs no model): plan it, build it for the placed target, run it as planned (the
RunResult comes from orchestrator.firmware.run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.firmware.build import build_firmware, config_for_target
from orchestrator.firmware.run import run_firmware
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.results import RunResult
from orchestrator.results.model import utc_now
from orchestrator.sim.plan import plan_request

if TYPE_CHECKING:
    from orchestrator.options.run import RunRequest


def run_app(request: RunRequest, work: Scratch) -> RunResult:
    """Build (incrementally) and run the app; the verdict comes from its records."""
    app = request.app or "selftest"
    if request.model is not None:
        raise OrchestratorError(f"the {app} app takes no model",
                                f"invoke run --target {request.target} --app runner "
                                f"--model {request.model}")
    plan = plan_request(work, request)
    started = utc_now()
    config = config_for_target(plan.target, app=app, build_type=request.build_type,
                               options=list(request.build_options))
    build = build_firmware(work, config)
    return run_firmware(plan, build, work.runs / request.run_id, request.run_id,
                        started_at=started).result
