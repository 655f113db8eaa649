"""The options of `invoke evaluate`: a data set through one simulator session (the compile's
choices and the runner's options are the run's: CompileChoices, RunnerSettings)."""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import option, seconds, seconds_or_off, subgroup, switch, text
from orchestrator.options.run import RunnerSettings
from orchestrator.results.model import new_run_id

DEFAULT_SECONDS_PER_SAMPLE = 5.0


def count(value: object, label: str) -> int:
    """A positive whole number."""
    try:
        number = int(str(value), 10)
    except ValueError:
        number = 0
    if number < 1:
        raise OrchestratorError(f"{label} must be a positive whole number, not {value!r}",
                                f"pass {label} 50")
    return number


@dataclass(frozen=True)
class EvaluateRequest:
    """Which model on which target, over which data, and how the data set is split."""

    model: str = option(help="the model (built-in or upstream name, .py file with "
                        "ModelUnderTest and ModelInputs and optionally preprocess(path), .pt, "
                        "module:function)",
                        parse=text, matrix=False)
    target: str = option(help="catalogue target (invoke targets)", parse=text, matrix=False)
    data: str = option(help="the data set: a directory with one input set per file (.npy, "
                       ".npz, .pt, or anything the model's preprocess(path) reads), or one "
                       "such file", parse=text)
    labels: str | None = option(None, "integer labels: a .npy array in file order, or text "
                                "lines `label` or `name label` (default: the data directory's "
                                "labels.txt if present)", parse=text)
    limit: int | None = option(None, "evaluate the first N input sets (sorted by file name)",
                               parse=count)
    calibration_overlap: bool = option(False, "let evaluated files calibrate too (leaks the "
                                       "evaluation data into calibration)", parse=switch)
    sim: str | None = option(None, "qemu, fvp or a simulator name (default: the target's "
                             "first simulator)", parse=text, matrix=False)
    timeout_s: float | None = option(None, "session time limit in seconds (default: the "
                                     "simulator's run limit plus --per-sample per input set)",
                                     parse=seconds, flag="timeout", matrix=False)
    per_sample_s: float = option(DEFAULT_SECONDS_PER_SAMPLE, "seconds the default session "
                                 "limit allows per input set", parse=seconds,
                                 flag="per_sample")
    idle_timeout_s: float | None = option(None, "stop a session that prints nothing for this "
                                          "many seconds; 0 = no watchdog (default: the "
                                          "simulator's)", parse=seconds_or_off,
                                          flag="idle_timeout")
    build_type: str = option("release", "release or debug", parse=text)
    compile: CompileChoices = subgroup(CompileChoices)   # --calibration: evaluated files
    runner: RunnerSettings = subgroup(RunnerSettings)     # are left out of it
    run_id: str = field(default_factory=new_run_id)   # scratch/runs/<run_id>/, not an option
