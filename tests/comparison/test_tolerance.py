"""The tolerance comparison with the host reference: numbers, exactness, SNR, top-1,
PASS/FAIL."""

from __future__ import annotations

import math

import numpy as np

from orchestrator.comparison.thresholds import Thresholds
from orchestrator.comparison.tolerance import compare_outputs


def test_identical_float_outputs_pass_with_infinite_snr():
    ref = np.array([[0.1, 0.7, 0.2]], dtype=np.float32)
    result = compare_outputs([ref.copy()], [ref])
    (out,) = result.outputs
    assert result.passed and out.exact and out.max_abs_error == 0.0
    assert math.isinf(out.snr_db) and out.top1_match is True
    assert out.to_json()["snr_db"] is None


def test_float_error_beyond_tolerance_fails_with_numbers():
    ref = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    got = ref + np.array([0.0, 0.5, 0.0], dtype=np.float32)
    result = compare_outputs([got], [ref], Thresholds(atol=1e-3, rtol=0.0))
    (out,) = result.outputs
    assert not result.passed
    assert out.max_abs_error == 0.5 and abs(out.mean_abs_error - 0.5 / 3) < 1e-9
    assert "max abs error 0.5" in out.reason
    assert 10 < out.snr_db < 20


def test_integer_outputs_must_be_exact():
    ref = np.array([1, -2, 3], dtype=np.int8)
    assert compare_outputs([ref.copy()], [ref]).passed
    off = compare_outputs([np.array([1, -2, 4], dtype=np.int8)], [ref])
    assert not off.passed and "integer output differs" in off.outputs[0].reason


def test_top1_is_reported_and_the_accuracy_gates_are_checked_apart():
    ref = np.array([[0.1, 0.9, 0.0]], dtype=np.float32)
    swapped = np.array([[0.9, 0.1, 0.0]], dtype=np.float32)
    loose = Thresholds(atol=1.0, rtol=0.0)
    assert compare_outputs([swapped], [ref], loose).passed
    assert compare_outputs([swapped], [ref], loose).outputs[0].top1_match is False
    gated = Thresholds(atol=1.0, rtol=0.0, min_snr_db=20.0, require_top1=True)
    assert compare_outputs([swapped], [ref], gated).passed   # gates: comparison.accuracy


def test_shape_and_count_mismatches_fail():
    ref = np.zeros((2, 2), dtype=np.float32)
    assert "shape" in compare_outputs([np.zeros(4, np.float32)], [ref]).outputs[0].reason
    result = compare_outputs([], [ref])
    assert not result.passed and "0 outputs" in result.reason


def test_quantized_reference_allows_qtol_quantization_steps():
    step = 0.25
    ref = np.array([[-1.0, -0.5, 0.0, 0.25, 1.0]], dtype=np.float32)
    one_step = ref + np.array([[0.0, step, 0.0, 0.0, 0.0]], dtype=np.float32)
    assert compare_outputs([one_step], [ref], quantized=True).passed
    (out,) = compare_outputs([one_step], [ref], quantized=True).outputs
    assert out.quant_step == step and out.quant_steps == 1.0
    three_steps = ref + np.array([[0.0, 3 * step, 0.0, 0.0, 0.0]], dtype=np.float32)
    assert not compare_outputs([three_steps], [ref], quantized=True).passed
    assert compare_outputs([three_steps], [ref], Thresholds(qtol=3.0), quantized=True).passed
    assert not compare_outputs([one_step], [ref], quantized=False).passed


def test_exact_means_the_same_bits_where_the_dtypes_agree() -> None:
    """-0.0 is within every tolerance of 0.0 but is not the same output bit for bit."""
    import numpy as np

    from orchestrator.comparison.tolerance import compare_outputs

    zero, minus_zero = np.zeros(3, np.float32), np.array([0.0, -0.0, 0.0], np.float32)
    signed = compare_outputs([minus_zero], [zero]).outputs[0]
    assert signed.passed and not signed.exact
    nan = np.array([np.nan, 1.0], np.float32)
    assert compare_outputs([nan], [nan.copy()]).outputs[0].exact
    assert compare_outputs([np.ones(2, np.int8)], [np.ones(2, np.int16)]).outputs[0].exact
