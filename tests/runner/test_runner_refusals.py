"""What `invoke run --app runner` refuses before compiling or building anything."""

from __future__ import annotations

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunRequest, run_command
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.options.fields import from_cli


def test_runner_without_a_model_names_the_flag(tmp_path):
    with pytest.raises(OrchestratorError, match="needs a model.*--model mv2"):
        execute(RunRequest(target="cortex-m55", app="runner"), scratch(tmp_path))


def test_model_flag_selects_the_runner_app(tmp_path, monkeypatch):
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(tmp_path))
    with pytest.raises(OrchestratorError, match="qemu cannot run platform corstone-320"):
        run_command(RunRequest(target="cortex-m85", sim="qemu", model="mv2"))


def test_bad_pool_size_is_one_line(tmp_path):
    with pytest.raises(OrchestratorError, match="--temp-pool huge is not a size"):
        execute(from_cli(RunRequest, {"target": "cortex-m55", "app": "runner", "sim": "qemu",
                                      "model": "add", "temp_pool": "huge"}), scratch(tmp_path))
