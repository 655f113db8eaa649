"""What an app is: the firmware it needs (and so how that is built), whether it takes a model,
how one run goes from a request to a RunResult, and what that result says."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestrator.foundation.paths import Scratch
    from orchestrator.options.run import RunRequest
    from orchestrator.results import RunResult


class Firmware(Enum):
    """The firmware an app runs, which says how it is built."""

    RUNNER = "the ExecuTorch runner ELF, built (cached) for the compiled model's operators"
    PROTOCOL_APP = "an app under firmware/apps/, built (incrementally) by firmware_build"
    NPU_SELFTEST = ("firmware/apps/npuselftest, built around a compiled case and the "
                    "NPU model")
    UPSTREAM_ELF = "an ELF upstream built (--elf): nothing is built here"


class ModelUse(Enum):
    """Whether the app takes `--model`."""

    REQUIRED = "required"
    OPTIONAL = "optional"
    NONE = "none"


@dataclass(frozen=True)
class App:
    """One app: `run` builds what it needs and simulates it as the request's plan says."""

    name: str
    firmware: Firmware
    model: ModelUse
    result: str                     # what its RunResult says (one sentence, for help and docs)
    run: Callable[[RunRequest, Scratch], RunResult]
