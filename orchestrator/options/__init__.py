"""Every task's options, defined once (see fields.py for how)."""

from orchestrator.options.run import RunnerSettings, RunRequest, Thresholds

__all__ = ["RunRequest", "RunnerSettings", "Thresholds"]
