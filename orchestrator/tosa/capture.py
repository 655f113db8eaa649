"""Record each Ethos-U partition's TOSA flatbuffer while ExecuTorch lowers (imports executorch).

EthosUBackend.preprocess turns a partition into a TOSA flatbuffer and hands it to Vela via
EthosUBackend._compile_tosa_flatbuffer. `recording_flatbuffers` wraps that one call to keep
(TOSA bytes, Vela binary) pairs; `store_partitions` then matches every delegate call of the
lowered program to its pair through the Vela binary it carries, so each partition gets the
exact graph Vela compiled, whatever order the partitions were lowered in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.tosa.graph import GraphTensor, graph_interface
from orchestrator.tosa.partitions import (
    Partition,
    PartitionTensor,
    Quantization,
    partition_path,
)
from orchestrator.tosa.vela_result import stream_bytes

DELEGATE_CALL = "executorch_call_delegate"
ETHOSU_BACKEND = "EthosUBackend"


@dataclass(frozen=True)
class Compiled:
    """One TOSA flatbuffer and the Vela binary it became."""

    tosa: bytes
    binary: bytes


@contextlib.contextmanager
def recording_flatbuffers() -> Iterator[list[Compiled]]:
    """Within the block, every TOSA flatbuffer handed to Vela is appended to the list."""
    from executorch.backends.arm.ethosu.backend import EthosUBackend

    original = EthosUBackend.__dict__["_compile_tosa_flatbuffer"]
    recorded: list[Compiled] = []

    def recording(tosa_flatbuffer: bytes, compile_spec: Any) -> Any:
        result = original.__func__(tosa_flatbuffer, compile_spec)
        recorded.append(Compiled(bytes(tosa_flatbuffer), stream_bytes(result)))
        return result   # as the release returns it (bytes, or a VelaCompileResult)

    EthosUBackend._compile_tosa_flatbuffer = staticmethod(recording)
    try:
        yield recorded
    finally:
        EthosUBackend._compile_tosa_flatbuffer = original


def _quantization(node: Any, op: str) -> Quantization | None:
    """Per-tensor parameters of `node` if it is a `op` (quantize/dequantize_per_tensor)."""
    if node.op != "call_function" or f"{op}_per_tensor" not in str(node.target):
        return None
    scale, zero_point, quant_min, quant_max, dtype = node.args[1:6]
    return Quantization(scale=float(scale), zero_point=int(zero_point),
                        quant_min=int(quant_min), quant_max=int(quant_max),
                        dtype=str(dtype).removeprefix("torch."))


def _output_quantization(getitem: Any | None) -> Quantization | None:
    for user in getitem.users if getitem is not None else ():
        found = _quantization(user, "dequantize")
        if found is not None:
            return found
    return None


def _input_tensors(call: Any, lowered: Any, graph: tuple[GraphTensor, ...]
                   ) -> tuple[PartitionTensor, ...]:
    by_user_input = dict(zip(lowered.original_module.graph_signature.user_inputs,
                             call.args[1:], strict=True))
    tensors = []
    for tensor in graph:
        argument = by_user_input[tensor.name]
        tensors.append(PartitionTensor(name=argument.name, tosa_name=tensor.name,
                                       dtype=tensor.dtype, shape=tensor.shape,
                                       quantization=_quantization(argument, "quantize")))
    return tuple(tensors)


def _output_tensors(call: Any, graph: tuple[GraphTensor, ...]) -> tuple[PartitionTensor, ...]:
    getitems = {user.args[1]: user for user in call.users if "getitem" in str(user.target)}
    tensors = []
    for index, tensor in enumerate(graph):
        getitem = getitems.get(index)
        tensors.append(PartitionTensor(
            name=getitem.name if getitem is not None else f"{call.name}[{index}]",
            tosa_name=tensor.name, dtype=tensor.dtype, shape=tensor.shape,
            quantization=_output_quantization(getitem)))
    return tuple(tensors)


def delegate_calls(graph_module: Any) -> list[tuple[Any, Any]]:
    """(call node, LoweredBackendModule) of every delegate call, in graph order."""
    return [(node, getattr(graph_module, node.args[0].target))
            for node in graph_module.graph.nodes
            if node.op == "call_function" and DELEGATE_CALL in str(node.target)]


def _tosa_for(lowered: Any, recorded: list[Compiled]) -> bytes:
    for compiled in recorded:
        if compiled.binary == bytes(lowered.processed_bytes):
            return compiled.tosa
    raise RuntimeError("an Ethos-U delegate's Vela binary matches no recorded TOSA graph")


def store_partitions(graph_module: Any, recorded: list[Compiled],
                     product_directory: Path) -> list[Partition]:
    """Write each Ethos-U partition's TOSA flatbuffer into the product and describe it."""
    partitions: list[Partition] = []
    for call, lowered in delegate_calls(graph_module):
        if lowered.backend_id != ETHOSU_BACKEND:
            continue
        tosa = _tosa_for(lowered, recorded)
        path = partition_path(product_directory, len(partitions))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(tosa)
        interface = graph_interface(tosa)
        partitions.append(Partition(
            index=len(partitions), delegate=call.name, backend=lowered.backend_id,
            tosa_path=path, inputs=_input_tensors(call, lowered, interface.inputs),
            outputs=_output_tensors(call, interface.outputs)))
    return partitions
