"""A profile as files: the per-operator CSV and a Chrome trace-event JSON (opens in Perfetto
and chrome://tracing; one trace microsecond is one tick of the profile's source: no clock
frequency is assumed)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.foundation.jsonfile import write_text_atomic
from orchestrator.profile.events import TracedEvent
from orchestrator.results import Profile

CSV_COLUMNS = ("operator", "executor", "calls", "total", "per_call", "share_percent",
               "vela_cycles", "unit", "source", "timing")
OVERHEAD_ROW = "ExecuTorch runtime (between operators)"


def profile_csv(profile: Profile) -> str:
    """One line per operator plus the runtime overhead; the totals column adds up to
    profile.total."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    common = (profile.unit, profile.source, "yes" if profile.timing else "no (not timing)")
    for row in profile.operators:
        writer.writerow((row.operator, row.executor, row.calls, row.total, row.per_call,
                         row.share_percent, "" if row.vela_cycles is None else row.vela_cycles,
                         *common))
    overhead_share = round(100.0 * profile.runtime_overhead / profile.total, 2) \
        if profile.total else 0.0
    writer.writerow((OVERHEAD_ROW, "runtime", profile.inferences, profile.runtime_overhead,
                     "", overhead_share, "", *common))
    return out.getvalue()


def chrome_trace(events: Sequence[TracedEvent], profile: Profile) -> dict[str, Any]:
    """The trace-event document: one complete ('X') event per ETDump event."""
    trace_events: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 0,
         "args": {"name": f"ExecuTorch runner ({profile.unit}: {profile.source})"}}]
    for event in events:
        trace_events.append({
            "name": event.name, "cat": event.block, "ph": "X", "pid": 1, "tid": 0,
            "ts": event.start, "dur": event.duration,
            "args": {"block": event.block, "run": event.block_index,
                     **({"op_types": list(event.op_types)} if event.op_types else {})}})
    return {"traceEvents": trace_events, "displayTimeUnit": "ns",
            "otherData": {"time_unit": f"1 trace microsecond = 1 {profile.unit[:-1]} "
                                       f"({profile.source})",
                          "timing": profile.timing, "note": profile.note}}


def write_profile_files(run_dir: Path, events: Sequence[TracedEvent],
                        profile: Profile) -> dict[str, str]:
    """Write profile.csv and profile.trace.json; their paths by artifact name."""
    csv_path, trace_path = run_dir / "profile.csv", run_dir / "profile.trace.json"
    write_text_atomic(csv_path, profile_csv(profile))
    write_text_atomic(trace_path, json.dumps(chrome_trace(events, profile), indent=1))
    return {"profile_csv": str(csv_path), "profile_trace": str(trace_path)}
