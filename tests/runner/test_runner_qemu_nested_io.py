"""Nested inputs and outputs end to end on QEMU (real compiles, runner builds and runs): a
model taking (x, (h, (scale, lengths))) with an int32 leaf and giving {"y": ...,
"state": ((h', lengths'), steps)}. The device takes the leaves flattened in the program's
order; every output comes back named by its path and equal to the exact reference bit for
bit, on the CPU lane (cortex-m55) and the NPU lane (ethos-u85-128, NPU model)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from orchestrator.aot.products import load_product
from orchestrator.aot.tensors import load_array
from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import from_cli
from orchestrator.results import Status

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]

MODEL = Path(__file__).resolve().parents[1] / "aot" / "models" / "nested_io.py"
INPUT_NAMES = ["inputs[0]", "inputs[1][0]", "inputs[1][1][0]", "inputs[1][1][1]"]
OUTPUT_NAMES = ["output['y']", "output['state'][0][0]", "output['state'][0][1]",
                "output['state'][1]"]


@pytest.mark.parametrize("target", ["cortex-m55", "ethos-u85-128"])
def test_nested_model_runs_bit_exact_with_named_leaves(runner_scratch, runtime_sources,
                                                       target):
    request = RunRequest(target=target, app="runner", sim="qemu", model=str(MODEL),
                         timeout_s=600.0, idle_timeout_s=300.0,
                         runner=replace(RunnerSettings(), sources=runtime_sources),
                         compile=from_cli(CompileChoices, {"quantize": "int8"}))
    result = execute(request, runner_scratch)
    assert result.status is Status.PASS, result.reason
    assert result.comparison.reference == "exact" and result.comparison.exact is True
    product = load_product(Path(result.target.options["product"]))
    assert product is not None
    assert [t.name for t in product.inputs] == INPUT_NAMES
    assert [t.dtype for t in product.inputs][-1] == "int32"
    assert [t.name for t in product.reference_exact] == OUTPUT_NAMES
    assert [o.name for o in result.outputs] == OUTPUT_NAMES
    assert [o.name for o in result.accuracy.outputs] == OUTPUT_NAMES
    # the integer leaves, checked by value: lengths + 1 and lengths * 2 of the example's [7, 3]
    lengths = load_array(product.inputs[3])
    by_name = {o.name: o for o in result.outputs}
    assert by_name["output['state'][0][1]"].values == (lengths + 1).tolist()
    assert by_name["output['state'][1]"].values == (lengths * 2).tolist()
    np.testing.assert_array_equal(lengths, np.array([7, 3], np.int32))
