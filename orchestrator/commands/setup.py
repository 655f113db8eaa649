"""`invoke setup`: the flags made into setup options, then install what is not current."""

from __future__ import annotations

from orchestrator.foundation.paths import scratch
from orchestrator.options.setup import SetupFlags
from orchestrator.setup.catalogue import load_setup_catalogue
from orchestrator.setup.installation import run_setup
from orchestrator.setup.options import build_options


def setup_command(flags: SetupFlags, json: bool = False, scratch_root: str | None = None) -> int:
    """Entry point of `invoke setup` (flags: orchestrator.options.setup)."""
    options = build_options(flags)
    return run_setup(scratch(scratch_root), options, load_setup_catalogue(), as_json=json)
