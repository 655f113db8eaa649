"""Known faults of a Vela release's command streams (data/vela_stream_faults.toml): when the NPU
model stops on one, the error names the fault and how to compile around it (another toolset,
a compile option, or, where no released Vela writes the layers correctly, a change to the
model), instead of asking for an FVP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, Layout, load_data

FAULTS_PATH = DATA_DIR / "vela_stream_faults.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
FAULTS_LAYOUT: dict[str, Layout] = {
    "fault": {"vela": ANY, "stop": ANY, "toolset": ANY, "option": ANY, "option_reason": ANY,
              "rewrite": ANY},
}



@dataclass(frozen=True)
class VelaFault:
    """A stream the Vela releases `vela` write that the NPU model stops on with a message
    `stop` (a regular expression) finds; avoided by compiling under `toolset`, or with `option`
    (for `option_reason`), or, when no release avoids it, by the model change `rewrite`."""

    vela: tuple[str, ...]
    stop: str
    toolset: str | None = None
    option: str | None = None
    option_reason: str | None = None
    rewrite: str | None = None

    def next_step(self) -> str:
        if self.toolset is not None:
            return (f"compile with the Vela of toolset {self.toolset}: invoke setup --toolsets "
                    f"{self.toolset}, then repeat the command with --toolset {self.toolset}")
        if self.option is not None:
            return f"repeat the command with {self.option} ({self.option_reason})"
        return (f"no Vela release here writes it correctly; {self.rewrite}, then repeat the "
                "command")


def vela_faults() -> list[VelaFault]:
    return [VelaFault(**{**row, "vela": tuple(row["vela"])})
            for row in load_data(FAULTS_PATH, FAULTS_LAYOUT).get("fault", [])]


def known_fault(stop_message: str, vela: str | None) -> VelaFault | None:
    """The known fault of Vela `vela` the NPU model's stop message names, if any."""
    return next((fault for fault in vela_faults()
                 if vela in fault.vela and re.search(fault.stop, stop_message)), None)


def with_known_fault(error: OrchestratorError, vela: str | None) -> OrchestratorError:
    """`error` as it is, or, when it is a known Vela fault, saying so with the next step."""
    fault = known_fault(error.cause, vela)
    if fault is None:
        return error
    return OrchestratorError(f"{error.cause}: a known fault of Vela {vela}'s stream",
                             fault.next_step())


@contextmanager
def naming_known_faults(vela: str | None) -> Iterator[None]:
    """Re-raise an NPU-model stop on a program Vela `vela` compiled as its known fault."""
    try:
        yield
    except OrchestratorError as error:
        named = with_known_fault(error, vela)
        if named is error:
            raise
        raise named from error
