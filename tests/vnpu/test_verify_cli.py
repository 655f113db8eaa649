"""`invoke verify`'s own flow (compile cached, every partition checked, JSON verdict): a16w8
chosen by --quantize, the verdict records what produced it."""

from __future__ import annotations

import json

import pytest
import vnpu_support
from vnpu_support import needs_toolchain

from orchestrator.commands.verify import verify_command
from orchestrator.options.inspect import VerifyTask
from orchestrator.paths import SCRATCH_ENV


@pytest.mark.slow
def test_verify_a16w8_json_names_quantization_and_versions(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    needs_toolchain()
    monkeypatch.setenv(SCRATCH_ENV, str(vnpu_support.test_scratch().root))
    task = VerifyTask(model="add", target="ethos-u55-128", quantize="a16w8")
    assert verify_command(task, json=True) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["exact"] is True and document["quantize"] == "a16w8"
    assert document["npu"]["config"] == "Ethos-U55-128"
    assert document["versions"]["ethos-u-vela"] == "5.1.0"
    assert document["versions"]["ethosu_model"].startswith("ethosu_model ")
    assert all(check["exact"] for check in document["checks"])
    assert document["departures"] == [] and document["write_findings"] == []
