"""The options of `invoke run` (and of a regress cell that runs): one frozen dataclass per
group, each field with its help text, default, parser and where it may be given. The invoke
task's flags and help, the request the library takes and the regress matrix keys are all
derived from these classes (orchestrator.options.fields), so a new run option is one field
here, read by the stage that uses it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from orchestrator.comparison.thresholds import Thresholds
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.run_ids import new_run_id
from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import (
    number,
    option,
    paths,
    seconds,
    seconds_or_off,
    size,
    strings,
    subgroup,
    switch,
    text,
)
from orchestrator.options.fvp import FvpExtras
from orchestrator.targets.runner_data import default_build_type, runner_data

DEFAULT_MODEL = runner_data().default_model   # runner.toml [defaults] (data, not code)


@dataclass(frozen=True)
class RunnerSettings:
    """The ExecuTorch runner's options: memory plan, kernels, the output comparison and FVP
    extras (the compile's choices are RunRequest.compile, the compile stage's own group)."""

    kernel_set: str = option(help="runner: portable kernels linked (model: only the model's, "
                             "growing with later models; all; or a named set: see "
                             "orchestrator/data/runner.toml)", parse=text,
                             default_factory=lambda: runner_data().default_kernel_set)
    method_pool: int | None = option(None, "runner: method pool bytes (e.g. 32M; default from "
                                     "runner.toml)", parse=size)
    temp_pool: int | None = option(None, "runner: temp pool / Ethos-U scratch bytes", parse=size)
    fast_scratch: int | None = option(None, "runner: Ethos-U fast scratch bytes "
                                      "(Dedicated_Sram)", parse=size)
    atol: float = option(Thresholds.atol, "runner: absolute tolerance for float programs",
                         parse=number)
    rtol: float = option(Thresholds.rtol, "runner: relative tolerance for float programs",
                         parse=number)
    qtol: float = option(Thresholds.qtol, "runner: extra tolerance in quantization steps, "
                         "only for a quantized product with no exact reference (exact ones "
                         "must match bit for bit)", parse=number)
    min_snr: float | None = option(Thresholds.min_snr_db, "runner: accuracy gate: require this "
                                   "SNR in dB vs the float model (off by default; always "
                                   "reported)", parse=number)
    top1: bool = option(Thresholds.require_top1, "runner: accuracy gate: require the float "
                        "model's top-1 class", parse=switch)
    fast: bool = option(False, "runner on an FVP: Ethos-U --fast (no timing, no PMU cycles)",
                        parse=switch)
    profile: bool = option(False, "runner: build with the ExecuTorch event tracer (a runtime "
                           "build of its own) and report where the time goes per operator "
                           "(ETDump read by ExecuTorch's Inspector: result, CSV, Chrome trace)",
                           parse=switch)
    intermediates: bool = option(False, "runner: --profile plus every operator's output "
                                 "(upstream's ET_DUMP_INTERMEDIATE_OUTPUTS), compared op by op "
                                 "with the exact reference's: names the first operator whose "
                                 "output departs", parse=switch)
    pmu_trace: bool = option(False, "runner on an FVP: write the Ethos-U PMU trace to the run "
                             "directory", parse=switch, cli=False)
    sources: Mapping[str, Path] = option(help="runner: upstream source trees by name (default: "
                                         "what setup recorded)", parse=paths, cli=False,
                                         default_factory=dict)
    jobs: int = 2              # build parallelism: the caller's, not a user option

    @property
    def fvp(self) -> FvpExtras:
        """What these options ask of an FVP (--fast, the PMU trace): the one FVP option type."""
        return FvpExtras(fast=self.fast, pmu_trace=self.pmu_trace)

    @property
    def thresholds(self) -> Thresholds:
        """The comparison thresholds these options ask for."""
        return Thresholds(atol=self.atol, rtol=self.rtol, qtol=self.qtol,
                          min_snr_db=self.min_snr, require_top1=self.top1)


@dataclass(frozen=True)
class RunChoices:
    """What every run of a model on a target is asked for: the target, the model, the
    simulator and its time limits, the build type, the compile's and the runner's choices.
    `invoke run` (RunRequest) and `invoke evaluate` (EvaluateRequest) both extend it, so a
    model run is prepared from either without converting one into the other."""

    target: str = option("", "catalogue target (invoke targets), e.g. cortex-m55 or "
                         "ethos-u55-128 (required, except with --pte: then the file's)",
                         parse=text, matrix=False)
    model: str | None = option(None, "model to compile and run with the ExecuTorch runner: a "
                               "built-in or upstream name, a .py file with ModelUnderTest and "
                               "ModelInputs (for invoke evaluate optionally preprocess(path)), "
                               "a .pt or "
                               "module:function (invoke compile --help; default: the built-in "
                               f"{DEFAULT_MODEL!r} model)", parse=text, matrix=False)
    sim: str | None = option(None, "qemu, fvp or a simulator name (default: the target's first "
                             "simulator)", parse=text, matrix=False)
    timeout_s: float | None = option(None, "time limit in seconds (default: the simulator's, "
                                     "targets.toml limits: FVP 600 like upstream run_fvp.sh, "
                                     "QEMU 60; invoke evaluate's session adds --per-sample per "
                                     "input set)", parse=seconds, flag="timeout", matrix=False)
    idle_timeout_s: float | None = option(None, "stop a simulator that prints nothing for this "
                                          "many seconds; 0 = no watchdog (default: the "
                                          "simulator's: none on an FVP, 20 on QEMU)",
                                          parse=seconds_or_off, flag="idle_timeout")
    build_type: str = option(help="release or debug (default: runner.toml defaults.build_type)",
                             parse=text, default_factory=default_build_type)
    runner: RunnerSettings = subgroup(RunnerSettings)
    compile: CompileChoices = subgroup(CompileChoices)   # as invoke compile takes them
    run_id: str = field(default_factory=new_run_id)   # scratch/runs/<run_id>/, not an option

    @property
    def model_or_default(self) -> str:
        """The model named, else the built-in default (runner.toml [defaults])."""
        return self.model or DEFAULT_MODEL


@dataclass(frozen=True)
class RunRequest(RunChoices):
    """Everything `invoke run` is asked for; app handlers read what they need."""

    app: str | None = option(None, "firmware app: runner (the default), selftest (the platform "
                             "self-test, no NPU), npuselftest (an NPU target on QEMU: a Vela "
                             "stream on the NPU model, no ExecuTorch) or another "
                             "app under firmware/apps/",
                             parse=text, matrix=False)
    build_options: tuple[str, ...] = option((), "NAME=value build option, repeatable (e.g. "
                                            "EOR_STACK_SIZE=0x10000)", parse=strings,
                                            flag="option", repeatable=True)
    elf: str | None = option(None, "run this upstream-built arm_executor_runner ELF on the "
                             "target's FVP instead of building (its console is parsed like "
                             "invoke parse)", parse=text, matrix=False)
    data: tuple[str, ...] = option((), "with --elf: FILE@ADDRESS loaded into target memory "
                                   "(FVP --data), repeatable", parse=strings, matrix=False,
                                   repeatable=True)

    pte: str | None = option(None, "run this .pte or .bpte (made anywhere: aot_arm_compiler, "
                             "a user's export) with no compile; the target is the file's "
                             "(invoke inspect FILE shows it); a .bpte checks every test case",
                             parse=text, matrix=False)

    def resolved(self) -> RunRequest:
        """The app made explicit: --elf runs an upstream ELF; otherwise the runner, with the
        built-in default model when none was named (the selftest only under --app selftest)."""
        if self.elf and self.app not in (None, "elf"):
            raise OrchestratorError(f"--elf runs an upstream ELF, so --app {self.app} does not "
                                    "apply", "invoke run --target <target> --elf <ELF>")
        if self.elf:
            return replace(self, app="elf")
        if self.pte:
            if self.model is not None or self.app not in (None, "pte"):
                raise OrchestratorError("--pte runs a ready program, so --model/--app do not "
                                        "apply", f"invoke run --pte {self.pte}")
            return replace(self, app="pte")
        if not self.target:
            raise OrchestratorError("invoke run needs --target (only --pte reads the target "
                                    "from the file)", "invoke run --target <target> --model "
                                    "<model> (invoke targets lists them)")
        app = self.app or "runner"
        if app == "runner" and self.model is None:
            return replace(self, app=app, model=DEFAULT_MODEL)
        return replace(self, app=app)
