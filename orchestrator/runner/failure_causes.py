"""Why a runner run failed, said in the result: a runner exit status (10-16) with its message,
inputs that were not this run's (nonce), a command stream the functional NPU model refused
(an FVP's limit or launch failure: the FVP kind, orchestrator.sim.fvp)."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.firmware_build.npu_model import EXECUTOR_MODEL
from orchestrator.parse.exit_codes import NEXT_STEP, RESULT_KIND, RUNNER_EXIT
from orchestrator.protocol import ParsedStream
from orchestrator.results import Classification, Kind, RunResult, Status
from orchestrator.sim.fvp_run import setup_artifact
from orchestrator.targets import load_catalogue


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
                  f"--target {refusal.get('npu_config')}), or run it on the FVP: "
                  f"{fvp_setup_step(str(refusal.get('npu_config')))}",
        evidence=result.classification.evidence,
        details={**result.classification.details, "npu_executor": EXECUTOR_MODEL}))


def fvp_setup_step(target_name: str) -> str:
    """How to run `target_name` on its own FVP (Corstone-300 for U55/U65, -320 for U85)."""
    target = load_catalogue().targets.get(target_name)
    fvp = target.simulator("fvp") if target is not None else None
    if fvp is None:
        return "pick a target with an FVP (invoke targets), then --sim fvp"
    return f"invoke setup --only {setup_artifact(fvp)}, then --sim fvp"
