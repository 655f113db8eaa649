"""The device's outputs against the host reference: comparison.json, the RunResult's
Comparison, and an output mismatch when a passing run's outputs differ."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.comparison.mismatch import output_mismatch
from orchestrator.comparison.thresholds import Thresholds
from orchestrator.comparison.tolerance import OutputComparison, ToleranceComparison, compare_outputs
from orchestrator.protocol import ParsedStream, Tensor
from orchestrator.results import Comparison, RunResult

COMPARISON_FILE = "comparison.json"


def device_arrays(tensors: Mapping[int, Tensor], orders: Sequence[tuple[int, ...]]) -> list[Any]:
    """Output tensors as numpy arrays in logical order (bytes come in each output's dim order)."""
    import numpy as np

    arrays = []
    for position, (_, tensor) in enumerate(sorted(tensors.items())):
        raw = tensor.to_numpy()
        order = orders[position] if position < len(orders) else tuple(range(raw.ndim))
        if order != tuple(range(raw.ndim)) and raw.ndim == len(order):
            stored = raw.reshape(tuple(tensor.shape[axis] for axis in order))
            raw = np.transpose(stored, tuple(int(a) for a in np.argsort(order)))
        arrays.append(raw)
    return arrays


def comparison(outcome: ToleranceComparison, reference: str, limits: Thresholds) -> Comparison:
    """The RunResult summary of a per-output comparison (worst output wins)."""
    outputs = outcome.outputs
    return Comparison(reference=reference, passed=outcome.passed,
                      mean_absolute_error=max((o.mean_abs_error for o in outputs), default=None),
                      max_absolute_error=max((o.max_abs_error for o in outputs), default=None),
                      atol=limits.atol, rtol=limits.rtol)


def write_comparison(run_dir: Path, outcome: ToleranceComparison, reference: str) -> Path:
    """comparison.json: every output's numbers (max/mean abs error, SNR, top-1, exact)."""
    path = run_dir / COMPARISON_FILE
    path.write_text(json.dumps({"reference": reference, "passed": outcome.passed,
                                "reason": outcome.reason,
                                "outputs": [o.to_json() for o in outcome.outputs]}, indent=2))
    return path


def compare_with_reference(result: RunResult, stream: ParsedStream, references: list[Any],
                           orders: Sequence[tuple[int, ...]], reference: str,
                           limits: Thresholds, run_dir: Path) -> RunResult:
    """Attach the comparison; a passing run whose outputs differ becomes an output mismatch."""
    outcome = compare_outputs(device_arrays(stream.tensors, orders), references, limits,
                              quantized=reference == "quantized")
    result.artifacts["comparison"] = str(write_comparison(run_dir, outcome, reference))
    result = replace(result, comparison=comparison(outcome, reference, limits))
    if outcome.passed:
        return result
    failed = [o for o in outcome.outputs if not o.passed]
    why = outcome.reason or "; ".join(f"output {o.index}: {o.reason}{_steps(o)}"
                                      for o in failed)
    return output_mismatch(result, f"outputs differ from the {reference} reference: {why}", why,
                           f"read {result.artifacts['comparison']}; loosen with "
                           "--qtol/--atol/--rtol if the difference is expected",
                           {"comparison": result.artifacts["comparison"]})


def _steps(output: OutputComparison) -> str:
    """' (22.0 quantization steps of 0.00394; top-1 agrees)' where known."""
    parts = []
    if output.quant_steps is not None:
        parts.append(f"{output.quant_steps:.1f} quantization steps of {output.quant_step:.3g}")
    if output.top1_match is not None:
        parts.append("top-1 agrees" if output.top1_match else "top-1 differs")
    return f" ({'; '.join(parts)})" if parts else ""
