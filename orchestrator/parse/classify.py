"""Decide why a run ended (one Classification with its next step) from the parsed facts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from orchestrator._toml import DATA_DIR, load_toml
from orchestrator.parse.facts import LogFacts, Problem
from orchestrator.parse.fvp_stops import limit_of
from orchestrator.results.model import MAX_EVIDENCE, Classification, Kind, Status

CLASSIFICATIONS_PATH = DATA_DIR / "classifications.toml"
COMPLETION_MARKERS = ("complete", "app_exit", "bundle_pass", "eot")
WRAPPER_PASS = "No problems found!"
FALSE_GREEN = f" (run_fvp.sh still printed '{WRAPPER_PASS}': its verdict is not a pass)"


@dataclass(frozen=True)
class KindRule:
    """How a kind reads to a user: the run status it implies and the next step template."""

    status: Status
    next_step: str


@cache
def kind_rules() -> dict[Kind, KindRule]:
    """Every kind's rule, in precedence order (data/classifications.toml)."""
    table = load_toml(CLASSIFICATIONS_PATH)
    return {
        Kind(name): KindRule(Status(row["status"]), row["next_step"]) for name, row in table.items()
    }


@dataclass(frozen=True)
class CauseRule:
    """A cause a protocol run tells apart within a kind ([KIND.causes.NAME])."""

    kind: Kind
    status: Status
    next_step: str


@cache
def cause_rules() -> dict[str, CauseRule]:
    """Every named cause with its kind, status (the kind's unless given) and next step."""
    table = load_toml(CLASSIFICATIONS_PATH)
    return {
        name: CauseRule(Kind(kind), Status(row.get("status", table[kind]["status"])),
                        row["next_step"])
        for kind, kind_row in table.items() for name, row in kind_row.get("causes", {}).items()
    }


def status_of(kind: Kind) -> Status:
    """The run status a classification kind implies."""
    return kind_rules()[kind].status


class _Blank(dict):
    """Format mapping that shows 'unknown' for details a log did not print."""

    def __missing__(self, key: str) -> str:
        return "unknown"


def next_step_for(kind: Kind, details: dict[str, Any]) -> str:
    """The next step for `kind`, filled in with the details that are known."""
    values = _Blank(details)
    pc = details.get("registers", {}).get("pc")
    if pc is not None:
        values["pc_hex"] = f"0x{pc:08x}"
    return kind_rules()[kind].next_step.format_map(values)


def make_classification(
    kind: Kind,
    summary: str,
    evidence: list[str],
    details: dict[str, Any] | None = None,
    next_step: str | None = None,
) -> Classification:
    """A Classification with its next step filled in."""
    details = details or {}
    return Classification(
        kind=kind,
        summary=summary,
        next_step=next_step or next_step_for(kind, details),
        evidence=evidence[:MAX_EVIDENCE],
        details=details,
    )


def completed_at(facts: LogFacts) -> int | None:
    """Line number where the runner reported it finished (None if it never did)."""
    return facts.first(*COMPLETION_MARKERS)


def _root_problem(problems: list[Problem]) -> Problem | None:
    """The problem that explains the others (earliest kind in precedence order)."""
    order = list(kind_rules())
    ranked = sorted(problems, key=lambda p: (order.index(p.kind), p.number))
    return ranked[0] if ranked else None


def _from_problems(facts: LogFacts) -> Classification | None:
    """Classify by the most telling failure line, if any."""
    root = _root_problem(facts.problems)
    if root is None:
        return None
    evidence = [root.line] + [p.line for p in facts.problems if p is not root]
    details = dict(root.details)
    others = sorted({p.kind.value for p in facts.problems if p.kind is not root.kind})
    if others:
        details["also"] = others
    return make_classification(root.kind, root.summary, evidence, details, root.next_step)


def _from_stop(facts: LogFacts) -> Classification | None:
    """A simulator limit that ended the run before the runner finished."""
    stop = facts.markers.get("stop_limit")
    if stop is None:
        return None
    done = completed_at(facts)
    if done is not None and done < stop:
        return None
    reason = facts.simulation.stop_reason or "limit reached"
    limit = limit_of(reason)
    kind = limit.kind if limit is not None else Kind.CPU_TIME_LIMIT
    where = (
        "after the runner started"
        if "runner" in facts.markers
        else "before the runner printed anything"
    )
    summary = f"the simulator stopped {where}: {reason}"
    return make_classification(
        kind, summary, [f"Info: Simulation is stopping. Reason: {reason}."], {"stop_reason": reason}
    )


def _what_it_reported(facts: LogFacts) -> str:
    """' (2 outputs, NPU PMU report)' - what a completed run left to look at."""
    parts = []
    if facts.outputs:
        parts.append(f"{len(facts.outputs)} output{'s' if len(facts.outputs) > 1 else ''}")
    if facts.npu is not None:
        parts.append("NPU PMU report")
    if facts.comparison is not None and facts.comparison.passed:
        parts.append("BundleIO match")
    return f" ({', '.join(parts)})" if parts else ""


def _from_progress(facts: LogFacts) -> Classification:
    """Classify a log without failure lines by how far the runner got."""
    done = completed_at(facts)
    if done is not None:
        summary = f"the runner completed{_what_it_reported(facts)}"
        if "stop_limit" in facts.markers:
            summary += "; then the simulator hit its time limit (this runner does not stop it)"
        return make_classification(Kind.SUCCESS, summary, [])
    if facts.simulation.host_timeout_s is not None:
        deadline = facts.simulation.host_timeout_s
        summary = f"no end-of-run marker within the host deadline of {deadline:g} s"
        return make_classification(Kind.TIMEOUT, summary, [])
    if "runner" in facts.markers or facts.outputs:
        return make_classification(
            Kind.INCOMPLETE, "the log ends before the runner reported completion", []
        )
    summary = "no runner output at all"
    if facts.vela is not None:
        summary += " (the log holds a Vela compile report only)"
    elif "simulator" in facts.markers:
        summary += " (the simulator started but the runner printed nothing)"
    return make_classification(Kind.NO_OUTPUT, summary, [])


def classify(facts: LogFacts) -> Classification:
    """The cause of the run's end: failures first, then limits, then how far the runner got."""
    found = _from_problems(facts)
    if found is None and facts.log.errors:
        first = facts.log.errors[0]
        found = make_classification(
            Kind.UNKNOWN, f"an unrecognised error line: {first}", facts.log.errors
        )
    if found is None and "run_failed" in facts.markers:
        found = make_classification(
            Kind.EXECUTION_FAILURE, "the runner reported `Model run: 0`", []
        )
    found = found or _from_stop(facts) or _from_progress(facts)
    if (
        facts.simulation.wrapper_verdict == WRAPPER_PASS
        and status_of(found.kind) is not Status.PASS
    ):
        found.summary += FALSE_GREEN
    return found
