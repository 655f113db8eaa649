"""Check a runner's outputs: bit-exact against the product's exact reference (or, where the
product has none, the tolerance comparison), and accuracy against the float model; a passing
run that fails either becomes an output mismatch (orchestrator.comparison)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.comparison.mismatch import output_mismatch
from orchestrator.comparison.thresholds import Thresholds
from orchestrator.protocol import ParsedStream
from orchestrator.results import Accuracy, Comparison, RunResult
from orchestrator.runner.checked_outputs import CheckedOutputs, check_key, keep_check, read_check
from orchestrator.runner.write_checks import likely_cause

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.comparison.departure import ExactVerdict

EXACT_FILE = "exact.json"
ACCURACY_FILE = "accuracy.json"


def exact_comparison(verdict: ExactVerdict) -> Comparison:
    """The RunResult comparison of an exact verdict."""
    return Comparison(reference="exact", passed=verdict.passed, exact=verdict.passed,
                      mismatches=verdict.mismatches, first_mismatch=verdict.first,
                      worst_mismatch=verdict.worst)


def apply_exact(result: RunResult, verdict: ExactVerdict, rerun: str) -> RunResult:
    """Attach the verdict; a passing run whose outputs are not bit-exact fails, naming where."""
    result = replace(result, comparison=exact_comparison(verdict))
    if verdict.passed:
        return result
    compared = result.profile.intermediates if result.profile else None
    located = result.classification.details.get("intermediates") \
        if compared and compared.get("departure") else None
    return output_mismatch(
        result, f"outputs are not bit-exact: {verdict.reason}", verdict.reason,
        likely_cause(result) or located or f"the target computed something else than the "
        f"compiled program: {rerun} --intermediates names the first operator whose output "
        f"departs; the transcript and the product's reference_exact/ hold the rest",
        {**result.classification.details, "first_mismatch": verdict.first})


def accuracy_of(device: list[Any], reference: list[Any],
                quantization: tuple[dict[str, Any] | None, ...], limits: Thresholds,
                names: Sequence[str] = ()) -> Accuracy:
    """Device outputs vs the float model (steps from each output's dequantize scale), with
    the accuracy gates `limits` asks for."""
    from orchestrator.comparison.accuracy import gate_failures, gated, output_accuracy

    found = []
    for index, (got, want) in enumerate(zip(device, reference, strict=False)):
        if got.shape != want.shape:
            continue
        quant = quantization[index] if index < len(quantization) else None
        found.append(output_accuracy(index, got, want, quant["scale"] if quant else None,
                                     names[index] if index < len(names) else ""))
    reasons = gate_failures(found, limits)
    return Accuracy(outputs=found, min_snr_db=limits.min_snr_db,
                    require_top1=limits.require_top1,
                    passed=(not reasons) if gated(limits) else None, reason="; ".join(reasons))


def apply_accuracy(result: RunResult, accuracy: Accuracy) -> RunResult:
    """Attach the accuracy; only a gate that was asked for can fail the run."""
    result = replace(result, accuracy=accuracy)
    if accuracy.passed is not False:
        return result
    return output_mismatch(result, f"accuracy below the gate: {accuracy.reason}",
                           accuracy.reason,
                           "the quantized program is too far from the float model: calibrate "
                           "with --calibration <dir>, try --quantize a16w8, or lower --min-snr "
                           "/ drop --top1")


def _write(run_dir: Path, name: str, document: Any) -> str:
    from orchestrator.results.codec import to_plain

    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / name
    path.write_text(json.dumps(to_plain(document), indent=2, sort_keys=True) + "\n")
    return str(path)


def name_outputs(result: RunResult, names: Sequence[str]) -> None:
    """Name each parsed output by its path in the model's outputs (`output['h'][0]`)."""
    for tensor in result.outputs:
        if 0 <= tensor.index < len(names) and names[tensor.index]:
            tensor.name = names[tensor.index]


def check_outputs(result: RunResult, stream: ParsedStream, product: Product,
                  limits: Thresholds, run_dir: Path, rerun: str) -> RunResult:
    """Exactness (or the tolerance comparison), then accuracy vs the float model. A passing
    exact check of the same outputs is read back (orchestrator.runner.checked_outputs)."""
    references = product.reference
    if not stream.tensors or not references:
        return result
    name_outputs(result, [r.name for r in references])
    key = check_key(stream, product, limits) if product.reference_kind == "exact" else ""
    checked = read_check(key) if key else None
    if checked is None:
        return _check(result, stream, product, limits, run_dir, rerun, key)
    result = replace(result, comparison=checked.comparison)
    result.artifacts["comparison"] = _write(run_dir, EXACT_FILE, checked.exact)
    result.artifacts["accuracy"] = _write(run_dir, ACCURACY_FILE, checked.accuracy)
    return apply_accuracy(result, checked.accuracy)


def _check(result: RunResult, stream: ParsedStream, product: Product, limits: Thresholds,
           run_dir: Path, rerun: str, key: str) -> RunResult:
    """check_outputs computed (numpy); a passing exact check is kept under `key`."""
    from orchestrator.aot.tensors import load_array
    from orchestrator.comparison.departure import judge
    from orchestrator.runner.reference_check import compare_with_reference, device_arrays

    references = product.reference
    orders = [tuple(r.dim_order) for r in references]
    names = [r.name for r in references]
    device = device_arrays(stream.tensors, orders)
    record = product.exact_record
    verdict = None
    if product.reference_kind == "exact":
        verdict = judge(device, [load_array(r) for r in references], names)
        result = apply_exact(result, verdict, rerun)
        result.artifacts["comparison"] = _write(run_dir, EXACT_FILE, verdict)
    else:
        result = compare_with_reference(result, stream, [load_array(r) for r in references],
                                        orders, product.reference_kind, limits, run_dir)
        if result.comparison is not None:
            result.comparison.exact_fallback = record.reason or record.status
    accuracy = accuracy_of(device, [load_array(r) for r in product.reference_float],
                           record.output_quantization, limits, names)
    result.artifacts["accuracy"] = _write(run_dir, ACCURACY_FILE, accuracy)
    if key and verdict is not None and verdict.passed and result.comparison is not None:
        from orchestrator.results.codec import to_plain

        keep_check(key, CheckedOutputs(result.comparison, to_plain(verdict), accuracy))
    return apply_accuracy(result, accuracy)
