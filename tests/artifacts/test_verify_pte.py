"""`invoke verify --pte` without a simulator: how a delegate meets the method's edges in an
artifact made by executorch's own APIs, the host side of the check (the delegate's inputs
built as the kernels quantize them, its outputs read back in quantized steps) catching a
single step, and the refusals (no Ethos-U delegate, another backend, another target)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orchestrator.artifacts.host_check import check_input_set, quantized
from orchestrator.artifacts.program import Quantization, QuantizeNode
from orchestrator.artifacts.run import case_inputs
from orchestrator.artifacts.verify import subject_of
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch


def node(scale: float, zero: int) -> QuantizeNode:
    return QuantizeNode("cortex_m::quantize_per_tensor.out", 0, 1,
                        Quantization(scale, zero, "int8"), -128, 127)


def test_quantize_rounds_half_to_even_in_float32_and_clamps() -> None:
    values = np.array([0.25, 0.75, -0.25, 100.0, -100.0, 0.1], dtype=np.float32)
    got, ambiguous = quantized(values, node(0.5, 3))
    # 0.5 -> 0 and 1.5 -> 2 (nearbyint: half to even), then + zero point, clamped to int8
    assert got.tolist() == [3, 5, 3, 127, -128, 3] and got.dtype == np.int8
    assert ambiguous == 0


@pytest.mark.slow
def test_delegate_wiring_of_an_executorch_program(foreign: dict[str, Path],
                                                  tmp_path: Path) -> None:
    subject = subject_of(foreign["bundled"], "", scratch(tmp_path))
    assert subject.target == "ethos-u85-128" and len(subject.input_sets) == 3
    (wiring,) = subject.wirings
    (edge_in,) = wiring.inputs
    (edge_out,) = wiring.outputs
    assert edge_in.position == 0 and edge_in.node is not None
    assert edge_in.node.op == "cortex_m::quantize_per_tensor.out"
    assert edge_out is not None and edge_out.node is not None and edge_out.node.dequantizes
    assert "bundle's 3 test cases" in subject.inputs_from


@pytest.mark.slow
def test_host_check_catches_one_quantized_step(foreign: dict[str, Path],
                                               tmp_path: Path) -> None:
    """The device's float outputs, made here by dequantizing the host's own integers as the
    kernel does, agree; one element moved by one step is found, and a float that is no
    dequantized step is named."""
    subject = subject_of(foreign["bundled"], "", scratch(tmp_path))
    (wiring,) = subject.wirings
    edge = wiring.outputs[0]
    assert edge is not None and edge.node is not None
    quant = edge.node.quantization
    inputs = case_inputs(subject.inspection.bundle.suites[0])[1]   # type: ignore[union-attr]

    def device_for(steps: np.ndarray) -> list[np.ndarray]:
        return [((steps.astype(np.int32) - quant.zero_point) * np.float32(quant.scale))
                .astype(np.float32)]

    from orchestrator.artifacts.host_check import delegate_inputs
    from orchestrator.npu_model.execute import run_program

    arrays, _ = delegate_inputs(wiring, inputs)
    host = np.frombuffer(run_program(subject.programs[0], subject.npu, arrays)[0], np.int8)
    checks, _ = check_input_set(1, inputs, device_for(host), subject.wirings,
                                subject.programs, subject.npu)
    assert [(c.case, c.exact, c.elements, c.compared) for c in checks] == [
        (1, True, 10, "quantized steps")]
    moved = host.astype(np.int32).copy()
    moved[4] += 1 if moved[4] < 127 else -1
    (check,), _ = check_input_set(1, inputs, device_for(moved), subject.wirings,
                                  subject.programs, subject.npu)
    assert (check.exact, check.differing, check.max_steps) == (False, 1, 1)
    off_step = device_for(host)
    off_step[0][0] += np.float32(quant.scale) * np.float32(0.5)
    (check,), _ = check_input_set(1, inputs, off_step, subject.wirings, subject.programs,
                                  subject.npu)
    assert not check.exact and check.note is not None and "not a dequantized step" in check.note


@pytest.mark.slow
@pytest.mark.parametrize(("key", "given", "says"), [
    ("cpu", "", "has no Ethos-U delegate"),
    ("xnnpack", "", "XnnpackBackend"),
    ("ethos-u55-128", "ethos-u85-128", "compiled for ethos-u55-128, not ethos-u85-128"),
])
def test_what_cannot_be_verified_is_refused(foreign: dict[str, Path], tmp_path: Path,
                                            key: str, given: str, says: str) -> None:
    with pytest.raises(OrchestratorError, match=says) as error:
        subject_of(foreign[key], given, scratch(tmp_path))
    assert error.value.next_step is not None and "invoke " in error.value.next_step
