"""The options of `invoke evaluate`: a data set through one simulator session. The model run
itself is asked for as `invoke run` asks for it (RunChoices, which EvaluateRequest extends:
the target, model, simulator, limits, build type, CompileChoices and RunnerSettings)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.fields import option, seconds, switch, text
from orchestrator.options.run import RunChoices

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


@dataclass(frozen=True, kw_only=True)
class EvaluateRequest(RunChoices):
    """A model run (RunChoices: target, model, simulator, limits, the compile's and the
    runner's choices) over a data set, and how the data set is split."""

    target: str = option("", "catalogue target (invoke targets), e.g. cortex-m55 or "
                         "ethos-u55-128 (required, except with --pte: then the file's)",
                         parse=text, matrix=False)
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
    pte: str | None = option(None, "evaluate this ready .pte or .bpte (made anywhere) with no "
                             "compile: the device's outputs scored against the labels; an "
                             "artifact brings no reference, so nothing is judged exact",
                             parse=text, matrix=False)
    per_sample_s: float = option(DEFAULT_SECONDS_PER_SAMPLE, "seconds the default session "
                                 "limit allows per input set", parse=seconds,
                                 flag="per_sample")
