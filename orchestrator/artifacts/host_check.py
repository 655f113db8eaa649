"""One input set of an artifact on the host's NPU model, checked against what the
device gave back for the same inputs, bit for bit.

Each Ethos-U delegate's inputs are rebuilt as the program builds them on the device: a method
input copied as it is, or quantized as its quantize kernel does (portable quantized and
cortex_m alike: inv = 1.0f / (float)scale; q = zero_point + nearbyint(inv * x), float32
product, clamped). Each delegate output reaching a method output is compared as stored: bytes
for a direct output; for a dequantized one, the device's floats read back in quantized steps
((x / scale) + zero_point, which a dequantize kernel's float error cannot move by half a step)
against the host's integers. There is no TOSA in a .pte: the reference here is the device."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.artifacts.program import QuantizeNode
from orchestrator.artifacts.wiring import DelegateWiring, Edge
from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.runner.areas import InputTensor

STEP_SLACK = 0.01   # a device float further than this from a whole step is not dequantized


@dataclass(frozen=True)
class HostCheck:
    """One delegate output that reaches a method output, for one input set."""

    case: int
    delegate: int
    output: int              # the delegate's output position
    method_output: int
    compared: str            # "bytes" or "quantized steps"
    elements: int
    differing: int
    max_steps: int           # the largest difference, in quantized steps (bytes: int units)
    note: str | None = None  # why the output could not be compared element by element

    @property
    def exact(self) -> bool:
        return self.differing == 0 and self.note is None

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "delegate": self.delegate, "output": self.output,
                "method_output": self.method_output, "compared": self.compared,
                "exact": self.exact, "elements": self.elements, "differing": self.differing,
                "max_steps": self.max_steps, "note": self.note}


def quantized(values: np.ndarray[Any, Any], node: QuantizeNode) -> tuple[np.ndarray[Any, Any],
                                                                          int]:
    """`values` quantized as the kernel does, and how many elements round otherwise when the
    product is rounded once (a fused multiply-add path, as Helium's kernel takes)."""
    inverse = np.float32(1.0) / np.float32(node.quantization.scale)
    floats = values.astype(np.float32)
    product = (floats * inverse).astype(np.float32)
    steps = np.rint(product).astype(np.int64)
    fused = np.rint(floats.astype(np.float64) * np.float64(inverse)).astype(np.int64)
    zero = node.quantization.zero_point
    clamped = np.clip(steps + zero, node.quant_min, node.quant_max)
    return clamped.astype(node.quantization.dtype), int(np.count_nonzero(steps != fused))


def delegate_inputs(wiring: DelegateWiring, inputs: Sequence[InputTensor]
                    ) -> tuple[list[np.ndarray[Any, Any]], int]:
    """The delegate's inputs for one input set (bytes in the inputs' memory order, as the
    delegate copies them), and the count of elements whose rounding depends on the path."""
    arrays, ambiguous = [], 0
    for edge in wiring.inputs:
        given = inputs[edge.position]
        array = np.frombuffer(given.data, dtype=np.dtype(given.dtype).newbyteorder("<"))
        if edge.node is not None:
            array, count = quantized(array, edge.node)
            ambiguous += count
        arrays.append(array)
    return arrays, ambiguous


def compare_output(case: int, wiring: DelegateWiring, position: int, edge: Edge, host: bytes,
                   device: np.ndarray[Any, Any]) -> HostCheck:
    """The host's raw delegate output against the device's method output."""
    def check(compared: str, differing: int, steps: int, note: str | None = None) -> HostCheck:
        return HostCheck(case, wiring.delegate, position, edge.position, compared,
                         int(device.size), differing, steps, note)

    if edge.node is None:
        if len(host) != device.nbytes:
            return check("bytes", 0, 0, f"the delegate writes {len(host)} bytes, the output "
                         f"holds {device.nbytes} (a packed or padded layout)")
        want = np.frombuffer(host, dtype=device.dtype)
        got = device.reshape(-1)
        differ = got != want
        gap = (np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
               if differ.any() else 0)
        return check("bytes", int(differ.sum()), int(gap))
    quant = edge.node.quantization
    want = np.frombuffer(host, dtype=np.dtype(quant.dtype)).astype(np.int64)
    if want.size != device.size:
        return check("quantized steps", 0, 0, f"the delegate writes {want.size} elements, "
                     f"the output holds {device.size}")
    steps = device.reshape(-1).astype(np.float64) / quant.scale + quant.zero_point
    whole = np.rint(steps)
    if np.abs(steps - whole).max(initial=0.0) > STEP_SLACK:
        return check("quantized steps", 0, 0, "the device's output is not a dequantized "
                     f"step of scale {quant.scale}")
    gaps = np.abs(whole.astype(np.int64) - want)
    return check("quantized steps", int(np.count_nonzero(gaps)), int(gaps.max(initial=0)))


def check_input_set(case: int, inputs: Sequence[InputTensor],
                    device_outputs: Sequence[np.ndarray[Any, Any]],
                    wirings: Sequence[DelegateWiring], programs: Mapping[int, VelaProgram],
                    npu: Npu) -> tuple[list[HostCheck], int]:
    """Every delegate of one input set on the NPU model (`programs`: each Ethos-U
    delegate's command stream by its index in the method), against the device's outputs."""
    checks: list[HostCheck] = []
    ambiguous = 0
    for wiring in wirings:
        arrays, count = delegate_inputs(wiring, inputs)
        ambiguous += count
        raw = run_program(programs[wiring.delegate], npu, arrays)
        for position, (edge, host) in enumerate(zip(wiring.outputs, raw, strict=True)):
            if edge is not None and edge.position < len(device_outputs):
                checks.append(compare_output(case, wiring, position, edge, host,
                                             device_outputs[edge.position]))
    return checks, ambiguous
