"""Scalar = DSP = MVE: runs of one program through different CMSIS-NN kernels (cortex-m3's
scalar, cortex-m4's DSP, cortex-m55's MVE, or one core with `--isa`) must give bit-identical
outputs. Each run is compared with the first, output by output, bit for bit; where two
disagree, the runs' --intermediates (ETDump debug buffers) name the first operator whose output
differs between the two devices, and the sentence says which CMSIS-NN path each used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from orchestrator.comparison.departure import all_bit_equal, departure, departure_sentence
from orchestrator.results import RunResult

Array = np.ndarray[Any, Any]


def run_label(result: RunResult) -> str:
    """'cortex-m4 (DSP)': the CPU and the CMSIS-NN backend a run used."""
    facts = result.target.options.get("cortex_m") or {}
    return f"{facts.get('cpu', result.target.name)} ({facts.get('cmsis_nn_backend', '?')})"


def output_arrays(result: RunResult) -> list[Array]:
    """The run's outputs as arrays in their dtype and shape (exact values only)."""
    arrays = []
    for output in result.outputs:
        if not output.exact or output.dtype is None:
            raise ValueError(f"{run_label(result)} output {output.index} was not read exactly "
                             f"({output.precision or 'no values'})")
        array = np.asarray(output.values, dtype=np.dtype(output.dtype))
        arrays.append(array.reshape(output.shape) if output.shape else array)
    return arrays


def _first_output_difference(first: Sequence[Array], second: Sequence[Array]) -> str:
    """'output 1: 3/10 elements differ, first at ...' (or how the outputs' forms differ)."""
    if len(first) != len(second):
        return f"{len(first)} outputs vs {len(second)}"
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"output {index}: {b.dtype}{list(b.shape)} vs {a.dtype}{list(a.shape)}"
        found = departure(b, a, output=index)
        if found is not None:
            return f"output {index}: {departure_sentence(found.to_json(), 'this', 'that')}"
    return "no output differs"


def _intermediates(result: RunResult) -> list[tuple[str, Array]] | None:
    """Every operator's output the run kept (--intermediates), else None."""
    etdump, buffer = result.artifacts.get("etdump"), result.artifacts.get("debug_buffer")
    if not etdump or not buffer or not Path(etdump).is_file() or not Path(buffer).is_file():
        return None
    from orchestrator.profile.intermediates import device_intermediates

    return device_intermediates(Path(etdump), Path(buffer))


def first_differing_operator(first: Sequence[tuple[str, Array]],
                             second: Sequence[tuple[str, Array]]) -> str:
    """The first operator (in execution order) whose output differs between two devices'
    intermediates, in one phrase."""
    for index, ((op_a, a), (op_b, b)) in enumerate(zip(first, second, strict=False)):
        if op_a != op_b or a.shape != b.shape or a.dtype != b.dtype:
            return (f"operator {index} is not the same operator on both ({op_b} vs {op_a}): "
                    "the programs differ")
        found = departure(b, a)
        if found is not None:
            return (f"operator {index} ({op_b}) is the first whose output differs: "
                    f"{departure_sentence(found.to_json(), 'this', 'that')}")
    if len(first) != len(second):
        return f"{len(second)} operator outputs vs {len(first)}, equal as far as both go"
    return f"every one of {len(first)} operator outputs is equal"


@dataclass(frozen=True)
class Agreement:
    """Whether every run's outputs equal the first run's bit for bit, and for each run that
    does not, one sentence naming where it differs."""

    labels: tuple[str, ...]
    differences: tuple[str, ...]

    @property
    def agreed(self) -> bool:
        return not self.differences

    def sentence(self) -> str:
        if self.agreed:
            return f"bit-identical outputs on {' = '.join(self.labels)}"
        return "; ".join(self.differences)

    def to_json(self) -> dict[str, Any]:
        return {"runs": list(self.labels), "agreed": self.agreed,
                "differences": list(self.differences)}


def _difference(base: RunResult, other: RunResult) -> str:
    """Why `other`'s outputs are not `base`'s, naming the first differing operator when both
    runs kept their intermediates, else the command that would."""
    where = _first_output_difference(output_arrays(base), output_arrays(other))
    head = f"{run_label(other)} differs from {run_label(base)}: {where}"
    base_ops, other_ops = _intermediates(base), _intermediates(other)
    if base_ops is None or other_ops is None:
        return f"{head}; run both again with --intermediates to name the first operator"
    return f"{head}; {first_differing_operator(base_ops, other_ops)}"


def agreement(results: Sequence[RunResult]) -> Agreement:
    """Compare every run with the first (same program, same inputs, different kernels)."""
    if len(results) < 2:
        raise ValueError("an agreement check needs at least two runs")
    base, arrays = results[0], output_arrays(results[0])
    differences = tuple(_difference(base, other) for other in results[1:]
                        if not all_bit_equal(arrays, output_arrays(other)))
    return Agreement(tuple(run_label(result) for result in results), differences)
