"""The last resort for a bug in this tool: the traceback and the versions go to a crash report
file, the user gets one line naming it, and the exit code says "bug" (not a user error)."""

from __future__ import annotations

import platform
import sys
import tempfile
import time
import traceback
from importlib import metadata
from pathlib import Path

from orchestrator import __version__
from orchestrator.foundation.paths import scratch

EXIT_BUG = 70          # sysexits EX_SOFTWARE: distinct from 1 (run failed) and 2 (user error)
CRASH_DIR = "crash"
PACKAGES = ("invoke", "torch", "executorch", "ethos-u-vela")


def versions() -> list[str]:
    """The tool, Python, the host and the packages that matter (not imported: read from
    their installed metadata)."""
    found = [f"ethosu-orchestrator {__version__}", f"python {sys.version.split()[0]}",
             f"host {platform.platform()}"]
    for package in PACKAGES:
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} not installed")
    return found


def write_crash_report(error: BaseException) -> Path:
    """crash/<time>-<pid>.txt under scratch (the temp directory when scratch is unwritable)."""
    text = "\n".join([f"command: {' '.join(sys.argv)}", *versions(), "",
                      *traceback.format_exception(error)])
    name = f"{time.strftime('%Y%m%d-%H%M%S')}-{id(error) % 100000:05d}.txt"
    for directory in (scratch().root / CRASH_DIR, Path(tempfile.gettempdir())):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / f"ethosu-orchestrator-{name}"
            path.write_text(text)
            return path
        except OSError:
            continue
    return Path(tempfile.gettempdir())


def bug_line(error: BaseException, report: Path) -> str:
    """The one line a user sees."""
    return (f"error: a bug in ethosu-orchestrator ({type(error).__name__}: {error}); "
            f"crash report: {report}; next: please file an issue with that file attached")
