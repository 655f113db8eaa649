"""The CPU lane's op-by-op comparison on a real recorded run (convnet on the Cortex-M55 under
QEMU with --intermediates, see tests/fixtures/etdump/README.md): the device's operator outputs
equal the exact reference's; a hand-made departure in one intermediate is located at that
operator, with its first and worst element and both values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orchestrator.exact.intermediates import load_intermediates
from orchestrator.profile.intermediates import describe, device_intermediates, first_departure

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "etdump"
RUN = FIXTURES / "convnet-cortex-m55-qemu-intermediates"


@pytest.fixture(scope="module")
def device():
    return device_intermediates(RUN.with_suffix(".etdump"), RUN.with_suffix(".debug_buffer"))


@pytest.fixture
def reference():
    return load_intermediates(FIXTURES / "convnet-cortex-m55-reference-intermediates.npz")


def test_device_outputs_come_in_execution_order_with_their_layout(device):
    assert [name for name, _ in device] == [
        "quantize_per_tensor.out", "quantized_conv2d.out", "quantized_max_pool2d.out",
        "quantized_conv2d.out", "quantized_avg_pool2d.out", "quantized_linear.out",
        "dequantize_per_tensor.out"]
    assert device[1][1].shape == (1, 8, 32, 32) and device[1][1].dtype == np.int8


def test_an_exact_run_reports_no_departure(device, reference):
    comparison = first_departure(device, reference)
    assert comparison["departure"] is None and comparison["compared"] == 7
    assert "every one of 7" in describe(comparison)


def test_a_changed_intermediate_is_located_at_its_operator(device, reference):
    convs = [i for i, (op, _) in enumerate(reference) if op == "cortex_m::quantized_conv2d"]
    op, values = reference[convs[1]]
    changed = values.copy()
    changed[0, 5, 3, 7] = np.int8(changed[0, 5, 3, 7] ^ 0x10)
    changed[0, 9, 0, 0] = np.int8(-128 if changed[0, 9, 0, 0] > 0 else 127)
    reference[convs[1]] = (op, changed)
    departure = first_departure(device, reference)["departure"]
    assert departure["operator_index"] == 3 and departure["operator"] == "quantized_conv2d.out"
    assert departure["differing"] == 2
    assert departure["first"]["index"] == [0, 5, 3, 7]
    assert departure["first"]["device"] == float(values[0, 5, 3, 7])
    assert departure["first"]["reference"] == float(changed[0, 5, 3, 7])
    assert departure["worst"]["index"] == [0, 9, 0, 0]
    assert "operator 3 (quantized_conv2d.out) is the first" in describe(
        first_departure(device, reference))


def test_an_earlier_departure_wins(device, reference):
    op, values = reference[0]
    reference[0] = (op, values + np.int8(1))
    departure = first_departure(device, reference)["departure"]
    assert departure["operator_index"] == 0 and departure["differing"] == values.size
