"""`invoke build`: build an app for a target and print its memory report."""

from __future__ import annotations

from orchestrator.build.config import config_for_target
from orchestrator.build.driver import build_firmware
from orchestrator.build.memory_tables import format_build
from orchestrator.cli import print_json
from orchestrator.paths import scratch


def build_command(target: str, app: str = "selftest", build_type: str = "release",
                  options: list[str] | None = None, json: bool = False, jobs: int = 2) -> int:
    """Configure if needed, build incrementally, print sections and region use."""
    config = config_for_target(target, app=app, build_type=build_type, options=options)
    result = build_firmware(scratch().ensure(), config, jobs=jobs)
    if json:
        print_json(result.to_json())
    else:
        print(format_build(result))
    return 0
