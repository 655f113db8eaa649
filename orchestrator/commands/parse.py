"""`invoke parse <logfile or folder>`: any upstream console log -> RunResult (table or JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orchestrator.foundation.cli import console, print_json
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.parse import ParseTask
from orchestrator.parse.batch import NOT_TEXT, table_rows
from orchestrator.parse.result import parse_log
from orchestrator.parse.text_log import not_a_text_log, not_text_reason
from orchestrator.results.model import RunResult, Status
from orchestrator.results.summary_table import STATUS_STYLE, print_result

EXIT_NOT_PASSED = 1


def default_etdump_dir(logfile: Path) -> Path:
    """Where decoded ETDump files go unless told: `<log name>.etdump/` beside the log."""
    return logfile.with_name(logfile.name + ".etdump")


def parse_command(task: ParseTask, json: bool = False) -> int:
    """Parse the log (or every log in a directory), print the result; exit 0 only on pass."""
    logfile, etdump_dir, target = task.logfile, task.etdump_dir, task.target
    path = Path(logfile)
    if not path.exists():
        raise OrchestratorError(
            f"log file {logfile} does not exist",
            "pass the path of a saved console log or of a folder of logs: invoke parse <logfile>",
        )
    events: tuple[str, ...] = ()
    if target:
        from orchestrator.targets import load_catalogue

        events = load_catalogue().target(target).pmu_events
    if path.is_dir():
        return _parse_directory(path, json, etdump_dir, target, events)
    reason = not_text_reason(path)
    if reason:
        raise OrchestratorError(
            not_a_text_log(path, reason),
            "pass the saved text console output of a run: invoke parse <logfile>",
        )
    out_dir = Path(etdump_dir) if etdump_dir else default_etdump_dir(path)
    etrecord = Path(task.etrecord) if task.etrecord else None
    if etrecord is not None and not etrecord.is_file():
        raise OrchestratorError(f"ETRecord {etrecord} does not exist",
                                "pass the etrecord.bin of the compiled model: invoke parse "
                                f"{logfile} --etrecord <file>")
    result = parse_log(path, out_dir, etrecord, target=target, pmu_events=events)
    if json:
        print_json(result.to_dict())
    else:
        print_result(result)
    return 0 if result.status is Status.PASS else EXIT_NOT_PASSED


def _parse_directory(
    directory: Path,
    json: bool,
    etdump_dir: str | None,
    target: str | None,
    events: tuple[str, ...],
) -> int:
    """Every .log/.txt file of `directory`: one table (or a JSON list); 0 only if all passed."""
    from orchestrator.parse.batch import logs_in

    logs = logs_in(directory)
    if not logs:
        raise OrchestratorError(
            f"folder {directory} holds no .log or .txt file",
            "save the console output as <name>.log in it, then run: invoke parse <folder>",
        )
    reasons = {log: not_text_reason(log) for log in logs}
    not_text = [(log, reason) for log, reason in reasons.items() if reason]
    results = [
        (
            log,
            parse_log(
                log,
                Path(etdump_dir) / log.name if etdump_dir else default_etdump_dir(log),
                target=target,
                pmu_events=events,
            ),
        )
        for log in logs
        if not reasons[log]
    ]
    if json:
        print_json(
            [{"log": str(log), "result": result.to_dict()} for log, result in results]
            + [{"log": str(log), "error": not_a_text_log(log, why)} for log, why in not_text]
        )
    else:
        print_table(results, not_text)
    passed = not not_text and all(result.status is Status.PASS for _, result in results)
    return 0 if passed else EXIT_NOT_PASSED


def print_table(
    results: Sequence[tuple[Path, RunResult]], not_text: Sequence[tuple[Path, str]] = ()
) -> None:
    """One table: a row per log with its verdict (and per binary file, why it is not a log),
    then a count per status."""
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for title in ("log", "status", "kind", "reason"):
        table.add_column(title, overflow="fold")
    for (name, status, kind, reason), (_, result) in zip(table_rows(results), results, strict=True):
        table.add_row(name, status, kind, reason, style=STATUS_STYLE[result.status])
    for path, why in not_text:
        table.add_row(path.name, NOT_TEXT, "-", f"not a text log ({why})", style="red")
    out = console()
    out.print(table)
    counts: dict[str, int] = {}
    for _, result in results:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    if not_text:
        counts[NOT_TEXT] = len(not_text)
    total = len(results) + len(not_text)
    out.print(f"{total} logs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
