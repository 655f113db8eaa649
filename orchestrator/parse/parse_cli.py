"""`invoke parse <logfile>`: any upstream console log -> RunResult (table or JSON)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.cli import print_json
from orchestrator.errors import OrchestratorError
from orchestrator.parse.result import parse_log
from orchestrator.results.model import Status
from orchestrator.results.summary_table import print_result

EXIT_NOT_PASSED = 1


def default_etdump_dir(logfile: Path) -> Path:
    """Where decoded ETDump files go unless told: `<log name>.etdump/` beside the log."""
    return logfile.with_name(logfile.name + ".etdump")


def parse_command(
    logfile: str,
    json: bool = False,
    etdump_dir: str | None = None,
    target: str | None = None,
) -> int:
    """Parse the log, print the result; exit 0 only when the run passed."""
    path = Path(logfile)
    if not path.is_file():
        raise OrchestratorError(
            f"log file {logfile} does not exist",
            "pass the path of a saved console log: invoke parse <logfile>",
        )
    events: tuple[str, ...] = ()
    if target:
        from orchestrator.targets import load_catalogue

        events = load_catalogue().target(target).pmu_events
    out_dir = Path(etdump_dir) if etdump_dir else default_etdump_dir(path)
    result = parse_log(path, out_dir, target=target, pmu_events=events)
    if json:
        print_json(result.to_dict())
    else:
        print_result(result)
    return 0 if result.status is Status.PASS else EXIT_NOT_PASSED
