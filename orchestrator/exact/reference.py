"""Compute a product's exact reference at compile time (imports torch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from orchestrator.exact.interpreter import ProgramRunner, op_name, program_ops
from orchestrator.exact.ops import exact_kind, unsupported
from orchestrator.exact.record import EXACT, FALLBACK, FLOAT, ExactRecord
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.tosa.partitions import Partition


def output_quantization(program: Any) -> list[dict[str, Any] | None]:
    """Per program output: the per-tensor dequantize that produced it, if any."""
    output = next(n for n in program.graph_module.graph.nodes if n.op == "output")
    found: list[dict[str, Any] | None] = []
    for node in output.args[0]:
        if getattr(node, "op", None) == "call_function" and \
                "dequantize_per_tensor" in op_name(node):
            scale, zero_point, quant_min, quant_max, dtype = node.args[1:6]
            found.append({"scale": float(scale), "zero_point": int(zero_point),
                          "quant_min": int(quant_min), "quant_max": int(quant_max),
                          "dtype": str(dtype).removeprefix("torch.")})
        else:
            found.append(None)
    return found


def exact_outputs(program: Any, partitions: Sequence[Partition], inputs: Sequence[Any],
                  quantized: bool, intermediates: list[tuple[str, Any]] | None = None
                  ) -> tuple[list[Any] | None, ExactRecord]:
    """(outputs or None, record): the program run exactly on `inputs`, or why not; every op's
    output goes to `intermediates` when given."""
    ops = program_ops(program.graph_module)
    kinds = {op: exact_kind(op) for op in ops}
    quantization = tuple(output_quantization(program))
    if not quantized:
        return None, ExactRecord(FLOAT, kinds, reason="float program: compared with "
                                 "tolerances", output_quantization=quantization)
    missing = tuple(unsupported(ops))
    if missing:
        return None, ExactRecord(FALLBACK, kinds, missing,
                                 f"no exact host implementation of {', '.join(missing)}",
                                 quantization)
    runner = ProgramRunner(program, {p.delegate: p for p in partitions})
    try:
        outputs = runner.run(inputs)
    except OrchestratorError as error:
        return None, ExactRecord(FALLBACK, kinds, (), f"host run failed: {error.cause}",
                                 quantization)
    except (RuntimeError, ValueError, TypeError, NotImplementedError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        return None, ExactRecord(FALLBACK, kinds, (), f"host run failed: {first}",
                                 quantization)
    if intermediates is not None:
        intermediates.extend(runner.intermediates)
    return [o.detach().contiguous() for o in outputs], ExactRecord(
        EXACT, kinds, output_quantization=quantization)
