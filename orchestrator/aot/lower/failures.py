"""Turn torch.export / lowering exceptions into one sentence that names the failing op."""

from __future__ import annotations

import linecache
import re
import sysconfig
import traceback
from pathlib import Path

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_OP = re.compile(r"\b((?:aten|quantized_decomposed|cortex_m|torch\.ops\.\w+)[.:]{1,2}\w+"
                 r"(?:\.\w+)?)")
# Frames under these folders are library code, not the user's model.
_LIBRARY_DIRS = tuple(str(Path(p).resolve()) for p in {
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"], str(Path(__file__).resolve().parents[2])})
_LIBRARY_PARTS = ("site-packages", "dist-packages")


def _is_library(path: str) -> bool:
    resolved = str(Path(path).resolve()) if path.startswith("/") else path
    return resolved.startswith(_LIBRARY_DIRS) or any(part in path for part in _LIBRARY_PARTS)


def _user_frames(error: BaseException) -> list[tuple[str, int]]:
    text = str(error) + "".join(traceback.format_tb(error.__traceback__))
    frames = [(m["file"], int(m["line"])) for m in _FRAME.finditer(text)]
    return [(path, line) for path, line in frames if not _is_library(path)]


def _headline(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def failing_op(error: BaseException) -> str | None:
    """The operator or source line that failed, best effort."""
    frames = _user_frames(error)
    if frames:
        path, line = frames[-1]
        code = linecache.getline(path, line).strip()
        if code:
            return f"`{code}` ({path.rsplit('/', 1)[-1]}:{line})"
    match = _OP.search(str(error))
    return match.group(1) if match else None


def describe(stage: str, model: str, error: BaseException) -> str:
    """'torch.export failed for model m at `x.numpy()` (m.py:4): <first line of error>'."""
    where = failing_op(error)
    at = f" at {where}" if where else ""
    headline = _headline(error)
    if len(headline) > 200:
        headline = headline[:197] + "..."
    return f"{stage} failed for model {model}{at}: {headline}"
