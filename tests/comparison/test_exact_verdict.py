"""Bit-exact verdicts (first and worst element named) and accuracy vs the float model (no
torch): a corrupted device output fails with its index; accuracy gates are off unless set."""

from __future__ import annotations

import math

import numpy as np

from orchestrator.comparison.accuracy import gate_failures, output_accuracy, top_k_agree
from orchestrator.comparison.departure import departure, judge
from orchestrator.comparison.thresholds import Thresholds
from orchestrator.results import Classification, Kind, RunResult, Status, validate
from orchestrator.results.summary_table import comparison_line
from orchestrator.runner.output_check import accuracy_of, apply_accuracy, apply_exact

STEP = np.float32(0.0125)


def _dequantized(steps: np.ndarray) -> np.ndarray:
    return (steps.astype(np.float32) * STEP).astype(np.float32)


def _passing() -> RunResult:
    return RunResult(status=Status.PASS, reason="ok", classification=Classification(
        kind=Kind.SUCCESS, summary="ok", next_step="-"))


def test_identical_outputs_are_exact() -> None:
    reference = _dequantized(np.arange(-8, 8).reshape(2, 8))
    verdict = judge([reference.copy()], [reference])
    assert verdict.passed and verdict.mismatches == 0 and verdict.first is None


def test_one_element_off_by_one_step_fails_naming_its_index() -> None:
    steps = np.arange(-20, 20).reshape(1, 4, 10)
    reference = _dequantized(steps)
    corrupted = steps.copy()
    corrupted[0, 2, 7] += 1
    verdict = judge([_dequantized(corrupted)], [reference])
    assert not verdict.passed and verdict.mismatches == 1
    assert verdict.first == verdict.worst
    assert verdict.first is not None and verdict.first.index == [0, 2, 7]
    assert math.isclose(verdict.first.device - verdict.first.reference, STEP, rel_tol=1e-6)
    assert "output 0[0, 2, 7]" in verdict.reason
    result = apply_exact(_passing(), verdict, "invoke run --target cortex-m55 --model add")
    assert result.status is Status.FAIL and result.classification.kind is Kind.OUTPUT_MISMATCH
    assert "[0, 2, 7]" in result.reason and "bit-exact" in result.reason
    assert result.comparison.first_mismatch.index == [0, 2, 7]
    assert "first at output 0[0, 2, 7]" in comparison_line(result.comparison)
    assert validate(result.to_dict()) is None


def test_first_and_worst_differ_when_a_later_element_is_further_off() -> None:
    reference = np.zeros((3, 3), dtype=np.int8)
    device = reference.copy()
    device[0, 1], device[2, 2] = 1, -5
    verdict = judge([device], [reference])
    assert verdict.first.index == [0, 1] and verdict.worst.index == [2, 2]
    assert verdict.worst.device == -5 and verdict.worst.reference == 0


def test_negative_zero_is_not_bit_exact() -> None:
    verdict = judge([np.array([-0.0], np.float32)], [np.array([0.0], np.float32)])
    assert not verdict.passed


def test_dtype_or_count_differences_fail_with_a_reason() -> None:
    ref = np.zeros(4, np.float32)
    assert "the exact reference has 1" in judge([ref, ref], [ref]).reason
    assert "float64" in judge([ref.astype(np.float64)], [ref]).reason


def test_accuracy_in_quantization_steps_and_top_k() -> None:
    reference = np.array([[0.1, 0.5, 0.2, 0.05, 0.3, 0.0]], np.float32)
    device = reference + np.array([[0.0125, 0.0, -0.025, 0.0, 0.0, 0.0]], np.float32)
    found = output_accuracy(0, device, reference, float(STEP))
    assert math.isclose(found.max_abs_steps, 2.0, rel_tol=1e-5)
    assert found.top1 is True and found.top5 is True and 20 < found.snr_db < 40
    swapped = np.array([[0.5, 0.1, 0.2, 0.05, 0.3, 0.0]], np.float32)
    assert top_k_agree(swapped, reference, 1) is False
    assert top_k_agree(swapped, reference, 5) is True
    assert top_k_agree(np.zeros(3, np.float32), np.zeros(3, np.float32), 5) is None


