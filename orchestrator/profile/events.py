"""An ETDump read by ExecuTorch's own devtools Inspector (with the product's ETRecord when
there is one) into plain timed events: one per recorded occurrence, in start order."""

from __future__ import annotations

import contextlib
import io
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError


@dataclass(frozen=True)
class TracedEvent:
    """One profiling event occurrence: the block it belongs to (Execute, Default), its name,
    start and duration in ticks, the run (event block) index and the ops the ETRecord maps
    its debug handle to."""

    block: str
    block_index: int
    name: str
    start: int
    duration: int
    op_types: tuple[str, ...] = ()
    delegate: str | None = None

    @property
    def end(self) -> int:
        return self.start + self.duration


def inspector_version() -> str:
    """Who read the ETDump (recorded with the profile)."""
    return f"executorch.devtools.Inspector {metadata.version('executorch')}"


def _inspector(etdump: bytes, etrecord: Path | None) -> Any:
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")   # devtools' own deprecations are not the user's
        from executorch.devtools import Inspector
        from executorch.devtools.inspector._inspector_utils import TimeScale

        return Inspector(etdump_data=etdump, etrecord=str(etrecord) if etrecord else None,
                         source_time_scale=TimeScale.CYCLES,
                         target_time_scale=TimeScale.CYCLES)


def read_events(etdump: bytes, etrecord: Path | None = None) -> list[TracedEvent]:
    """Every timed event of the ETDump, sorted by start tick."""
    try:
        inspector = _inspector(etdump, etrecord)
    except Exception as error:  # noqa: BLE001 - a damaged ETDump is a one-line error
        raise OrchestratorError(
            f"ExecuTorch's Inspector could not read the ETDump ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''})",
            "check that the ETDump comes from the same ExecuTorch version "
            f"({metadata.version('executorch')})") from None
    events = []
    for block_index, block in enumerate(inspector.event_blocks):
        for event in block.events:
            if event.perf_data is None:
                continue
            starts = event.start_time or []
            for start, duration in zip(starts, event.perf_data.raw, strict=False):
                events.append(TracedEvent(block.name, block_index, event.name, int(start),
                                          int(duration), tuple(event.op_types or ()),
                                          event.delegate_backend_name))
    return sorted(events, key=lambda e: (e.start, -e.duration))
