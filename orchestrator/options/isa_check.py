"""The options of `invoke isa-check`: one model on several Cortex-M CPUs (or one CPU forced to
several CMSIS-NN backends), each run on its QEMU board, outputs compared bit for bit."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import option, seconds, strings, subgroup, text
from orchestrator.options.run import RunnerSettings


@dataclass(frozen=True)
class IsaCheck:
    """`invoke isa-check --model M --on cortex-m3 --on cortex-m4 --on cortex-m55`."""

    on: tuple[str, ...] = option((), "CPU or CPU:ISA to run on, repeatable, at least two "
                                 "(e.g. --on cortex-m3 --on cortex-m4 --on cortex-m55, or "
                                 "--on cortex-m55:scalar --on cortex-m55:dsp --on cortex-m55); "
                                 "every run is compared with the first", parse=strings,
                                 matrix=False, repeatable=True)
    model: str | None = option(None, "the model (as invoke run --model takes it; default: the "
                               "built-in default)", parse=text, matrix=False)
    timeout_s: float | None = option(None, "time limit of each QEMU run in seconds",
                                     parse=seconds, flag="timeout", matrix=False)
    runner: RunnerSettings = subgroup(RunnerSettings)
    compile: CompileChoices = subgroup(CompileChoices)
