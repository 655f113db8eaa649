"""Judge a runner's outputs: bit-exact against the product's exact reference (or, where the
product has none, today's tolerance comparison), and accuracy against the float model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.options.run import Thresholds
from orchestrator.protocol import ParsedStream
from orchestrator.results import (
    Accuracy,
    Classification,
    Comparison,
    Kind,
    Mismatch,
    OutputAccuracy,
    RunResult,
    Status,
)
from orchestrator.runner.reference_check import compare_with_reference, device_arrays
from orchestrator.runner.write_checks import likely_cause

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.exact.accuracy import Gates
    from orchestrator.exact.verdict import Element, ExactVerdict

EXACT_FILE = "exact.json"
ACCURACY_FILE = "accuracy.json"


def _mismatch(element: Element | None) -> Mismatch | None:
    if element is None:
        return None
    return Mismatch(element.output, list(element.index), element.device, element.reference,
                    element.name or None)


def exact_comparison(verdict: ExactVerdict) -> Comparison:
    """The RunResult comparison of an exact verdict."""
    return Comparison(reference="exact", passed=verdict.passed, exact=verdict.passed,
                      mismatches=verdict.mismatches, first_mismatch=_mismatch(verdict.first),
                      worst_mismatch=_mismatch(verdict.worst))


def apply_exact(result: RunResult, verdict: ExactVerdict, rerun: str) -> RunResult:
    """Attach the verdict; a passing run whose outputs are not bit-exact fails, naming where."""
    result = replace(result, comparison=exact_comparison(verdict))
    if result.status is not Status.PASS or verdict.passed:
        return result
    compared = result.profile.intermediates if result.profile else None
    located = result.classification.details.get("intermediates") \
        if compared and compared.get("departure") else None
    cause = likely_cause(result)
    return replace(result, status=Status.FAIL,
                   reason=f"outputs are not bit-exact: {verdict.reason}",
                   classification=Classification(
                       kind=Kind.OUTPUT_MISMATCH, summary=verdict.reason,
                       next_step=cause or located or f"the target computed something else than the "
                                 f"compiled program: {rerun} --intermediates names the first "
                                 f"operator whose output departs; the transcript and the "
                                 f"product's reference_exact/ hold the rest",
                       details={**result.classification.details,
                                "first_mismatch": result.comparison.first_mismatch
                                if result.comparison else None}))


def accuracy_of(device: list[Any], reference: list[Any],
                quantization: tuple[dict[str, Any] | None, ...], gates: Gates,
                names: Sequence[str] = ()) -> Accuracy:
    """Device outputs vs the float model (steps from each output's dequantize scale)."""
    from orchestrator.exact.accuracy import gate_failures, output_accuracy

    found = []
    for index, (got, want) in enumerate(zip(device, reference, strict=False)):
        if got.shape != want.shape:
            continue
        quant = quantization[index] if index < len(quantization) else None
        found.append(output_accuracy(index, got, want, quant["scale"] if quant else None,
                                     names[index] if index < len(names) else ""))
    reasons = gate_failures(found, gates)
    return Accuracy(outputs=[OutputAccuracy(**{**vars(o), "name": o.name or None})
                             for o in found],
                    min_snr_db=gates.min_snr_db,
                    require_top1=gates.require_top1,
                    passed=(not reasons) if gates.active else None, reason="; ".join(reasons))


def apply_accuracy(result: RunResult, accuracy: Accuracy) -> RunResult:
    """Attach the accuracy; only a gate that was asked for can fail the run."""
    result = replace(result, accuracy=accuracy)
    if accuracy.passed is not False or result.status is not Status.PASS:
        return result
    return replace(result, status=Status.FAIL, reason=f"accuracy below the gate: "
                   f"{accuracy.reason}", classification=Classification(
                       kind=Kind.OUTPUT_MISMATCH, summary=accuracy.reason,
                       next_step="the quantized program is too far from the float model: "
                                 "calibrate with --calibration <dir>, try --quantize a16w8, "
                                 "or lower --min-snr / drop --top1"))


def _write(run_dir: Path, name: str, document: Any) -> str:
    from orchestrator.results.codec import to_plain

    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / name
    path.write_text(json.dumps(to_plain(document), indent=2, sort_keys=True) + "\n")
    return str(path)


def name_outputs(result: RunResult, names: list[str]) -> None:
    """Name each parsed output by its path in the model's outputs (`output['h'][0]`)."""
    for tensor in result.outputs:
        if 0 <= tensor.index < len(names) and names[tensor.index]:
            tensor.name = names[tensor.index]


def judge(result: RunResult, stream: ParsedStream, product: Product, limits: Thresholds,
          run_dir: Path, rerun: str) -> RunResult:
    """Exactness (or the fallback comparison), then accuracy vs the float model."""
    from orchestrator.aot.tensors import load_array
    from orchestrator.exact.accuracy import Gates
    from orchestrator.exact.verdict import judge_exact

    references = product.reference
    if not stream.tensors or not references:
        return result
    orders = [tuple(r.dim_order) for r in references]
    names = [r.name for r in references]
    name_outputs(result, names)
    device = device_arrays(stream.tensors, orders)
    record = product.exact_record
    gates = Gates(limits.min_snr_db, limits.require_top1)
    if product.reference_kind == "exact":
        verdict = judge_exact(device, [load_array(r) for r in references], names)
        result = apply_exact(result, verdict, rerun)
        result.artifacts["comparison"] = _write(run_dir, EXACT_FILE, verdict)
    else:
        untolerated = replace(limits, min_snr_db=None, require_top1=False)
        result = compare_with_reference(result, stream, [load_array(r) for r in references],
                                        orders, product.reference_kind, untolerated, run_dir)
        if result.comparison is not None:
            result.comparison.exact_fallback = record.reason or record.status
    accuracy = accuracy_of(device, [load_array(r) for r in product.reference_float],
                           record.output_quantization, gates, names)
    result.artifacts["accuracy"] = _write(run_dir, ACCURACY_FILE, accuracy)
    return apply_accuracy(result, accuracy)
