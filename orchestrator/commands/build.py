"""`invoke build`: build an app for a target and print its memory report. The runner app
goes through orchestrator.runner (runtime libraries first), so `invoke run` reuses it."""

from __future__ import annotations

from orchestrator.firmware.build.config import config_for_target
from orchestrator.firmware.build.driver import BuildResult, build_firmware
from orchestrator.firmware.build.memory_tables import format_build
from orchestrator.foundation.cli import print_json
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.options.build import BuildTask


def build_command(task: BuildTask, json: bool = False, jobs: int = 2) -> int:
    """Configure if needed, build incrementally, print sections and region use."""
    target, app, build_type, options = task.target, task.app, task.build_type, task.options
    work = scratch().ensure()
    if app == "runner":
        if options:
            raise OrchestratorError("the runner's build options come from the target and "
                                    "runner.toml, not --option",
                                    f"invoke build --target {target} --app runner")
        from orchestrator.runner.build_app import build_runner_app  # the runner's own layer

        result: BuildResult = build_runner_app(work, target, build_type=build_type,
                                               kernel_set=task.kernel_set,
                                               memory_mode=task.memory_mode,
                                               jobs=jobs)
    else:
        config = config_for_target(target, app=app, build_type=build_type, options=list(options))
        result = build_firmware(work, config, jobs=jobs)
    if json:
        print_json(result.to_json())
    else:
        print(format_build(result))
    return 0
