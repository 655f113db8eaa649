"""A bug in the tool (an exception that is not an OrchestratorError) is one line naming a
crash report with the traceback and versions, and exit 70, never a raw traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.foundation.cli import EXIT_BROKEN_PIPE, run_callable
from orchestrator.foundation.crash_report import EXIT_BUG
from orchestrator.foundation.paths import repo_root


def broken() -> int:
    return {}["missing"]


def test_a_bug_is_one_line_with_a_crash_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(tmp_path))
    with pytest.raises(SystemExit) as stop:
        run_callable(broken)
    assert stop.value.code == EXIT_BUG
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "a bug in ethosu-orchestrator (KeyError: 'missing')" in err
    report = Path(err.split("crash report: ")[1].split(";")[0])
    assert report.parent == tmp_path / "crash"
    text = report.read_text()
    assert "Traceback" in text and "in broken" in text and "ethosu-orchestrator 0." in text
    assert "python 3." in text


def test_an_unwritable_scratch_still_gets_a_report(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(blocker / "scratch"))
    with pytest.raises(SystemExit):
        run_callable(broken)
    report = Path(capsys.readouterr().err.split("crash report: ")[1].split(";")[0])
    assert report.is_file() and "KeyError" in report.read_text()
    report.unlink()



def test_a_reader_that_leaves_is_not_a_bug(tmp_path):
    """`invoke targets --json | head`: the reader is gone before the tool writes; the tool
    stops quietly (exit 141, nothing on stderr, no crash report), as a Unix tool would."""
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "invoke", "targets", "--json"],
                            cwd=repo_root(), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.close()  # no reader left: the tool's first write meets a broken pipe
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_BROKEN_PIPE, err
    assert err == "" and not (tmp_path / "crash").exists()
