"""Real compiles: every built-in product for cortex-m55 and ethos-u55-128 carries its exact
reference (the lowered program run on the host, NPU partitions on the TOSA reference model);
where ExecuTorch's own host runtime has the kernels, the exact reference equals it bit for
bit; an op with no exact host implementation is named and the product falls back."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from aot_cases import needs_executorch

from orchestrator.aot import compile_many, compile_request, request_for
from orchestrator.aot.tensors import load_array
from orchestrator.comparison.departure import judge
from orchestrator.options.compile import CompileChoices

pytestmark = pytest.mark.slow
BUILTINS = ("add", "softmax", "convnet", "mv2")
TARGETS = ("cortex-m55", "ethos-u55-128")


class _CompiledOnDemand(dict):
    """(model, target) -> Product, compiled the first time a test asks for it (so a case
    moved to -m sweep costs nothing by default)."""

    def __init__(self, compiled, aot_scratch) -> None:
        super().__init__(compiled)
        self.aot_scratch = aot_scratch

    def __missing__(self, key):
        model, target = key
        (item,) = compile_many([request_for(model, target)], self.aot_scratch, keep_going=False)
        self[key] = item.product
        return item.product


@pytest.fixture(scope="module")
def builtin_products(compiled, aot_scratch):
    """Every built-in model for both targets (add/convnet come from the shared fixture)."""
    return _CompiledOnDemand(compiled, aot_scratch)


def _on_grid(values: np.ndarray, quantization: dict) -> bool:
    steps = values.astype(np.float64) / quantization["scale"] + quantization["zero_point"]
    return bool(np.all(np.abs(steps - np.round(steps)) < 1e-3))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("model", BUILTINS)
def test_every_builtin_product_has_an_exact_reference(builtin_products, model, target):
    product = builtin_products[(model, target)]
    record = product.exact_record
    assert record.status == "exact", record.reason
    assert product.reference_kind == "exact" and product.reference == product.reference_exact
    assert all(kind is not None for kind in record.ops.values()), record.ops
    if target != "cortex-m55":
        assert record.ops["executorch_call_delegate"] == "tosa"
    exact = [load_array(t) for t in product.reference_exact]
    floats = [load_array(t) for t in product.reference_float]
    assert [(e.dtype, e.shape) for e in exact] == [(f.dtype, f.shape) for f in floats]
    for values, quantization in zip(exact, record.output_quantization, strict=True):
        assert quantization is not None and _on_grid(values, quantization)


def test_exact_reference_differs_from_the_float_run_quantized_graph_for_mv2(builtin_products):
    # The point: the quantized PyTorch graph run in float is not what the integer
    # program computes; mv2 shows it (the exact reference is what the device must match).
    product = builtin_products[("mv2", "cortex-m55")]
    exact = load_array(product.reference_exact[0])
    fake = load_array(product.reference_quantized[0])
    assert not judge([fake], [exact]).passed


def test_calibration_of_builtins_uses_several_samples(builtin_products):
    from orchestrator.aot.models.zoo import CALIBRATION_SAMPLES, calibration_samples
    from orchestrator.aot.models.zoo.add import build

    _, example = build()
    samples = calibration_samples(example)
    assert len(samples) == CALIBRATION_SAMPLES > 1 and samples[0] is example
    assert all(s[0].shape == example[0].shape for s in samples)
    assert not np.array_equal(samples[1][0].numpy(), samples[2][0].numpy())


def test_op_without_exact_host_implementation_is_named_and_falls_back(aot_scratch,
                                                                      model_file):
    needs_executorch()
    product = compile_request(request_for(str(model_file("exp_add.py")), "cortex-m55"),
                              aot_scratch)
    record = product.exact_record
    assert record.status == "fallback" and "aten::exp" in record.unsupported_ops
    assert "aten::exp" in record.reason
    assert product.reference_kind == "quantized" and not product.reference_exact


def test_float_program_keeps_tolerances(aot_scratch):
    product = compile_request(request_for("add", "cortex-m55", CompileChoices(quantize="none")),
                              aot_scratch)
    assert product.exact_record.status == "float" and product.reference_kind == "float"


QUANTIZED_DECOMPOSED = """
import torch

class QuantizedPortable(torch.nn.Module):
    def forward(self, x):
        q = torch.ops.quantized_decomposed.quantize_per_tensor(x * 3.0, 0.0123, -7, -128, 127,
                                                               torch.int8)
        y = torch.ops.quantized_decomposed.dequantize_per_tensor(q, 0.0123, -7, -128, 127,
                                                                 torch.int8)
        return torch.relu(y - 0.25)
"""


def test_cpu_program_with_portable_kernels_equals_executorchs_host_runtime():
    needs_executorch()
    import torch

    with warnings.catch_warnings():   # executorch/export use deprecated torch/importlib APIs
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        import executorch.kernels.quantized  # noqa: F401  registers the quantized kernels
        from executorch.exir import EdgeCompileConfig, to_edge
        from executorch.runtime import Runtime

        from orchestrator.exact.interpreter import ProgramRunner, program_ops
        from orchestrator.exact.ops import unsupported

        namespace: dict = {}
        exec(QUANTIZED_DECOMPOSED, namespace)
        model = namespace["QuantizedPortable"]()
        generator = torch.Generator().manual_seed(3)
        ties = (torch.arange(-40, 40, dtype=torch.float32) + 0.5) * 0.0123 / 3.0
        x = torch.cat([torch.rand(4000, generator=generator) * 2 - 1, ties]).reshape(1, -1)
        edge = to_edge(torch.export.export(model, (x,), strict=True),
                       compile_config=EdgeCompileConfig(_check_ir_validity=False))
        program = edge.exported_program()
        assert unsupported(program_ops(program.graph_module)) == []
        (exact,) = ProgramRunner(program, {}).run([x])
        loaded = Runtime.get().load_program(edge.to_executorch().buffer)
        (host,) = loaded.load_method("forward").execute([x])
    assert exact.dtype == host.dtype == torch.float32
    verdict = judge([host.numpy()], [exact.numpy()])
    assert verdict.passed, verdict.reason
