"""Host tools the runtime build needs, reused instead of built per build directory: the
executorch wheel ships flatc (executorch/data/bin/flatc); it is used when it is the
flatbuffers release the source tree's headers are (generated code checks the version)."""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from orchestrator.aot.lower.kernels import executorch_root
from orchestrator.foundation.derived_cache import keep_table, read_table, stat_digest

WHEEL_FLATC = Path("data/bin/flatc")
PREBUILT_ENV = "ETHOSU_ORCH_HOST_FLATC"   # "0": let upstream build flatc (as before)
FLATBUFFERS_BASE = Path("third-party/flatbuffers/include/flatbuffers/base.h")
_DEFINE = re.compile(r"#define FLATBUFFERS_VERSION_(MAJOR|MINOR|REVISION) (\d+)")


def source_flatbuffers_version(executorch: Path) -> str | None:
    """'24.3.25' from the source tree's flatbuffers headers (None if absent)."""
    base = executorch / FLATBUFFERS_BASE
    if not base.is_file():
        return None
    parts = dict(_DEFINE.findall(base.read_text(errors="replace")))
    if set(parts) != {"MAJOR", "MINOR", "REVISION"}:
        return None
    return f"{parts['MAJOR']}.{parts['MINOR']}.{parts['REVISION']}"


@lru_cache(maxsize=4)
def flatc_version(flatc: Path) -> str | None:
    """'24.3.25' from `flatc --version` (None when it does not run here), asked once per
    binary (its path, size and modification time: orchestrator.foundation.derived_cache);
    a binary that does not run is asked again next time."""
    key = stat_digest([flatc], "flatc-version-1")
    kept = read_table("flatc-version", key)
    if isinstance(kept, str):
        return kept
    version = _run_flatc_version(flatc)
    if version is not None:
        keep_table("flatc-version", key, version)
    return version


def _run_flatc_version(flatc: Path) -> str | None:
    """flatc_version asked of the binary."""
    try:
        done = subprocess.run([str(flatc), "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except OSError:
        return None
    match = re.search(r"(\d+\.\d+\.\d+)", done.stdout)
    return match.group(1) if done.returncode == 0 and match else None


def prebuilt_flatc(executorch: Path) -> Path | None:
    """The wheel's flatc when it matches the source tree's flatbuffers, else None."""
    package = executorch_root()
    flatc = package / WHEEL_FLATC if package is not None else None
    if os.environ.get(PREBUILT_ENV) == "0" or flatc is None or not flatc.is_file():
        return None
    wanted = source_flatbuffers_version(executorch)
    return flatc if wanted is not None and flatc_version(flatc) == wanted else None
