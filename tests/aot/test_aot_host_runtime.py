"""Run compiled programs in ExecuTorch's host runtime: products agree with their references,
and the per-channel zero-point workaround fixes the v1.4.1 kernel bug it targets."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from aot_cases import needs_executorch

from orchestrator.aot import compile_request, request_for
from orchestrator.aot.tensors import load_array
from orchestrator.options.compile import CompileChoices

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]

# A program whose only kernel is quantized_decomposed::dequantize_per_channel with int32
# zero points; argv[1] == "widen" applies the workaround before emitting.
PER_CHANNEL_PROGRAM = """
import sys
import torch
import executorch.kernels.quantized  # noqa: F401  registers the quantized kernels
from executorch.exir import EdgeCompileConfig, to_edge
from executorch.runtime import Runtime
from orchestrator.aot.lower.lowering import widen_zero_points
from orchestrator.options.compile import CompileChoices

class PerChannel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.tensor([[10, 20], [30, 40], [50, 60]], dtype=torch.int8))
        self.register_buffer("scales", torch.tensor([0.5, 0.25, 2.0]))
        self.register_buffer("zp", torch.tensor([1, -2, 3], dtype=torch.int32))

    def forward(self, x):
        return x + torch.ops.quantized_decomposed.dequantize_per_channel(
            self.w, self.scales, self.zp, 0, -128, 127, torch.int8)

x = torch.zeros(3, 2)
model = PerChannel()
edge = to_edge(torch.export.export(model, (x,), strict=True),
               compile_config=EdgeCompileConfig(_check_ir_validity=False))
if sys.argv[1] == "widen":
    assert widen_zero_points(edge.exported_program()) == 1
program = Runtime.get().load_program(edge.to_executorch().buffer)
method = program.load_method("forward")
torch.testing.assert_close(method.execute([x])[0], model(x))
print("MATCH")
"""


def _run_per_channel(mode: str) -> subprocess.CompletedProcess[str]:
    needs_executorch()
    return subprocess.run([sys.executable, "-c", PER_CHANNEL_PROGRAM, mode], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def test_int32_zero_points_still_break_the_v141_kernel() -> None:
    done = _run_per_channel("as-is")
    assert done.returncode != 0
    assert "zero_point must be" in done.stdout + done.stderr


def test_widened_zero_points_give_the_eager_result() -> None:
    done = _run_per_channel("widen")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "MATCH" in done.stdout


def test_float_cortex_m_program_reproduces_its_reference_on_host(aot_scratch) -> None:
    needs_executorch()
    import torch

    with warnings.catch_warnings():   # executorch.runtime uses deprecated importlib APIs
        warnings.simplefilter("ignore", DeprecationWarning)
        from executorch.runtime import Runtime

    product = compile_request(request_for("convnet", "cortex-m55", CompileChoices(quantize="none")),
                              aot_scratch)
    assert any("aten.linear decomposed" in note for note in product.manifest["known_issues"])
    operators = product.manifest["program"]["methods"]["forward"]["operators"]
    assert "aten::addmm.out" in operators and "aten::linear.out" not in operators
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        program = Runtime.get().load_program(product.pte.read_bytes())  # keep it alive
        method = program.load_method("forward")
    inputs = [torch.from_numpy(np.ascontiguousarray(load_array(t))) for t in product.inputs]
    (output,) = method.execute(inputs)
    np.testing.assert_allclose(output.numpy(), load_array(product.reference[0]),
                               rtol=1e-4, atol=1e-5)
