"""Step progress on a non-terminal: one line when a step starts and ends, a `[n/N]` line at
most every 10 s from a real subprocess's ninja-style output, failures marked, quiet silent."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.progress import (
    LineReporter,
    QuietReporter,
    default_reporter,
    run_step,
    step,
    stream_command,
    using,
)

NINJA_LIKE = "for i in range(1, 13):\n    print(f'[{i}/12] Building CXX object op_{i}.o')\n"


class FakeClock:
    """Each reading is `tick` seconds after the previous one."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_build_lines_at_most_every_ten_seconds(tmp_path: Path) -> None:
    out = io.StringIO()
    with using(LineReporter(out, interval=10.0, clock=FakeClock(4.0))):
        done = stream_command([sys.executable, "-c", NINJA_LIKE], tmp_path / "build.log",
                              "build the runtime")
    lines = out.getvalue().splitlines()
    assert done.returncode == 0 and "[12/12]" in done.output
    assert lines[0] == "eor: build the runtime ..."
    assert lines[-1].startswith("eor: build the runtime done in ")
    counts = [line for line in lines if "[" in line]
    # 12 ninja lines, the clock moves 4 s per line: a line every third one (12 s apart)
    assert counts == ["eor: build the runtime [3/12]", "eor: build the runtime [6/12]",
                      "eor: build the runtime [9/12]", "eor: build the runtime [12/12]"]
    log = (tmp_path / "build.log").read_text().splitlines()
    assert log[0].startswith(sys.executable) and log[-1].startswith("[12/12]")


def test_failed_step_is_marked_and_raises_one_sentence(tmp_path: Path) -> None:
    out = io.StringIO()
    failing = "print('[1/2] cc a.c'); print('a.c:1: error: boom'); raise SystemExit(1)"
    with using(LineReporter(out)), pytest.raises(OrchestratorError) as caught:
        run_step([sys.executable, "-c", failing], tmp_path / "b.log", "build the thing")
    assert "a.c:1: error: boom" in caught.value.message
    assert str(tmp_path / "b.log") in caught.value.message
    assert "FAILED" in out.getvalue().splitlines()[-1]


def test_step_reports_an_exception_as_failed() -> None:
    out = io.StringIO()
    with using(LineReporter(out)), pytest.raises(ValueError), step("compile m"):
        raise ValueError("x")
    assert out.getvalue().splitlines()[-1].startswith("eor: compile m FAILED in")


def test_quiet_prints_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    with using(QuietReporter()):
        stream_command([sys.executable, "-c", NINJA_LIKE], tmp_path / "q.log", "build")
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("ETHOSU_ORCH_QUIET", "1")
    assert isinstance(default_reporter(), QuietReporter)
