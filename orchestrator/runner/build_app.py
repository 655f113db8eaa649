"""`invoke build --app runner`: the runner ELF for any target (NPU targets included), with the
options `invoke run` would choose, so a later run of the same configuration reuses it. No
simulator is needed: this is for building and size-checking."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from orchestrator.firmware.build.driver import BuildResult
from orchestrator.foundation.paths import Scratch
from orchestrator.runner.config import memory_mode_of, pools_for, runner_data
from orchestrator.runner.firmware import RunnerOptions, build_runner
from orchestrator.targets import load_catalogue


def build_runner_app(work: Scratch, target: str, build_type: str | None = None,
                     kernel_set: str | None = None, memory_mode: str | None = None,
                     jobs: int = 2, sources: Mapping[str, Path] | None = None) -> BuildResult:
    """Build the runtime and the runner ELF for `target` (incrementally)."""
    resolved = load_catalogue().target(target)
    mode = memory_mode_of(resolved, memory_mode)
    options = RunnerOptions(mode, pools_for(mode, board=resolved.platform),
                            kernel_set or runner_data().default_kernel_set,
                            build_type or runner_data().default_build_type, jobs)
    return build_runner(work, resolved, options, sources).firmware
