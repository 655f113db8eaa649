"""`invoke doctor`: one table of everything the tool needs, with the fix for each problem."""

from __future__ import annotations

from orchestrator.foundation.cli import console, print_json
from orchestrator.foundation.doctor_model import Requirement, State
from orchestrator.foundation.paths import scratch
from orchestrator.options.inspect import DoctorCheck
from orchestrator.setup.doctor import blocking_problems, collect_checks
from orchestrator.targets import load_catalogue


def print_table(checks: list[Requirement]) -> None:
    from rich.table import Table

    styles = {State.OK: "green", State.MISSING: "red", State.WRONG_VERSION: "yellow",
              State.UNUSABLE: "red"}
    table = Table(title="ethosu-orchestrator doctor")
    for column in ("component", "state", "version", "found at", "fix"):
        table.add_column(column, overflow="fold")
    for check in checks:
        state = f"[{styles[check.state]}]{check.state.value}[/]"
        fix = check.fix + (f" ({check.detail})" if check.detail and not check.ok else "")
        table.add_row(check.name, state, check.version, check.found, fix)
    console().print(table)


def doctor_command(check: DoctorCheck | None = None, json: bool = False) -> int:
    """Print the checks; exit 1 if something the target (or the tool) needs is missing."""
    target = (check or DoctorCheck()).target
    catalogue = load_catalogue()
    chosen = catalogue.target(target) if target else None
    checks = collect_checks(scratch(), catalogue)
    problems = blocking_problems(checks, chosen)
    if json:
        print_json({"target": target, "ok": not problems,
                    "checks": [check.to_json() for check in checks],
                    "problems": [check.name for check in problems]})
    else:
        print_table(checks)
        scope = f"target {target}" if target else "the tool"
        verdict = "ready" if not problems else "not ready: " + ", ".join(c.name for c in problems)
        console().print(f"{scope}: {verdict}")
    return 1 if problems else 0
