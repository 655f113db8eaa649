"""A compile Vela refuses, as one sentence: Vela's own message condensed, the target, and the
next command.

Vela fails in two ways inside a compile (ExecuTorch's EthosUBackend calls `vela.main` in the
process): its Python front end raises an `ethosu.vela.errors.VelaError` (a configuration it
cannot use: `ConfigOptionError`, `InputFileError`, ...), and its C++ core (regor) raises
`RuntimeError("Compilation failed: <regor's error>")` for a graph it cannot compile. Either may
reach the compile wrapped by ExecuTorch, so the whole exception chain is searched.
"""

from __future__ import annotations

from collections.abc import Iterator

from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError

VELA_MODULE = "ethosu."                   # Vela's Python package (ethos-u-vela)
REGOR_PREFIX = "Compilation failed: "     # regor's Python binding (py_regor.cpp Compile)
VELA_ERROR_PREFIX = "Error: "             # VelaError.data
CONFIGURATION_ERRORS = ("ConfigOptionError", "InputFileError", "CliOptionError")
LONGEST = 240


def _chain(error: BaseException) -> Iterator[BaseException]:
    """`error`, then its causes and contexts, each once."""
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _condensed(text: str) -> str:
    """Vela's message on one line: quotes, 'Error: ' and list bullets dropped, shortened."""
    text = text.strip().strip("'\"")
    text = text[len(VELA_ERROR_PREFIX):] if text.startswith(VELA_ERROR_PREFIX) else text
    parts = [line.strip().lstrip("-").strip() for line in text.splitlines()]
    line = " ".join(part for part in parts if part)
    return line if len(line) <= LONGEST else line[:LONGEST - 3] + "..."


def vela_failure(error: BaseException) -> tuple[str, bool] | None:
    """(Vela's message, whether it is about Vela's configuration) when Vela raised `error`
    or something in its chain, else None."""
    for link in _chain(error):
        kind = type(link)
        if kind.__module__.startswith(VELA_MODULE):
            message = getattr(link, "error_msg", None) or str(link)
            return _condensed(str(message)), kind.__name__ in CONFIGURATION_ERRORS
        if isinstance(link, RuntimeError) and str(link).startswith(REGOR_PREFIX):
            return _condensed(str(link)[len(REGOR_PREFIX):]), False
    return None


def vela_refusal(model: str, target: str, error: BaseException) -> OrchestratorError | None:
    """The one-line refusal when Vela refused to compile `model` for `target`, else None."""
    found = vela_failure(error)
    if found is None:
        return None
    message, about_configuration = found
    if about_configuration:
        next_step = ("fix the Vela configuration (--vela-config, --system-config, "
                     "--memory-mode; `invoke targets` shows each target's defaults)")
    else:
        next_step = (f"compile for another Ethos-U target (`invoke targets` lists them), or "
                     f"run the model on the CPU: "
                     f"{invoke_line('compile', model=model, target=target, no_delegate=True)}")
    return OrchestratorError(f"Vela refuses to compile model {model} for {target}: {message}",
                             next_step)
