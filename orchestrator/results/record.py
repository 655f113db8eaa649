"""result.json: a run's RunResult document beside its transcript, written in one place and
atomically (a reader, a merge or a resumed job never sees half a result)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.foundation.jsonfile import write_text_atomic
from orchestrator.results.model import RunResult

RESULT = "result.json"


def write_result(run_dir: Path, result: RunResult) -> Path:
    """Write `result` to run_dir/result.json (named in its artifacts); return the path."""
    path = run_dir / RESULT
    result.artifacts.setdefault("result", str(path))
    write_text_atomic(path, result.to_json() + "\n")
    return path
