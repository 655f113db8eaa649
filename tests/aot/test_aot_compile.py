"""Real compiles (cached per session): products, reports, cache hits, error messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from aot_cases import REAL_CASES, needs_executorch

from orchestrator.aot import compile_many, compile_request, request_for
from orchestrator.aot import compiler as compiler_module
from orchestrator.aot.tensors import load_array
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
PTE_IDENTIFIER = b"ET12"
ACCELERATOR_CONFIG = {"ethos-u55-128": "Ethos_U55_128", "ethos-u85-128": "Ethos_U85_128"}


@pytest.mark.parametrize(("model", "target"), REAL_CASES)
def test_product_holds_everything_the_run_stage_needs(compiled, model, target) -> None:
    product = compiled[(model, target)]
    assert product.pte.read_bytes()[4:8] == PTE_IDENTIFIER
    manifest = json.loads((product.directory / "manifest.json").read_text())
    assert manifest["versions"]["executorch"] == "1.4.1"
    assert manifest["options"]["target"] == target
    forward = manifest["program"]["methods"]["forward"]
    assert forward["planned_bytes"] > 0 and forward["planned_buffers"]["1"] > 0
    assert len(product.inputs) == (2 if model == "add" else 1)
    for stored, declared in zip(product.inputs, forward["inputs"], strict=True):
        assert list(stored.shape) == declared["shape"]
        assert list(stored.dim_order) == declared["dim_order"]
        assert stored.path.stat().st_size == stored.nbytes
    assert len(product.reference_float) == len(product.reference_quantized) == 1
    assert json.loads(product.delegation_report.read_text())["status"]


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-128"])
def test_npu_products_are_delegated_with_vela_numbers(compiled, target) -> None:
    for model in ("add", "convnet"):
        product = compiled[(model, target)]
        manifest = product.manifest
        assert manifest["delegation"]["status"] == "fully delegated"
        assert manifest["delegation"]["delegated_partitions"] == 1
        assert manifest["program"]["methods"]["forward"]["operators"] == [
            "cortex_m::quantize_per_tensor.out", "cortex_m::dequantize_per_tensor.out"]
        assert manifest["program"]["max_vela_scratch_bytes"] > 0
        vela = json.loads(product.vela_report.read_text())
        (partition,) = vela["partitions"]
        assert partition["accelerator_config"] == ACCELERATOR_CONFIG[target]
        assert partition["memory_mode"] == manifest["options"]["memory_mode"]
        assert partition["npu_cycles"] > 0 and partition["operators"]
        assert manifest["vela"]["npu_cycles"] == partition["npu_cycles"]
    conv = json.loads(compiled[("convnet", target)].delegation_report.read_text())
    assert conv["npu_ops"]["aten_convolution_default"] == 2
    assert conv["cpu_ops"] == {"cortex_m_dequantize_per_tensor_default": 1,
                               "cortex_m_quantize_per_tensor_default": 1}


def test_cortex_m_products_use_cmsis_nn_kernels_in_channels_last(compiled) -> None:
    conv = compiled[("convnet", "cortex-m55")]
    operators = conv.manifest["program"]["methods"]["forward"]["operators"]
    assert "cortex_m::quantized_conv2d.out" in operators
    assert all(op.startswith("cortex_m::") for op in operators)
    assert conv.manifest["program"]["delegates"] == []
    assert conv.vela_report is None
    assert conv.inputs[0].dim_order == (0, 2, 3, 1)
    add = compiled[("add", "cortex-m55")].manifest["program"]["methods"]["forward"]
    assert "cortex_m::quantized_add.out" in add["operators"]


@pytest.mark.parametrize(("model", "target"), REAL_CASES)
def test_quantized_reference_tracks_the_float_one(compiled, model, target) -> None:
    product = compiled[(model, target)]
    (reference,) = product.reference_float
    (quantized,) = product.reference_quantized
    expected, got = load_array(reference), load_array(quantized)
    assert expected.shape == got.shape and got.dtype == np.float32
    spread = float(expected.max() - expected.min())
    assert float(np.abs(expected - got).max()) <= 0.05 * spread + 1e-6


def test_reference_is_the_model_output_on_the_stored_inputs(compiled) -> None:
    product = compiled[("add", "ethos-u55-128")]
    first, second = (load_array(t) for t in product.inputs)
    np.testing.assert_allclose(load_array(product.reference_float[0]), first + second,
                               rtol=1e-6)


def test_cache_hit_does_not_recompile(compiled, aot_scratch, monkeypatch) -> None:
    def refuse(*_args, **_kwargs):
        raise AssertionError("cache hit must not compile")

    monkeypatch.setattr(compiler_module, "build_product", refuse)
    first = compiled[("convnet", "ethos-u55-128")]
    again = compile_request(request_for("convnet", "ethos-u55-128"), aot_scratch)
    assert again.cached and again.directory == first.directory
    assert [p.name for p in aot_scratch.models.iterdir() if p.name.startswith(".")] == []


def test_cache_hit_in_a_fresh_process_never_imports_torch(compiled, aot_scratch) -> None:
    code = ("import sys\nfrom orchestrator.aot import compile_model\n"
            "product = compile_model('add', 'ethos-u85-128')\n"
            "assert product.cached, product\n"
            "print('torch' in sys.modules)")
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(aot_scratch.root)}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, text=True,
                          capture_output=True, check=True)
    assert done.stdout.strip() == "False"


def _compile_error(aot_scratch, model: str, target: str = "cortex-m55", **options) -> str:
    needs_executorch()
    with pytest.raises(OrchestratorError) as caught:
        compile_request(request_for(model, target, CompileChoices(**options)), aot_scratch)
    assert [p for p in aot_scratch.models.iterdir() if p.name.startswith(".")] == []
    return caught.value.message


def test_model_file_without_model_under_test(aot_scratch, model_file) -> None:
    message = _compile_error(aot_scratch, str(model_file("no_model.py")))
    assert message.startswith("model file no_model.py defines no ModelUnderTest; next: add")


def test_export_failure_names_the_failing_line(aot_scratch, model_file) -> None:
    message = _compile_error(aot_scratch, str(model_file("branching.py")))
    assert message.startswith("torch.export failed for model branching at "
                              "`if y.sum() > 0:` (branching.py:9): Data-dependent branching")
    assert "\n" not in message
    log = Path(message.rsplit("full log: ", 1)[1])
    assert "Data-dependent branching" in log.read_text()


def test_ops_without_runner_kernels_are_refused(aot_scratch, model_file) -> None:
    message = _compile_error(aot_scratch, str(model_file("erfinv.py")), quantize="none")
    assert "needs operators that cortex-m55's runner has no kernel for: aten::erfinv.out" \
        in message


def test_ops_left_in_float_by_quantization_are_reported(aot_scratch, model_file,
                                                        monkeypatch) -> None:
    needs_executorch()
    monkeypatch.syspath_prepend(str(model_file("")))
    product = compile_request(request_for("exp_add:build", "cortex-m55"), aot_scratch)
    assert product.manifest["float_ops_after_quantization"] == {"aten.exp.default": 1}
    assert product.manifest["model"]["kind"] == "function"


def _invoke(args: list[str], scratch_root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(scratch_root)}
    return subprocess.run([sys.executable, "-m", "invoke", "compile", *args], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)


def test_invoke_compile_json_summary_from_cache(compiled, aot_scratch) -> None:
    done = _invoke(["--model", "convnet", "--target", "ethos-u55-128", "--json"],
                   aot_scratch.root)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["cached"] is True
    assert result["delegation"]["status"] == "fully delegated"
    assert result["npu_cycles_estimate"] == compiled[("convnet", "ethos-u55-128")]\
        .manifest["vela"]["npu_cycles"]
    assert result["memory"]["vela_scratch_bytes"] > 0
    assert Path(result["paths"]["pte"]).is_file()
    assert all(Path(p).is_file() for p in result["paths"]["inputs"])


def test_invoke_compile_text_summary_and_one_line_errors(compiled, aot_scratch) -> None:
    done = _invoke(["--model", "add", "--target", "cortex-m55"], aot_scratch.root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("add -> cortex-m55, int8, CPU only (cached)\n")
    assert "  pte: " in done.stdout
    refused = _invoke(["--model", "add", "--target", "cortex-m55", "--delegate"],
                      aot_scratch.root)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert refused.stderr.startswith("error: target cortex-m55 has no NPU")


def test_batch_reports_failures_per_item_and_goes_on(compiled, aot_scratch, model_file) -> None:
    seen = []
    items = compile_many([request_for(str(model_file("no_model.py")), "cortex-m55"),
                          request_for("add", "cortex-m55")], aot_scratch, progress=seen.append)
    assert [item.ok for item in items] == [False, True] and seen == items
    assert "defines no ModelUnderTest" in items[0].error
    assert items[1].product.cached


@pytest.mark.parametrize(("model", "target"), REAL_CASES)
def test_product_keeps_etrecord_and_exact_intermediates(compiled, model, target):
    product = compiled[(model, target)]
    assert product.manifest["etrecord"] == "etrecord.bin"
    assert product.etrecord is not None and product.etrecord.stat().st_size > 0
    if product.exact_record.exact:
        from orchestrator.aot.tensors import load_array
        from orchestrator.exact.intermediates import load_intermediates

        assert product.exact_intermediates is not None
        steps = [values for op, values in load_intermediates(product.exact_intermediates)
                 if op != "alloc"]
        # the last op's output is the program's output: the exact reference itself
        final = np.asarray(load_array(product.reference_exact[0]))
        assert steps[-1].shape == final.shape
        assert np.array_equal(steps[-1].reshape(-1), final.reshape(-1))
