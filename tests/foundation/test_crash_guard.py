"""A bug in the tool (an exception that is not an OrchestratorError) is one line naming a
crash report with the traceback and versions, and exit 70, never a raw traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.cli import run_callable
from orchestrator.crash_report import EXIT_BUG


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
