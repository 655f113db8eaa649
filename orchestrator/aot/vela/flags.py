"""Vela flags checked where they enter (a compile request), by Vela's own argument parser:
run inside a compile, that parser exits the process on a flag it rejects (status 2, its
message lost in the captured output), and raises a bare KeyError on an unknown --optimise
value. Here either becomes one sentence naming the flag and the next step."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence

from orchestrator.foundation.errors import OrchestratorError

NEXT_STEP = ("fix --vela-flags (vela --help lists Vela's flags and values), e.g. "
             "--vela-flags '--optimise Size'")
ERROR_PREFIX = "vela: error: "


def check_vela_flags(flags: Sequence[str]) -> None:
    """Raise the one-line error when Vela would reject `flags` (nothing is compiled: Vela
    parses them with --list-config-files, which stops right after parsing)."""
    if not flags:
        return
    from ethosu.vela import vela

    errors = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(errors):
            vela.main([*flags, "--list-config-files"])
    except SystemExit as stop:
        raise OrchestratorError(f"Vela rejects --vela-flags '{' '.join(flags)}': "
                                f"{_parser_message(errors.getvalue(), stop)}", NEXT_STEP) from None
    except Exception as error:  # noqa: BLE001 - Vela's converters raise what they raise
        raise OrchestratorError(f"Vela rejects --vela-flags '{' '.join(flags)}': "
                                f"{_value_message(flags, error)}", NEXT_STEP) from None


def _parser_message(stderr: str, stop: SystemExit) -> str:
    """argparse's own 'vela: error: ...' line, else the exit status."""
    lines = [line for line in stderr.splitlines() if line.startswith(ERROR_PREFIX)]
    return lines[-1][len(ERROR_PREFIX):] if lines else f"Vela exited with status {stop.code}"


def _value_message(flags: Sequence[str], error: Exception) -> str:
    """A value Vela's converter refused (KeyError 'Sideways' for --optimise Sideways)."""
    value = str(error.args[0]) if error.args else str(error)
    for flag, given in zip(flags, flags[1:], strict=False):
        if given == value:
            return f"{flag} does not take the value {value!r}"
    for flag in flags:
        if flag.endswith(f"={value}"):
            return f"{flag.split('=')[0]} does not take the value {value!r}"
    return f"{type(error).__name__}: {value}"
