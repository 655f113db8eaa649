"""Add what only the runner reports to a protocol RunResult: pools, NPU PMU counters, the
comparison with the host reference, and what a runner exit status means."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.build.npu_model import (
    EXECUTOR_FVP,
    EXECUTOR_MODEL,
    model_version,
    placed_model,
)
from orchestrator.protocol import ParsedStream
from orchestrator.results import (
    Classification,
    Comparison,
    Kind,
    MemoryUse,
    NpuPmu,
    PmuCounter,
    PoolUse,
    RunResult,
    Status,
)
from orchestrator.runner.compare import Comparison as OutputsComparison
from orchestrator.runner.compare import Thresholds, compare_outputs
from orchestrator.runner.exit_codes import NEXT_STEP, RESULT_KIND, RUNNER_EXIT
from orchestrator.targets import Target

POOLS = ("method_pool", "temp_pool", "fast_scratch")
COMPARISON_FILE = "comparison.json"


def pools(stream: ParsedStream, memory: MemoryUse | None) -> MemoryUse:
    """The runner's pools (used / size) next to heap and stack, plus planned and .pte bytes."""
    memory = memory or MemoryUse()
    found = dict(memory.pools)
    for name in POOLS:
        used, size = stream.metric(f"{name}_used"), stream.metric(f"{name}_size")
        if used or size:
            found[name] = PoolUse(used=used.value if used else None,
                                  size=size.value if size else None)
    planned, pte = stream.metric("planned_bytes"), stream.metric("pte_bytes")
    return replace(memory, pools=found, pte_size=pte.value if pte else memory.pte_size,
                   allocations={**memory.allocations,
                                **({"planned": planned.value} if planned else {})})


def npu_pmu(stream: ParsedStream, target: Target) -> NpuPmu | None:
    """NPU cycles and the named event counters, in the catalogue's counter order; on the
    functional NPU model, which model ran and how often (no cycles, no counters: it has none)."""
    if placed_model(target) is not None:
        return functional_model_npu(stream)
    cycles = stream.metric("ethosu_pmu_cycle_cntr")
    if not target.has_npu or cycles is None:
        return None
    counters = [PmuCounter(index=i, value=metric.value, event=event)
                for i, event in enumerate(target.pmu_events)
                if (metric := stream.metric(event)) is not None]
    delegations = stream.metric("npu_delegations")
    runs = stream.metric("inferences")
    return NpuPmu(cycles=cycles.value, counters=counters,
                  inferences=runs.value if runs else None,
                  delegations=delegations.value if delegations else None,
                  event_source="ethosu_pmu", executor=EXECUTOR_FVP)


def functional_model_npu(stream: ParsedStream) -> NpuPmu:
    """The NPU record of a functional-model run: the model and its version (as the firmware
    reported it, else the version it was built with), delegations; never cycles or events."""
    reported = next((frame.fields["npu_model_version"] for frame in stream.other
                     if frame.type == "note" and "npu_model_version" in frame.fields), None)
    delegations, runs = stream.metric("npu_delegations"), stream.metric("inferences")
    return NpuPmu(cycles=None, counters=[], inferences=runs.value if runs else None,
                  delegations=delegations.value if delegations else None,
                  executor=EXECUTOR_MODEL, executor_version=reported or model_version())


def device_arrays(stream: ParsedStream, orders: Sequence[tuple[int, ...]]) -> list[Any]:
    """Output tensors as numpy arrays in logical order (bytes come in each output's dim order)."""
    import numpy as np

    arrays = []
    for position, (_, tensor) in enumerate(sorted(stream.tensors.items())):
        raw = tensor.to_numpy()
        order = orders[position] if position < len(orders) else tuple(range(raw.ndim))
        if order != tuple(range(raw.ndim)) and raw.ndim == len(order):
            stored = raw.reshape(tuple(tensor.shape[axis] for axis in order))
            raw = np.transpose(stored, tuple(int(a) for a in np.argsort(order)))
        arrays.append(raw)
    return arrays


def comparison(outcome: OutputsComparison, reference: str, limits: Thresholds) -> Comparison:
    """The RunResult summary of a per-output comparison (worst output wins)."""
    outputs = outcome.outputs
    return Comparison(reference=reference, passed=outcome.passed,
                      mean_absolute_error=max((o.mean_abs_error for o in outputs), default=None),
                      max_absolute_error=max((o.max_abs_error for o in outputs), default=None),
                      atol=limits.atol, rtol=limits.rtol)


def write_comparison(run_dir: Path, outcome: OutputsComparison, reference: str) -> Path:
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
    outcome = compare_outputs(device_arrays(stream, orders), references, limits,
                              quantized=reference == "quantized")
    result.artifacts["comparison"] = str(write_comparison(run_dir, outcome, reference))
    result = replace(result, comparison=comparison(outcome, reference, limits))
    if result.status is Status.PASS and not outcome.passed:
        failed = [o for o in outcome.outputs if not o.passed]
        why = outcome.reason or "; ".join(f"output {o.index}: {o.reason}{_steps(o)}"
                                          for o in failed)
        result = replace(result, status=Status.FAIL, reason=f"outputs differ from the "
                         f"{reference} reference: {why}", classification=Classification(
                             kind=Kind.OUTPUT_MISMATCH, summary=why,
                             next_step=f"read {result.artifacts['comparison']}; loosen with "
                                       "--qtol/--atol/--rtol if the difference is expected",
                             details={"comparison": result.artifacts["comparison"]}))
    return result


