"""Upstream's MLPerf Tiny models by name through `invoke verify` (compile with ExecuTorch and
Vela, every NPU partition on the functional model against the TOSA reference model): no
sources and no extra packages needed. One model by default (CI), the four on U55-128 and
U85-128 (and U65-256) with -m sweep."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from orchestrator._toml import load_toml
from orchestrator.aot.model_catalogue import MODELS_PATH
from orchestrator.commands.verify import verify_command
from orchestrator.options.inspect import VerifyTask
from orchestrator.paths import SCRATCH_ENV, scratch

MLPERF_TINY = ("deep_autoencoder", "ds_cnn", "mobilenet_v1_025", "resnet8")
SWEEP_TARGETS = ("ethos-u55-128", "ethos-u65-256", "ethos-u85-128")
SCRATCH_VARIABLE = "ETHOSU_ORCH_TEST_VNPU_SCRATCH"   # the NPU-model tests' compile cache


def _verify(model: str, target: str, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    for module in ("torch", "executorch.backends.arm", "tosa_reference_model"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not installed (pip install -e '.[aot]')")
    root = os.environ.get(SCRATCH_VARIABLE)
    monkeypatch.setenv(SCRATCH_ENV, str(scratch(Path(root) if root else None).ensure().root))
    code = verify_command(VerifyTask(model=model, target=target), json=True)
    document: dict[str, object] = json.loads(capsys.readouterr().out)
    assert code == 0, document
    return document


def _assert_exact_and_recorded(document: dict[str, object], model: str) -> None:
    assert document["exact"] is True and document["departures"] == []
    assert document["write_findings"] == []
    source = document["model_source"]
    assert isinstance(source, dict)
    assert (source["kind"], source["name"], source["seed"], source["weights"]) == (
        "upstream", model, 0, "seeded")
    assert source["location"].startswith("mlperf_tiny.")


@pytest.mark.slow
def test_mlperf_tiny_autoencoder_by_name_is_exact_on_u85(monkeypatch, capsys):
    document = _verify("deep_autoencoder", "ethos-u85-128", monkeypatch, capsys)
    _assert_exact_and_recorded(document, "deep_autoencoder")


def _cases() -> list[object]:
    """Every (model, target), expected exact unless models.toml's `known` says where it
    stops (then a strict xfail: the day it passes, the data must say so)."""
    data = load_toml(MODELS_PATH)["upstream"]
    cases: list[object] = []
    for model in MLPERF_TINY:
        for target in SWEEP_TARGETS:
            known = data[model].get("known", {}).get(target.rsplit("-", 1)[0], "not tried")
            marks = () if known.startswith("exact") else (
                pytest.mark.xfail(reason=f"models.toml: {known}", strict=True),)
            cases.append(pytest.param(model, target, marks=marks, id=f"{model}-{target}"))
    return cases


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target"), _cases())
def test_mlperf_tiny_by_name_is_exact(model, target, monkeypatch, capsys):
    _assert_exact_and_recorded(_verify(model, target, monkeypatch, capsys), model)


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-128"])
def test_lstm_nested_inputs_by_name_are_exact(target, monkeypatch, capsys):
    """The quantizable LSTM takes (x, (h0, c0)): flattened for the device in the program's
    order. About 9 minutes of compile each on the shared machine, so a sweep case."""
    document = _verify("lstm", target, monkeypatch, capsys)
    assert document["exact"] is True and document["departures"] == []
    assert document["write_findings"] == []
    source = document["model_source"]
    assert isinstance(source, dict)
    assert (source["name"], source["seed"], source["weights"]) == ("lstm", 0, "seeded")
