"""What `invoke run --app runner` refuses before compiling or building anything."""

from __future__ import annotations

import pytest

from orchestrator.errors import OrchestratorError
from orchestrator.options.fields import from_cli
from orchestrator.paths import scratch
from orchestrator.run import RunRequest, execute, run_command


def test_u85_target_on_qemu_is_refused_with_the_catalogue_reason(tmp_path):
    with pytest.raises(OrchestratorError) as error:
        execute(RunRequest(target="ethos-u85-256", app="runner", sim="qemu", model="add"),
                scratch(tmp_path))
    assert "qemu has no Ethos-U NPU, so ethos-u85-256 cannot run on it" in error.value.message
    assert "Ethos-U55/U65 command streams only" in error.value.message
    assert "--sim fvp" in error.value.message
    assert not any((tmp_path / "runs").iterdir())


def test_runner_without_a_model_names_the_flag(tmp_path):
    with pytest.raises(OrchestratorError, match="needs a model.*--model mv2"):
        execute(RunRequest(target="cortex-m55", app="runner"), scratch(tmp_path))


def test_model_flag_selects_the_runner_app(tmp_path, monkeypatch):
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(tmp_path))
    with pytest.raises(OrchestratorError, match="has no Ethos-U NPU"):
        run_command(RunRequest(target="ethos-u85-128", sim="qemu", model="mv2"))


def test_bad_pool_size_is_one_line(tmp_path):
    with pytest.raises(OrchestratorError, match="--temp-pool huge is not a size"):
        execute(from_cli(RunRequest, {"target": "cortex-m55", "app": "runner", "sim": "qemu",
                                      "model": "add", "temp_pool": "huge"}), scratch(tmp_path))