def test_accuracy_is_reported_but_gates_only_when_asked() -> None:
    reference = [np.array([[0.9, 0.1]], np.float32)]
    device = [np.array([[0.1, 0.9]], np.float32)]
    ungated = accuracy_of(device, reference, ({"scale": 0.1},), Thresholds())
    assert ungated.passed is None and ungated.outputs[0].top1 is False
    assert apply_accuracy(_passing(), ungated).status is Status.PASS
    gated = accuracy_of(device, reference, (None,),
                        Thresholds(min_snr_db=30.0, require_top1=True))
    assert gated.passed is False and "SNR" in gated.reason and "top-1" in gated.reason
    failed = apply_accuracy(_passing(), gated)
    assert failed.status is Status.FAIL and "accuracy below the gate" in failed.reason
    assert validate(failed.to_dict()) is None
    assert gate_failures([], Thresholds(min_snr_db=1.0)) == []


def test_gates_name_the_worst_snr_and_count_top1_disagreements() -> None:
    reference = np.array([[0.9, 0.1]], np.float32)
    outputs = [output_accuracy(0, reference.copy(), reference, None),
               output_accuracy(1, reference[:, ::-1].copy(), reference, None)]
    assert gate_failures(outputs, Thresholds()) == []
    reasons = gate_failures(outputs, Thresholds(min_snr_db=10.0, require_top1=True), "sample")
    assert reasons[0].startswith("SNR ") and "on sample 1 < 10 dB" in reasons[0]
    assert reasons[1] == "top-1 class differs from the float model on 1 of 2 samples"


def test_departure_of_one_array_keeps_integer_values_and_counts() -> None:
    reference = np.zeros((2, 3), np.int8)
    device = reference.copy()
    device[1, 0], device[1, 2] = 3, -7
    found = departure(device, reference)
    assert found is not None and (found.differing, found.elements, found.gap) == (2, 6, 7.0)
    assert found.to_json()["first"] == {"index": [1, 0], "device": 3, "reference": 0}
    assert found.to_json()["worst"] == {"index": [1, 2], "device": -7, "reference": 0}
    assert departure(reference.copy(), reference) is None


def test_a_named_output_is_named_in_the_verdict() -> None:
    reference = np.zeros(3, np.int32)
    device = reference.copy()
    device[1] = 2
    verdict = judge([reference, device], [reference, reference],
                    ["output[0]", "output['state'][1]"])
    assert verdict.first is not None and verdict.first.name == "output['state'][1]"
    assert "output['state'][1][1]: device 2" in verdict.reason
    shaped = judge([reference[:2]], [reference], ["output['y']"])
    assert shaped.reason.startswith("output['y'] is int32[2]")


def test_a_gate_names_the_output_by_its_path() -> None:
    reference = np.linspace(-1, 1, 16).astype(np.float32)
    found = output_accuracy(1, reference + 0.5, reference, None, "output['state'][0]")
    (reason,) = gate_failures([found], Thresholds(min_snr_db=60.0))
    assert "on output['state'][0] <" in reason


def test_a_tolerance_line_leaves_out_a_mean_it_was_not_given() -> None:
    """A bundled reference reports only its worst error: no "mean abs n/a" beside it."""
    from orchestrator.results.model import Comparison

    bundled = Comparison("bundled", passed=True, max_absolute_error=0.0)
    assert comparison_line(bundled) == "PASS vs bundled reference: max abs 0"
    both = Comparison("float", passed=True, max_absolute_error=0.5, mean_absolute_error=0.25)
    assert comparison_line(both).endswith("max abs 0.5, mean abs 0.25")
