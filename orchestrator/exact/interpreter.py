"""Run a lowered (edge) program on the host, exactly: delegate calls go to the TOSA reference
model, device kernels to their host models, every other op to ExecuTorch's own reference
implementation (the op itself). Imports torch."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from orchestrator.exact.kernels import KERNELS
from orchestrator.tosa.partitions import Partition
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

DELEGATE = "executorch_call_delegate"


def op_name(node: Any) -> str:
    """'cortex_m::softmax', 'aten::mul', 'executorch_call_delegate', 'getitem', ..."""
    target = node.target
    if target is operator.getitem:
        return "getitem"
    op = getattr(target, "_op", target)
    schema = getattr(op, "_schema", None)
    if schema is not None:
        return str(schema.name)
    return str(getattr(op, "__name__", None) or getattr(op, "name", None) or op)


def program_ops(graph_module: Any) -> list[str]:
    """Every op the program calls, in graph order, unique."""
    names = [op_name(node) for node in graph_module.graph.nodes if node.op == "call_function"]
    return list(dict.fromkeys(names))


def _lifted(program: Any, name: str) -> Any:
    signature = program.graph_signature
    for mapping in (signature.inputs_to_parameters, signature.inputs_to_buffers,
                    signature.inputs_to_lifted_tensor_constants):
        key = mapping.get(name)
        if key is not None:
            return program.state_dict[key] if key in program.state_dict else \
                program.constants[key]
    return None


def _run_partition(partition: Partition, lowered: Any, arguments: Sequence[Any]) -> tuple[Any,
                                                                                          ...]:
    import torch

    by_name = dict(zip(lowered.original_module.graph_signature.user_inputs, arguments,
                       strict=True))
    inputs = []
    for tensor in partition.inputs:
        value = by_name[tensor.tosa_name]
        if tuple(value.shape) != tensor.shape:
            raise ValueError(f"partition {partition.index} takes {tensor.tosa_name} as "
                             f"{tensor.shape}, the program gives {tuple(value.shape)}")
        inputs.append(np.ascontiguousarray(value.contiguous().numpy()))
    outputs = run_tosa_flatbuffer(partition.tosa, inputs)
    return tuple(torch.from_numpy(np.array(output)) for output in outputs)


class ProgramRunner:
    """Executes one edge ExportedProgram node by node."""

    def __init__(self, program: Any, partitions: Mapping[str, Partition]) -> None:
        self.program = program
        self.partitions = partitions
        # (op, output) of every call whose output is one tensor, in execution order: the
        # exact reference's intermediates, compared op by op with a device's
        self.intermediates: list[tuple[str, Any]] = []

    def _call(self, node: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        name = op_name(node)
        if name == DELEGATE:
            return _run_partition(self.partitions[node.name], args[0], args[1:])
        kernel = KERNELS.get(name)
        if kernel is not None:
            return kernel(*args, **kwargs)
        return node.target(*args, **kwargs)

    def run(self, inputs: Sequence[Any]) -> list[Any]:
        """The program's outputs for `inputs` (user inputs, in order)."""
        import torch
        from torch.fx.node import map_arg

        graph_module = self.program.graph_module
        pending = iter(inputs)
        env: dict[Any, Any] = {}
        for node in graph_module.graph.nodes:
            if node.op == "placeholder":
                lifted = _lifted(self.program, node.name)
                env[node] = lifted if lifted is not None else next(pending)
            elif node.op == "get_attr":
                env[node] = getattr(graph_module, node.target)
            elif node.op == "call_function":
                args = map_arg(node.args, lambda n: env[n])
                kwargs = map_arg(node.kwargs, lambda n: env[n])
                with torch.no_grad():
                    env[node] = self._call(node, tuple(args), dict(kwargs))
                if isinstance(env[node], torch.Tensor):
                    self.intermediates.append((op_name(node), env[node]))
            elif node.op == "output":
                results = map_arg(node.args[0], lambda n: env[n])
                return [r for r in results if isinstance(r, torch.Tensor)]
        raise ValueError("the program has no output node")
