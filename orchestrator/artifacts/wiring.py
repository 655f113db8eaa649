"""How a method's Ethos-U delegates meet its inputs and outputs: which method input (through
which quantize node, if any) each delegate input is, and which method output (through which
dequantize node) each delegate output becomes. Host verify of an artifact rebuilds a
delegate's inputs from the method's only where this is known; anything the CPU computes in
between is named instead (a .pte holds no reference for it)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.artifacts.ethosu import is_ethosu
from orchestrator.artifacts.program import Method, QuantizeNode


@dataclass(frozen=True)
class Edge:
    """One delegate input or output at the method's edge: the method input or output's
    position and the quantize (input) or dequantize (output) node between them, if any."""

    position: int
    node: QuantizeNode | None


@dataclass(frozen=True)
class DelegateWiring:
    """One Ethos-U delegate call: its delegate index, its inputs' edges, and per output the
    edge it reaches (None: the output feeds more CPU work, not a method output)."""

    delegate: int
    inputs: tuple[Edge, ...]
    outputs: tuple[Edge | None, ...]


class WiringError(ValueError):
    """A delegate input the method computes on the CPU (one clause why)."""


def _input_edge(method: Method, value: int, producers: dict[int, QuantizeNode]) -> Edge:
    if value in method.input_values:
        return Edge(method.input_values.index(value), None)
    node = producers.get(value)
    if node is not None and not node.dequantizes and node.source in method.input_values:
        return Edge(method.input_values.index(node.source), node)
    raise WiringError(f"value {value} is computed on the CPU from more than one method input "
                      f"or by an operator other than a quantize node")


def _output_edge(method: Method, value: int, readers: dict[int, QuantizeNode]) -> Edge | None:
    if value in method.output_values:
        return Edge(method.output_values.index(value), None)
    node = readers.get(value)
    if node is not None and node.dequantizes and node.result in method.output_values:
        return Edge(method.output_values.index(node.result), node)
    return None


def delegate_wiring(method: Method, io_counts: list[tuple[int, int]]) -> list[DelegateWiring]:
    """Every Ethos-U delegate call of `method` (`io_counts`: each Ethos-U delegate's number of
    inputs and outputs, in delegate order); WiringError names a delegate input the method's
    inputs do not give directly or through one quantize node."""
    producers = {node.result: node for node in method.quantize_nodes}
    readers = {node.source: node for node in method.quantize_nodes}
    ethosu = [index for index, d in enumerate(method.delegates) if is_ethosu(d.backend)]
    wirings = []
    for call in method.delegate_calls:
        if call.delegate not in ethosu:
            continue
        count_in, count_out = io_counts[ethosu.index(call.delegate)]
        if len(call.args) < count_in + count_out:
            raise WiringError(f"delegate {call.delegate} is called with {len(call.args)} "
                              f"values, fewer than its {count_in} inputs and {count_out} outputs")
        try:
            inputs = tuple(_input_edge(method, value, producers)
                           for value in call.args[:count_in])
        except WiringError as error:
            raise WiringError(f"delegate {call.delegate}'s input: {error}") from error
        outputs = tuple(_output_edge(method, value, readers)
                        for value in call.args[count_in:count_in + count_out])
        wirings.append(DelegateWiring(call.delegate, inputs, outputs))
    return wirings
