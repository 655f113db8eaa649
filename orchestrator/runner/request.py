"""The runner's part of a run request, as the runner stage reads it. The options themselves
are defined once in orchestrator.options.run (RunnerSettings)."""

from __future__ import annotations

from orchestrator.options.fields import size as parse_size
from orchestrator.options.run import RunnerSettings

RunnerRequest = RunnerSettings   # the name earlier branches import
__all__ = ["RunnerRequest", "RunnerSettings", "parse_size"]
