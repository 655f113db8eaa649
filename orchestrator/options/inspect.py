"""The options of the tasks that look without building: `invoke targets`, `invoke doctor`
and `invoke verify` (the NPU model vs the TOSA reference)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import option, subgroup, switch, text

DEFAULT_VERIFY_TARGET = "ethos-u55-128"   # a compile's, when --target is not given


@dataclass(frozen=True)
class TargetsListing:
    """`invoke targets`: the whole catalogue (only how it is printed is a choice)."""


@dataclass(frozen=True)
class ModelsListing:
    """`invoke models`: every model by name (only how it is printed is a choice)."""


@dataclass(frozen=True)
class ToolsetsListing:
    """`invoke toolsets`: every toolset, its pins and whether it is installed."""


@dataclass(frozen=True)
class DoctorCheck:
    """`invoke doctor`: which target's needs decide the verdict."""

    target: str | None = option(None, "fail only for what this target needs (default: anything "
                                "missing fails)", parse=text, matrix=False)


@dataclass(frozen=True)
class VerifyTask:
    """`invoke verify`: which model's NPU partitions, compiled for which NPU target with
    which choices (the compile's own: as invoke compile and invoke run take them)."""

    model: str = option("mv2", "built-in or upstream model name (invoke models), .py/.pt "
                        "file or module:function", parse=text, matrix=False)
    target: str = option("", "an Ethos-U target: ethos-u55-*, ethos-u65-* or "
                         "ethos-u85-*; several at once: a,b or a wildcard (the TOSA reference "
                         "runs once per lowering; default ethos-u55-128, with --pte the "
                         "file's)", parse=text, matrix=False)
    locate: bool = option(True, "name the first departing operation and check writes over live "
                          "tensors (--no-locate: compare the outputs only, in less memory)",
                          parse=switch, matrix=False)
    toolset: str | None = option(None, "compile under this toolset (a name, or requirements "
                                 "like executorch==1.5.1; invoke toolsets lists them): its "
                                 "program checked here against its own TOSA reference",
                                 parse=text, matrix=False)
    pte: str | None = option(None, "verify this ready .pte or .bpte instead of compiling: "
                             "each Ethos-U command stream on the host's NPU model "
                             "against every lane that runs the file's target (QEMU, an FVP "
                             "where installed), bit for bit, on the inputs the device received",
                             parse=text, matrix=False)
    choices: CompileChoices = subgroup(CompileChoices)

    @property
    def targets_named(self) -> str:
        """The --target given, else the compile's default target."""
        return self.target or DEFAULT_VERIFY_TARGET
