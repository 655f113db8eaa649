"""The interface of a TOSA flatbuffer: its main block's input and output tensors, and which
operator produces each tensor (no torch)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.tosa.reference_model import INSTALL_HINT

# tosa.DType values -> numpy dtype names (the types an Ethos-U partition can carry).
NUMPY_DTYPES = {1: "bool", 3: "int8", 4: "int16", 5: "int32", 7: "float32", 8: "float16",
                17: "int64"}


@dataclass(frozen=True)
class GraphTensor:
    """One input or output tensor of a TOSA graph."""

    name: str
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class GraphInterface:
    """The main block's inputs and outputs, in the order the reference model takes them."""

    inputs: tuple[GraphTensor, ...]
    outputs: tuple[GraphTensor, ...]


def _main_block(tosa: bytes) -> Any:
    try:
        from tosa.TosaGraph import TosaGraph
    except ImportError as error:
        raise OrchestratorError(f"the TOSA flatbuffer reader (tosa-tools) is not installed: "
                                f"{error}", INSTALL_HINT) from None
    try:
        graph = TosaGraph.GetRootAs(tosa, 0)
        return graph.Regions(0).Blocks(0)
    except Exception as error:  # noqa: BLE001 - any flatbuffer decode failure
        raise OrchestratorError(f"the bytes are not a TOSA flatbuffer ({error})",
                                "recompile the model: invoke compile --model <model>") from None


def _tensor(block: Any, name: str) -> GraphTensor:
    for index in range(block.TensorsLength()):
        tensor = block.Tensors(index)
        if tensor.Name().decode() == name:
            dtype = NUMPY_DTYPES.get(tensor.Type(), f"tosa-dtype-{tensor.Type()}")
            shape = tuple(int(d) for d in tensor.ShapeAsNumpy()) if tensor.ShapeLength() else ()
            return GraphTensor(name=name, dtype=dtype, shape=shape)
    raise OrchestratorError(f"the TOSA graph names tensor {name} but does not define it",
                            "recompile the model: invoke compile --model <model>")


def graph_interface(tosa: bytes) -> GraphInterface:
    """Names, numpy dtypes and shapes of the graph's inputs and outputs."""
    block = _main_block(tosa)
    inputs = [block.Inputs(i).decode() for i in range(block.InputsLength())]
    outputs = [block.Outputs(i).decode() for i in range(block.OutputsLength())]
    return GraphInterface(inputs=tuple(_tensor(block, name) for name in inputs),
                          outputs=tuple(_tensor(block, name) for name in outputs))


@dataclass(frozen=True)
class TosaOperator:
    """One operator of the main block: its TOSA name and the tensors it reads and writes."""

    op: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def main_operators(tosa: bytes) -> list[TosaOperator]:
    """The main block's operators in order, named by their TOSA op (CONV2D, RESCALE, ...)."""
    from tosa.Op import Op

    names = {value: key for key, value in vars(Op).items() if not key.startswith("_")}
    block = _main_block(tosa)
    found = []
    for index in range(block.OperatorsLength()):
        operator = block.Operators(index)
        found.append(TosaOperator(
            names.get(operator.Op(), f"op-{operator.Op()}"),
            tuple(operator.Inputs(i).decode() for i in range(operator.InputsLength())),
            tuple(operator.Outputs(i).decode() for i in range(operator.OutputsLength()))))
    return found


def gather_index_inputs(tosa: bytes) -> dict[str, int]:
    """Graph inputs a GATHER reads as its indices, each with the rows of the table it indexes
    (TOSA GATHER: values N x K x C, indices N x W in 0..K-1; an index outside is undefined)."""
    block = _main_block(tosa)
    inputs = {block.Inputs(i).decode() for i in range(block.InputsLength())}
    return {op.inputs[1]: _tensor(block, op.inputs[0]).shape[1]
            for op in main_operators(tosa) if op.op == "GATHER" and op.inputs[1] in inputs}


CONSTANTS = ("CONST", "CONST_SHAPE")   # data, not operators an NPU operation implements


def operators_behind(tosa: bytes, outputs: list[str]) -> dict[str, list[str]]:
    """For each tensor in `outputs` (what one emitted NPU operation writes), the TOSA
    operators it implements: the one writing it and, back through its inputs, every non-CONST
    operator whose output is neither a graph input nor another entry of `outputs` (what the
    compiler fused into it), in graph order."""
    operators = main_operators(tosa)
    writer = {name: index for index, op in enumerate(operators) for name in op.outputs}
    stops = set(outputs)
    behind: dict[str, list[str]] = {}
    for name in outputs:
        found: set[int] = set()
        pending = [name]
        while pending:
            index = writer.get(pending.pop())
            if index is None or index in found or operators[index].op in CONSTANTS:
                continue
            found.add(index)
            pending += [tensor for tensor in operators[index].inputs if tensor not in stops]
        behind[name] = [operators[index].op for index in sorted(found)]
    return behind


def tensor_bytes(tosa: bytes) -> dict[str, int]:
    """Every tensor of the main block by name with its size in bytes (unknown dtypes: 4 bytes
    an element)."""
    import numpy as np

    block = _main_block(tosa)
    sizes = {}
    for index in range(block.TensorsLength()):
        tensor = block.Tensors(index)
        dtype = NUMPY_DTYPES.get(tensor.Type())
        itemsize = np.dtype(dtype).itemsize if dtype else 4
        shape = tensor.ShapeAsNumpy() if tensor.ShapeLength() else []
        sizes[tensor.Name().decode()] = itemsize * int(np.prod(shape, dtype=np.int64))
    return sizes
