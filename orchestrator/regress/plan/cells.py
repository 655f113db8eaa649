"""A cell: one (model, target, option set) of a matrix, with its mode and expectation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Mode(str, Enum):
    """What a cell does: compile + simulate a model, compile only, run a firmware app,
    compile + check every NPU partition on the host's NPU model (`invoke verify`),
    or run a ready .pte/.bpte with no compile (`invoke run --pte`)."""

    RUN = "run"
    COMPILE = "compile"
    APP = "app"
    VERIFY = "verify"
    PTE = "pte"


class Expect(str, Enum):
    """What the matrix author expects of a cell."""

    PASS = "pass"
    XFAIL = "xfail"
    SKIP = "skip"


@dataclass(frozen=True)
class Upstream:
    """What upstream's own test suite expects of a (model, target): its mark (pass, xfail,
    skip, or untested), the mark's reason, its output tolerance, and the file:line it is from."""

    status: str
    reason: str = ""
    tolerance: tuple[tuple[str, float], ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Cell:
    """One unit of a regression job; `key` names it in baselines, reports and shards."""

    model: str
    model_spec: str
    target: str
    options_name: str
    options: tuple[tuple[str, Any], ...]
    mode: Mode
    lane: str
    sim: str | None
    timeout_s: float
    sim_kind: str | None = None
    expect: Expect = Expect.PASS
    expect_reason: str = ""
    expect_kind: str | None = None
    weight: int = field(default=1, compare=False)
    upstream: Upstream | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        """'model@target/options': the baseline key (model, target, options) as one string."""
        return cell_key(self.model, self.target, self.options_name)

    @property
    def simulator(self) -> str:
        """The simulator of a cell that simulates (compile-only cells have none)."""
        if self.sim is None:
            raise ValueError(f"cell {self.key} does not simulate")
        return self.sim

    @property
    def slug(self) -> str:
        """The key made safe for a directory name."""
        return re.sub(r"[^A-Za-z0-9._-]+", "_", self.key.replace("@", "__").replace("/", "__"))

    @property
    def option_dict(self) -> dict[str, Any]:
        """The option set as a dict (for the compile and run stages)."""
        return dict(self.options)

    @property
    def simulates(self) -> bool:
        """True when the cell runs on a simulator (run and app cells)."""
        return self.mode in (Mode.RUN, Mode.APP, Mode.PTE)

    @property
    def executes(self) -> bool:
        """True when the cell runs something (on a simulator, or on the NPU model)."""
        return self.mode is not Mode.COMPILE

    @property
    def compiles(self) -> bool:
        """True when the cell needs a compiled model (run, compile and verify cells)."""
        return self.mode not in (Mode.APP, Mode.PTE)


def cell_key(model: str, target: str, options_name: str) -> str:
    """The one string form of (model, target, options)."""
    return f"{model}@{target}/{options_name}"


def split_key(key: str) -> tuple[str, str, str]:
    """Inverse of cell_key."""
    model, _, rest = key.partition("@")
    target, _, options_name = rest.partition("/")
    return model, target, options_name
