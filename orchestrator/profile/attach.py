"""A run's profile: the ETDump (and debug buffer) the runner sent, saved in the run directory,
read with the product's ETRecord into result.profile, profile.csv and profile.trace.json."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.profile.events import inspector_version, read_events
from orchestrator.profile.export import write_profile_files
from orchestrator.profile.sources import npu_note, tick_source
from orchestrator.profile.table import build_profile
from orchestrator.results import RunResult

ETDUMP_FILE = "etdump.bin"
DEBUG_BUFFER_FILE = "debug_buffer.bin"
BLOB_FILES = {"etdump": ETDUMP_FILE, "debug_buffer": DEBUG_BUFFER_FILE}


def vela_partitions(vela_report: Path | None) -> list[dict[str, Any]]:
    """Vela's per-partition summaries (with their per-operation tables) from the product."""
    if vela_report is None:
        return []
    partitions: list[dict[str, Any]] = json.loads(vela_report.read_text()).get("partitions", [])
    return partitions


def save_blobs(blobs: Mapping[str, bytes], run_dir: Path) -> dict[str, str]:
    """Write the ETDump and debug buffer as upstream names them; their artifact paths."""
    saved = {}
    for name, filename in BLOB_FILES.items():
        if name in blobs:
            (run_dir / filename).write_bytes(blobs[name])
            saved[name] = str(run_dir / filename)
    return saved


def attach_profile(result: RunResult, etdump: bytes, run_dir: Path, *,
                   etrecord: Path | None, vela: Sequence[dict[str, Any]] = (),
                   tosa: Sequence[bytes] = (), source: str | None = None) -> RunResult:
    """result.profile and its CSV / Chrome-trace files from one ETDump (an ETDump the
    Inspector cannot read leaves the result as it is, with the reason in its details)."""
    try:
        events = read_events(etdump, etrecord)
    except OrchestratorError as error:
        result.classification.details["profile"] = str(error)
        return result
    executor = result.npu.executor if result.npu else None
    result.profile = build_profile(
        events, tick_source(source or (result.cpu.source if result.cpu else None)),
        vela_partitions=vela, tosa=tosa,
        npu_note=npu_note(executor), reader=inspector_version(),
        etdump_bytes=len(etdump), etrecord=etrecord is not None)
    result.artifacts.update(write_profile_files(run_dir, events, result.profile))
    return result
