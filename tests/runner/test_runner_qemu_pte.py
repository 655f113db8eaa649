"""`invoke run --pte` on QEMU (real runtime and runner builds, real QEMU runs): artifacts made
by executorch's own APIs, not by our compile, run with no compile: a U85 .bpte's every test
case in one session (the NPU model), a U55 .pte with generated inputs, a float
Cortex-M55 .bpte. Needs the upstream sources (skips without)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import Scratch
from orchestrator.results import RunResult, Status

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]
HELPER = Path(__file__).resolve().parents[1] / "artifacts" / "foreign_artifacts.py"


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The artifacts of tests/artifacts (written once per session)."""
    pytest.importorskip("executorch.backends.arm.ethosu", reason="needs executorch[ethos-u]")
    spec = importlib.util.spec_from_file_location("foreign_artifacts_for_runner", HELPER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: dict[str, Path] = module.cached_artifacts(tmp_path_factory.getbasetemp())
    return found


def run_pte(work: Scratch, sources: dict[str, Any], pte: Path, **given: Any) -> RunResult:
    return execute(RunRequest(pte=str(pte), sim="qemu", timeout_s=300.0, idle_timeout_s=120.0,
                              runner=RunnerSettings(sources=sources, **given)), work)


def bundle_check(result: RunResult) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(Path(result.artifacts["bundle_check"]).read_text())
    return document


def test_u85_bundle_checks_every_case_in_one_session(
        foreign: dict[str, Path], runner_scratch: Scratch,
        runtime_sources: dict[str, Any]) -> None:
    result = run_pte(runner_scratch, runtime_sources, foreign["bundled"])
    assert result.status is Status.PASS, result.reason
    assert result.target.name == "ethos-u85-128"
    assert result.npu is not None and result.npu.delegations == 3   # one session, 3 cases
    check = bundle_check(result)
    assert check["cases"] == check["ran"] == 3 and (check["atol"], check["rtol"]) == (0.01, 0.01)
    assert sorted({o["case"] for o in check["outputs"]}) == [0, 1, 2]
    assert all(o["max_steps"] is not None for o in check["outputs"])   # the output's scale
    assert result.comparison is not None and result.comparison.reference == "bundled"
    # exact comparison of a PyTorch float reference fails, naming the case and the rule
    strict = run_pte(runner_scratch, runtime_sources, foreign["bundled"], atol=0.0, rtol=0.0)
    assert strict.status is Status.FAIL and "bundled test cases fail" in strict.reason


def test_u55_program_runs_with_the_files_target(
        foreign: dict[str, Path], runner_scratch: Scratch,
        runtime_sources: dict[str, Any]) -> None:
    result = run_pte(runner_scratch, runtime_sources, foreign["ethos-u55-128"])
    assert result.status is Status.PASS, result.reason
    assert result.target.name == "ethos-u55-128"
    assert [list(t.shape) for t in result.outputs] == [[1, 10]]


def test_cortex_m55_float_bundle(foreign: dict[str, Path], runner_scratch: Scratch,
                                 runtime_sources: dict[str, Any]) -> None:
    result = run_pte(runner_scratch, runtime_sources, foreign["cpu"])
    assert result.status is Status.PASS, result.reason
    assert result.target.name == "cortex-m55"
    assert bundle_check(result)["ran"] == 3


def test_our_own_bundle_passes_bit_for_bit(runner_scratch: Scratch,
                                           runtime_sources: dict[str, Any]) -> None:
    """invoke compile --bundle: the .bpte's expected outputs are our exact reference, so our
    own run --pte of it passes with atol = rtol = 0."""
    from orchestrator.aot.api import compile_model
    from orchestrator.artifacts.bundle import read_bundle
    from orchestrator.artifacts.bundle_product import bundle_product

    product = compile_model("add", "ethos-u85-128", scratch_root=runner_scratch.root)
    bpte = bundle_product(product, runner_scratch.root / "add_u85.bpte")
    case = read_bundle(bpte.read_bytes()).suites[0].cases[0]
    assert [v.data for v in case.expected_outputs] == [
        t.path.read_bytes() for t in product.reference_exact]
    assert json.loads(bpte.with_name(bpte.name + ".json").read_text())["exact"] is True
    result = run_pte(runner_scratch, runtime_sources, bpte, atol=0.0, rtol=0.0)
    assert result.status is Status.PASS, result.reason
    assert result.comparison is not None and result.comparison.exact is True


def test_bundle_of_input_sets_has_a_case_per_set(runner_scratch: Scratch,
                                                 runtime_sources: dict[str, Any],
                                                 tmp_path: Path) -> None:
    """invoke compile --bundle --inputs DIR: one test case per input set, each expecting its
    exact reference (the float references beside it); run --pte passes them all exactly."""
    import numpy as np

    from orchestrator.aot.api import compile_model
    from orchestrator.aot.host_reference import compile_request_of
    from orchestrator.artifacts.bundle import read_bundle
    from orchestrator.artifacts.bundle_product import bundle_input_sets

    product = compile_model("add", "ethos-u85-128", scratch_root=runner_scratch.root)
    generator = np.random.default_rng(2)
    for index in range(3):
        np.savez(tmp_path / f"set{index}.npz", *(generator.random(t.shape, dtype=np.float32)
                                                 for t in product.inputs))
    bpte = bundle_input_sets(product, compile_request_of(product), str(tmp_path),
                             runner_scratch.root / "add_sets.bpte")
    cases = read_bundle(bpte.read_bytes()).suites[0].cases
    assert len(cases) == 3 and len({c.inputs[0].data for c in cases}) == 3
    sidecar = json.loads(bpte.with_name(bpte.name + ".json").read_text())
    assert sidecar["exact"] is True and sidecar["cases"] == 3
    with np.load(sidecar["float_reference"]) as floats:
        assert sorted(floats.files) == [f"case{i}_output0" for i in range(3)]
    result = run_pte(runner_scratch, runtime_sources, bpte, atol=0.0, rtol=0.0)
    assert result.status is Status.PASS, result.reason
    assert bundle_check(result)["ran"] == 3


def test_verify_pte_agrees_with_the_qemu_lane_bit_for_bit(
        foreign: dict[str, Path], runner_scratch: Scratch,
        runtime_sources: dict[str, Any]) -> None:
    """`invoke verify --pte` of the U85 .bpte: every case on QEMU (the NPU model in the
    firmware) and on the host agree; the FVP lane, absent here, is refused with its reason."""
    from orchestrator.artifacts.verify import verify_artifact

    request = RunRequest(timeout_s=300.0, idle_timeout_s=120.0,
                         runner=RunnerSettings(sources=runtime_sources))
    document = verify_artifact(foreign["bundled"], request, runner_scratch)
    assert document["exact"] is True and document["target"] == "ethos-u85-128"
    lanes = {lane["simulator"]: lane for lane in document["lanes"]}
    qemu = lanes["qemu"]
    assert qemu["status"] == "checked" and qemu["exact"] and qemu["ran"] == qemu["cases"] == 3
    assert sorted(check["case"] for check in qemu["checks"]) == [0, 1, 2]
    assert all(check["compared"] == "quantized steps" for check in qemu["checks"])
    fvp = lanes["fvp-corstone-320"]
    assert fvp["status"] in ("refused", "checked")
    if fvp["status"] == "refused":
        assert "fvp-corstone-320" in fvp["reason"] and fvp["next"]
    assert "TOSA" in document["reference"]


def test_evaluate_pte_scores_a_data_set_without_a_compile(
        foreign: dict[str, Path], runner_scratch: Scratch, runtime_sources: dict[str, Any],
        tmp_path: Path) -> None:
    """`invoke evaluate --pte` of the U85 .pte over three labelled input sets: one session,
    the device's classes scored against the labels, no exactness claimed, the artifact's
    digest recorded."""
    import hashlib

    import numpy as np

    from orchestrator.artifacts.evaluate import evaluate_artifact
    from orchestrator.options.evaluate import EvaluateRequest

    generator = np.random.default_rng(5)
    for index in range(3):
        np.save(tmp_path / f"set{index}.npy", generator.random((1, 3, 8, 8), dtype=np.float32))
    (tmp_path / "labels.txt").write_text("1\n2\n3\n")
    pte = foreign["ethos-u85-128"]
    document = evaluate_artifact(EvaluateRequest(pte=str(pte), data=str(tmp_path), sim="qemu",
                                        timeout_s=300.0, idle_timeout_s=120.0,
                                        runner=RunnerSettings(sources=runtime_sources)),
                        runner_scratch)
    assert document["passed"] and document["target"] == "ethos-u85-128"
    summary = document["summary"]
    assert summary["completed"] == summary["labelled"] == 3 and summary["exact"] is None
    assert summary["accuracy"]["device"] is not None and summary["top1_agreement"] is None
    assert all(sample["device_class"] in range(10) for sample in document["samples"])
    assert document["artifact"]["sha256"] == hashlib.sha256(pte.read_bytes()).hexdigest()
    assert Path(document["result"]).is_file()
