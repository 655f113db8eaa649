"""`invoke evaluate` on QEMU with a real data set that needs no download: scikit-learn's
bundled 8x8 digits and a small CNN trained on it when its model file is imported
(examples/digits/digits_cnn.py: seeded, seconds). Real compiles, runner builds and QEMU
sessions; every sample's device output must equal the host integer program's (the lowered
program run exactly on that input) bit for bit, on the CPU lane (cortex-m55, CMSIS-NN) and
the NPU lane (ethos-u55-128 on the NPU model). The data set is split: the
evaluated files never calibrate. 200 samples per lane run with -m sweep."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from orchestrator.evaluate.evaluate import evaluate
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import repo_root
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.options.fields import from_cli
from orchestrator.runner import sample_session as session_module

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]

pytest.importorskip("sklearn", reason="scikit-learn is in the test extra: pip install -e "
                                      "'.[test]'")

MODEL = repo_root() / "examples" / "digits" / "digits_cnn.py"
EVALUATED = 30            # default run: small; -m sweep runs 200
CALIBRATION = 16


@pytest.fixture(scope="module")
def digits(tmp_path_factory) -> Path:
    """One folder: 200 unseen samples then the calibration samples, with labels.txt, written
    by the example's own command (as README says to)."""
    folder = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(MODEL), str(folder), str(200 + CALIBRATION)],
                   check=True, capture_output=True, timeout=300)
    return folder


def request_for(digits: Path, sources: dict[str, Path], target: str, limit: int,
                **extra: str) -> EvaluateRequest:
    calibration = digits.parent / f"{digits.name}-calibration"
    if not calibration.exists():
        calibration.mkdir()
        for path in sorted(digits.glob("*.npy"))[-CALIBRATION:]:
            (calibration / path.name).symlink_to(path)
    request = from_cli(EvaluateRequest, {"model": str(MODEL), "target": target,
                                         "data": str(digits), "limit": str(limit),
                                         "calibration": str(calibration), "sim": "qemu",
                                         **extra})
    return replace(request, runner=replace(request.runner, sources=sources))


def check_equal_to_the_host_integer_program(document: dict[str, Any], count: int) -> None:
    summary = document["summary"]
    assert document["passed"], document["stopped"] or summary["not_exact"]
    assert summary["completed"] == count and summary["exact"] == count
    assert document["reference"] == "exact" and document["stopped"] is None
    samples = document["samples"]
    assert [s["index"] for s in samples] == list(range(count))
    assert all(s["device_class"] == s["host_class"] for s in samples)
    assert summary["accuracy"]["device"] == summary["accuracy"]["host_integer"]
    assert summary["accuracy"]["float"] >= 0.85            # a trained model, not noise
    assert summary["labelled"] == count
    assert document["calibration"]["files"] == CALIBRATION
    run_dir = Path(document["result"]).parent
    for name in ("evaluation.json", "evaluation.html", "transcript.log", "eor_samples.bin"):
        assert (run_dir / name).is_file(), name
    html = (run_dir / "evaluation.html").read_text()
    assert html.count("data:image/png;base64,") == 2      # per-class chart, error histogram


@pytest.mark.parametrize("target", ["cortex-m55", "ethos-u55-128"])
def test_digits_on_qemu_equal_the_host_integer_program_sample_for_sample(
        digits, runner_scratch, runtime_sources, target):
    document = evaluate(request_for(digits, runtime_sources, target, EVALUATED), runner_scratch)
    check_equal_to_the_host_integer_program(document, EVALUATED)
    session = document["session"]
    assert session["status"] == "pass"
    assert session["cpu"]["source"] == "systick"
    if target.startswith("ethos"):
        assert session["npu"] is None or session["npu"].get("executor") == "npu-model"


@pytest.mark.sweep
@pytest.mark.parametrize("target", ["cortex-m55", "ethos-u55-128"])
def test_two_hundred_digits_in_one_session(digits, runner_scratch, runtime_sources, target):
    document = evaluate(request_for(digits, runtime_sources, target, 200), runner_scratch)
    check_equal_to_the_host_integer_program(document, 200)


def test_a_session_that_dies_at_sample_k_keeps_the_samples_before_it(
        digits, runner_scratch, runtime_sources, monkeypatch):
    broken = 4
    real_pack = session_module.pack_samples

    def damage_record(sets, nonce, first=0):
        area, blob, stride = real_pack(sets, nonce, first)
        start = 64 + broken * stride
        return area, blob[:start] + b"XXXXXXXX" + blob[start + 8:], stride

    monkeypatch.setattr(session_module, "pack_samples", damage_record)
    document = evaluate(request_for(digits, runtime_sources, "cortex-m55", 8), runner_scratch)
    stopped = document["stopped"]
    assert not document["passed"]
    assert stopped["stopped_at"] == broken and stopped["file"] == "1004.npy"
    assert "damaged" in document["session"]["classification"]["details"].get(
        "runner_message", "") + document["session"]["reason"] + str(
        document["session"]["classification"])
    assert [s["index"] for s in document["samples"]] == list(range(broken))
    assert all(s["exact"] for s in document["samples"])


def test_an_input_set_that_does_not_fit_is_refused_before_the_simulator_starts(
        digits, runner_scratch, runtime_sources, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    np.save(data / "0000.npy", np.zeros((1, 1, 8, 8), dtype=np.float32))
    np.save(data / "0001.npy", np.zeros((1, 8, 8), dtype=np.float32))
    request = replace(request_for(digits, runtime_sources, "cortex-m55", 2), data=str(data))
    with pytest.raises(OrchestratorError) as caught:
        evaluate(request, runner_scratch)
    assert "\n" not in caught.value.message
    assert "input set 1 (0001.npy) input inputs[0] is float32[1, 8, 8], the model takes " \
           "float32[1, 1, 8, 8]" in caught.value.message
    assert not (runner_scratch.runs / request.run_id / "transcript.log").exists()


def test_run_with_inputs_judges_each_input_set_against_its_own_reference(
        digits, runner_scratch, runtime_sources, tmp_path):
    from orchestrator.api.run_job import execute
    from orchestrator.commands.run import RunnerSettings, RunRequest
    from orchestrator.options.compile import CompileChoices
    from orchestrator.results import Status

    folder = tmp_path / "mine"
    folder.mkdir()
    for path in sorted(digits.glob("*.npy"))[:5]:
        (folder / path.name).symlink_to(path)
    result = execute(RunRequest(target="cortex-m55", app="runner", sim="qemu", model=str(MODEL),
                                compile=CompileChoices(inputs=str(folder)),
                                runner=RunnerSettings(sources=runtime_sources)),
                     runner_scratch)
    assert result.status is Status.PASS, result.reason
    assert result.comparison is not None and result.comparison.exact
    assert result.comparison.reference == "exact" and result.comparison.mismatches == 0
    assert result.accuracy is not None and result.accuracy.dataset is not None
    assert result.accuracy.dataset["completed"] == 5 and result.accuracy.dataset["exact"] == 5
    assert len(result.outputs) == 1 and result.outputs[0].shape == [1, 10]
    assert Path(result.artifacts["evaluation"]).is_file()
    assert Path(result.artifacts["result"]).is_file()
