"""Every task's options, defined once (see fields.py for how)."""

from orchestrator.comparison.thresholds import Thresholds
from orchestrator.options.run import RunnerSettings, RunRequest

__all__ = ["RunRequest", "RunnerSettings", "Thresholds"]