def _steps(output: Any) -> str:
    """' (22.0 quantization steps of 0.00394; top-1 agrees)' where known."""
    parts = []
    if output.quant_steps is not None:
        parts.append(f"{output.quant_steps:.1f} quantization steps of {output.quant_step:.3g}")
    if output.top1_match is not None:
        parts.append("top-1 agrees" if output.top1_match else "top-1 differs")
    return f" ({'; '.join(parts)})" if parts else ""


def explain_exit(result: RunResult, stream: ParsedStream, model: str) -> RunResult:
    """Name a runner failure (exit 10-16) with the runner's own message and a next step."""
    code = result.simulation.exit_code if result.simulation else None
    if result.status is Status.PASS or code not in RUNNER_EXIT:
        return result
    kind, text = RUNNER_EXIT[code]
    message = next((frame.fields.get("message") for frame in stream.other
                    if frame.type == "note" and "message" in frame.fields), None)
    next_step = NEXT_STEP[kind].format(model=model, transcript=result.artifacts.get("transcript"),
                                       command=result.artifacts.get("command"))
    summary = f"{text}: {message}" if message else text
    return replace(result, status=Status.FAIL if kind != "area" else Status.ERROR,
                   reason=summary, classification=Classification(
                       kind=Kind(RESULT_KIND[kind]), summary=summary, next_step=next_step,
                       evidence=result.classification.evidence,
                       details={**result.classification.details, "runner_exit": kind}))


FVP_KINDS = {"cpu_time_limit": Kind.CPU_TIME_LIMIT, "cycle_limit": Kind.CYCLE_LIMIT,
             "launch_failure": Kind.LAUNCH_FAILURE}
FVP_NEXT = {"cpu_time_limit": "raise the limit: invoke run ... --timeout <seconds>",
            "cycle_limit": "raise the FVP's cycle/time limit, or run a smaller model",
            "launch_failure": "check the FVP install: invoke doctor (then invoke setup --only fvp)"}


def explain_fvp_stop(result: RunResult, transcript: str) -> RunResult:
    """A failed FVP run that stopped at a limit or never launched says so (exit 0 or not)."""
    from orchestrator.parse.fvp_stops import stop_reason
    from orchestrator.sim.fvp_run import fvp_stop

    if result.simulation is not None:
        result.simulation.stop_reason = stop_reason(transcript) or result.simulation.stop_reason
    stop = fvp_stop(transcript)
    if result.status is Status.PASS or stop is None:
        return result
    status = Status.TIMEOUT if stop.kind != "launch_failure" else Status.ERROR
    return replace(result, status=status, reason=stop.summary, classification=Classification(
        kind=FVP_KINDS[stop.kind], summary=stop.summary,
        next_step=stop.next_step or FVP_NEXT[stop.kind],
        evidence=[stop.evidence], details={"fvp_stop": stop.kind}))


def check_nonce(result: RunResult, stream: ParsedStream, nonce: int) -> RunResult:
    """A run that read someone else's inputs (nonce mismatch) is an error, never a pass."""
    seen = stream.metric("run_nonce")
    if seen is None or seen.value == nonce:
        return result
    summary = (f"the runner read input nonce {seen.value:#x}, not this run's {nonce:#x} "
               "(stale or misplaced input area)")
    return replace(result, status=Status.ERROR, reason=summary, classification=Classification(
        kind=Kind.LAUNCH_FAILURE, summary=summary,
        next_step=f"check the data files and addresses in {result.artifacts.get('command')}",
        details={"nonce_expected": nonce, "nonce_seen": seen.value}))


def explain_npu_model_refusal(result: RunResult, stream: ParsedStream) -> RunResult:
    """A command stream the functional NPU model refused (its note names the model, the target
    and the reason: an arch/MAC mismatch, an unimplemented command) is an NPU error."""
    refusal = next((frame.fields for frame in stream.other
                    if frame.type == "note" and "npu_model_code" in frame.fields), None)
    if refusal is None or result.status is Status.PASS:
        return result
    summary = refusal.get("message") or "the functional NPU model refused the command stream"
    return replace(result, status=Status.FAIL, reason=summary, classification=Classification(
        kind=Kind.NPU_ERROR, summary=summary,
        next_step=f"compile the model for {refusal.get('npu_config')} (invoke compile "
                  f"--target {refusal.get('npu_config')}), or run it on the FVP: invoke setup "
                  "--only fvp-corstone-300, then --sim fvp",
        evidence=result.classification.evidence,
        details={**result.classification.details, "npu_executor": EXECUTOR_MODEL}))
