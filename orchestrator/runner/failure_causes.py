"""Why a runner run failed, said in the result: a runner exit status (10-16) with its message,
inputs that were not this run's (nonce). A command stream the NPU model refused is
named by run_firmware (orchestrator.firmware.npu_model_facts) and stays the cause; an FVP's
limit or launch failure by the FVP kind (orchestrator.sim.fvp)."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.firmware.npu_model_facts import refused_by_npu_model
from orchestrator.parse.exit_codes import NEXT_STEP, RESULT_KIND, RUNNER_EXIT
from orchestrator.protocol import ParsedStream
from orchestrator.results import Classification, Kind, RunResult, Status


def explain_exit(result: RunResult, stream: ParsedStream, model: str) -> RunResult:
    """Name a runner failure (exit 10-16) with the runner's own message and a next step."""
    code = result.simulation.exit_code if result.simulation else None
    if result.status is Status.PASS or code not in RUNNER_EXIT or refused_by_npu_model(result):
        return result
    kind, text = RUNNER_EXIT[code]
    message = next((frame.fields.get("message") for frame in stream.other
                    if frame.type == "note" and "message" in frame.fields), None)
    next_step = NEXT_STEP[kind].format(model=model, transcript=result.artifacts.get("transcript"),
                                       command=result.artifacts.get("command"))
    summary = f"{text}: {message}" if message else text
    return replace(result, status=Status.FAIL if kind != "area" else Status.ERROR,
                   reason=summary, classification=Classification(
                       kind=RESULT_KIND[kind], summary=summary, next_step=next_step,
                       evidence=result.classification.evidence,
                       details={**result.classification.details, "runner_exit": kind}))


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
