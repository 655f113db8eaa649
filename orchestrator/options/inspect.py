"""The options of the tasks that look without building: `invoke targets`, `invoke doctor`
and `invoke verify` (the functional NPU model vs the TOSA reference)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import option, switch, text


@dataclass(frozen=True)
class TargetsListing:
    """`invoke targets`: the whole catalogue (only how it is printed is a choice)."""


@dataclass(frozen=True)
class DoctorCheck:
    """`invoke doctor`: which target's needs decide the verdict."""

    target: str | None = option(None, "fail only for what this target needs (default: anything "
                                "missing fails)", parse=text, matrix=False)


@dataclass(frozen=True)
class VerifyTask:
    """`invoke verify`: which model's NPU partitions, compiled for which NPU target."""

    model: str = option("mv2", "built-in model name, .py/.pt file or module:function",
                        parse=text, matrix=False)
    target: str = option("ethos-u55-128", "an ethos-u55-* or ethos-u65-* target", parse=text,
                         matrix=False)
    quantize: str = option("int8", "int8 or a16w8 (16-bit activations, 8-bit weights)",
                           parse=text, matrix=False)
    locate: bool = option(True, "name the first departing operation and check writes over live "
                          "tensors (--no-locate: compare the outputs only, in less memory)",
                          parse=switch, matrix=False)
