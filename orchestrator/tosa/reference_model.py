"""Run a TOSA flatbuffer on the pinned TOSA reference model (tosa-tools), bit-exactly."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from orchestrator.foundation.errors import OrchestratorError

BINDING = "tosa_reference_model"
INSTALL_HINT = "pip install tosa-tools==2026.5.0 (or pip install -e '.[aot]')"


def load_binding() -> Any:
    """The tosa_reference_model module, or a one-line error naming the missing package."""
    try:
        import tosa_reference_model
    except ImportError as error:
        raise OrchestratorError(
            f"the TOSA reference model ({BINDING}, from tosa-tools) is not installed: {error}",
            INSTALL_HINT) from None
    return tosa_reference_model


@contextlib.contextmanager
def _captured_native_output() -> Iterator[list[str]]:
    """Collect what the C++ model prints on fds 1 and 2 (it warns there on every run)."""
    text: list[str] = []
    with tempfile.TemporaryFile(mode="w+b") as sink:
        saved = [os.dup(1), os.dup(2)]
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield text
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            text.append(sink.read().decode(errors="replace"))


def _last_lines(text: str, count: int = 3) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " / ".join(lines[-count:]) or "no message"


def run_tosa_flatbuffer(tosa: bytes, inputs: Sequence[np.ndarray[Any, Any]]
                        ) -> list[np.ndarray[Any, Any]]:
    """Outputs of the TOSA graph `tosa` for `inputs` (in the graph's input order), exact."""
    binding = load_binding()
    arrays = [np.ascontiguousarray(array) for array in inputs]
    with _captured_native_output() as printed:
        try:
            outputs, status = binding.run(tosa, arrays)
        except (ValueError, RuntimeError) as error:
            failure: str | None = str(error)
        else:
            failure = None if status == binding.GraphStatus.TOSA_VALID else str(status)
    if failure is not None:
        raise OrchestratorError(
            f"the TOSA reference model could not run the partition ({failure}: "
            f"{_last_lines(''.join(printed))})",
            "check the inputs' dtypes and shapes against the partition (invoke compile --json)")
    return [np.asarray(output) for output in outputs]
