"""The scalar = DSP = MVE check's verdicts (orchestrator/runner/isa_agreement.py) on run
results as the runner reads them: equal outputs agree, a differing output is named with its
first element, operator outputs (--intermediates) name the first differing operator, and a
run without them says which command would. The device runs themselves are in
test_runner_qemu_cortex_m.py (with sources)."""

from __future__ import annotations

import numpy as np
import pytest

from orchestrator.results import RunResult, Status
from orchestrator.results.model import Classification, Kind, OutputTensor, TargetInfo
from orchestrator.runner.isa_agreement import agreement, first_differing_operator


def _result(cpu: str, backend: str, values: list[int]) -> RunResult:
    return RunResult(Status.PASS, "ran", Classification(Kind.SUCCESS, "ran", "none"),
                     target=TargetInfo(name=cpu, options={"cortex_m": {
                         "cpu": cpu, "cmsis_nn_backend": backend}}),
                     outputs=[OutputTensor(index=0, dtype="int8", shape=[2, 2], values=values,
                                           exact=True)])


def test_bit_identical_outputs_agree() -> None:
    runs = [_result("cortex-m3", "SCALAR", [1, 2, 3, 4]),
            _result("cortex-m4", "DSP", [1, 2, 3, 4]),
            _result("cortex-m55", "MVE", [1, 2, 3, 4])]
    found = agreement(runs)
    assert found.agreed
    assert found.sentence() == ("bit-identical outputs on cortex-m3 (SCALAR) = cortex-m4 (DSP) "
                                "= cortex-m55 (MVE)")


def test_a_differing_output_is_named_with_its_first_element_and_the_next_command() -> None:
    runs = [_result("cortex-m3", "SCALAR", [1, 2, 3, 4]),
            _result("cortex-m55", "MVE", [1, 2, 5, 4])]
    found = agreement(runs)
    assert not found.agreed
    assert found.differences == (
        "cortex-m55 (MVE) differs from cortex-m3 (SCALAR): output 0: 1/4 elements differ, "
        "first at [1, 0] this 5 vs that 3, worst at [1, 0] this 5 vs that 3; run both again "
        "with --intermediates to name the first operator",)


def test_intermediates_name_the_first_operator_whose_output_differs() -> None:
    conv = np.array([[1, 2], [3, 4]], dtype=np.int8)
    first = [("cortex_m::quantized_conv2d", conv), ("cortex_m::quantized_add", conv + 1)]
    second = [("cortex_m::quantized_conv2d", conv),
              ("cortex_m::quantized_add", conv + np.array([[1, 1], [1, 2]], dtype=np.int8))]
    assert first_differing_operator(first, second) == (
        "operator 1 (cortex_m::quantized_add) is the first whose output differs: 1/4 elements "
        "differ, first at [1, 1] this 6 vs that 5, worst at [1, 1] this 6 vs that 5")
    assert first_differing_operator(first, first) == "every one of 2 operator outputs is equal"


def test_a_run_read_inexactly_cannot_be_checked() -> None:
    printed = _result("cortex-m4", "DSP", [1, 2, 3, 4])
    printed.outputs[0].exact = False
    with pytest.raises(ValueError, match="not read exactly"):
        agreement([_result("cortex-m3", "SCALAR", [1, 2, 3, 4]), printed])
