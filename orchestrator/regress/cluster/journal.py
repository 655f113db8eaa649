"""Finished cells of a cluster job, on disk as they arrive: the same command run again (after
a killed client or a scheduler that went away) resumes with the same run id and runs only
the cells not recorded. A job's identity is its matrix text, its cell keys and its options;
the journal is removed once the job's reports are written."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import tempfile
from pathlib import Path
from typing import Any

from orchestrator.regress.verdict.outcome import CellReport

JOBS_DIR = "cluster-jobs"
JOB_FILE = "job.json"
CELLS_DIR = "cells"


def job_key(identity: dict[str, Any]) -> str:
    """A short digest of what makes two commands the same job."""
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Journal:
    """One job's record of finished cells under scratch/runs/cluster-jobs/<job key>/."""

    def __init__(self, runs_dir: Path, identity: dict[str, Any]) -> None:
        self.folder = runs_dir / JOBS_DIR / job_key(identity)

    def run_id(self) -> str | None:
        """The run id of an interrupted earlier run of this job, if any."""
        try:
            return str(json.loads((self.folder / JOB_FILE).read_text())["run_id"])
        except (OSError, ValueError, KeyError):
            return None

    def start(self, run_id: str) -> None:
        """Record the run id this job's cells belong to."""
        _write_atomic(self.folder / JOB_FILE, json.dumps({"run_id": run_id}).encode())

    def finished(self) -> dict[str, CellReport]:
        """Every recorded cell's report, by cell key (unreadable records are run again)."""
        reports = {}
        for path in sorted((self.folder / CELLS_DIR).glob("*.pickle")):
            try:
                report = pickle.loads(path.read_bytes())
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                continue
            if isinstance(report, CellReport):
                reports[report.key] = report
        return reports

    def record(self, report: CellReport) -> None:
        """Keep one finished cell (atomically: a killed client leaves no half record)."""
        path = self.folder / CELLS_DIR / f"{report.cell.slug}.pickle"
        _write_atomic(path, pickle.dumps(report))

    def close(self) -> None:
        """The job is complete: the next run of the command is a new job."""
        shutil.rmtree(self.folder, ignore_errors=True)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
