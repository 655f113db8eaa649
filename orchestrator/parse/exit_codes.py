"""What the runner's semihosting exit status means (firmware/apps/runner/runner_exit.h and
the platform's codes in firmware/platform/common/include/eor/platform.h)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.results.model import Kind

RUNNER_EXIT = {
    10: ("area", "the model or input area was empty or corrupt (were the files loaded?)"),
    11: ("load", "the .pte could not be loaded by this runtime"),
    12: ("allocation", "a memory pool is too small"),
    13: ("method", "the method could not be loaded (missing kernel or delegate?)"),
    14: ("input", "the inputs do not match the model's inputs"),
    15: ("execution", "the model failed while executing"),
    16: ("npu", "the Ethos-U NPU could not be initialised"),
}
# RunResult classification kind per runner exit kind.
RESULT_KIND = {"area": Kind.LAUNCH_FAILURE, "load": Kind.METHOD_LOAD_FAILURE,
               "allocation": Kind.ALLOC_FAILURE, "method": Kind.METHOD_LOAD_FAILURE,
               "input": Kind.EXECUTION_FAILURE, "execution": Kind.EXECUTION_FAILURE,
               "npu": Kind.NPU_ERROR}
NEXT_STEP = {
    "area": "check the data files and addresses in {command}",
    "load": "recompile the model with this ExecuTorch version: invoke compile --model {model}",
    "allocation": "raise the pool named in {transcript}: invoke run ... --method-pool / "
                  "--temp-pool <bytes>",
    "method": "read the error lines in {transcript}; a missing kernel needs --kernel-set all",
    "input": "recompile so the inputs match: invoke compile --model {model}",
    "execution": "read the error lines in {transcript}",
    "npu": "the ELF expects an Ethos-U NPU: run it on an FVP (invoke run --sim fvp)",
}
PLATFORM_EXIT = {
    0: ("pass", "the run completed"),
    1: ("fail", "the program reported failure"),
    3: ("abort", "the runtime aborted"),
}
FAULT_BASE = 64
FAULT_KINDS = ("hard", "memmanage", "bus", "usage", "secure", "nmi")


@dataclass(frozen=True)
class ExitMeaning:
    """A classified exit status."""

    code: int | None
    kind: str
    text: str


def classify_exit(code: int | None) -> ExitMeaning:
    """Name the runner's exit status (None: the simulator never exited by itself)."""
    if code is None:
        return ExitMeaning(None, "no_exit", "the simulator did not exit by itself")
    if code in RUNNER_EXIT:
        return ExitMeaning(code, *RUNNER_EXIT[code])
    if code in PLATFORM_EXIT:
        return ExitMeaning(code, *PLATFORM_EXIT[code])
    if FAULT_BASE <= code < FAULT_BASE + len(FAULT_KINDS):
        kind = FAULT_KINDS[code - FAULT_BASE]
        return ExitMeaning(code, "fault", f"the CPU took a {kind} fault")
    return ExitMeaning(code, "unknown", f"unexpected exit status {code}")
