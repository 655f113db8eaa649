"""Progress: rich bars on a terminal, one plain line per item in CI logs."""

from __future__ import annotations

import io

from rich.console import Console

from orchestrator.regress.progress import LineProgress, QuietProgress, RichProgress, make_progress


def test_line_progress_counts_per_phase():
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.phase("build", 2)
    progress.advance("build", "ok selftest-mps3-an547-cpu-release (8.0 s)")
    progress.phase("simulate", 1)
    progress.advance("simulate", "pass selftest@cortex-m55/default (0.2 s)")
    progress.advance("build", "cached runner (0.1 s)")
    assert stream.getvalue().splitlines() == [
        "[1/2] build    ok selftest-mps3-an547-cpu-release (8.0 s)",
        "[1/1] simulate pass selftest@cortex-m55/default (0.2 s)",
        "[2/2] build    cached runner (0.1 s)"]


def test_rich_progress_draws_bars_and_items():
    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    progress = RichProgress(console)
    progress.phase("simulate", 2)
    progress.advance("simulate", "pass a@cortex-m55/default")
    progress.advance("simulate", "fail b@cortex-m55/default")
    progress.close()
    text = console.file.getvalue()
    assert "pass a@cortex-m55/default" in text and "2/2" in text


def test_quiet_and_piped_choices():
    assert isinstance(make_progress(quiet=True), QuietProgress)
    assert isinstance(make_progress(), LineProgress)  # pytest captures stdout: not a tty
