"""Decide why a run ended (one Classification with its next step) from the parsed facts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data
from orchestrator.parse.facts import COMPLETION_MARKERS, FIRMWARE_MARKERS, LogFacts, Problem
from orchestrator.results.model import MAX_EVIDENCE, Classification, Kind, Status

CLASSIFICATIONS_PATH = DATA_DIR / "classifications.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
CLASSIFICATIONS_LAYOUT: dict[str, Layout] = {
    EACH: {"status": ANY, "next_step": ANY, "causes": {EACH: {"status": ANY, "next_step": ANY}}},
}

# Evidence that the run ended (so silence from the firmware is real, not a cut log).
ENDED_MARKERS = ("stopped", "wrapper_done", "exit_the_sim")
NEWLIB_ZU = "newlib-zu"
NEWLIB_ZU_NOTE = (
    "this runner was linked with newlib-nano, whose printf has no %zu: every size and source "
    "line it logged printed as 'zu'"
)
NEWLIB_ZU_STEP = (
    "; to see the numbers, rebuild with a runner that logs sizes with %lu (ExecuTorch PR "
    "#17091 / #22946) or link full newlib instead of --specs=nano.specs"
)
OVERRULED_NOTE = (
    "not why the run ended: the firmware printed, so the simulator did start (kept as a "
    "secondary finding)"
)
WRAPPER_PASS = "No problems found!"
FALSE_GREEN = f" (run_fvp.sh still printed '{WRAPPER_PASS}': its verdict is not a pass)"


@dataclass(frozen=True)
class KindRule:
    """How a kind reads to a user: the run status it implies and the next step template."""

    status: Status
    next_step: str


@dataclass(frozen=True)
class CauseRule(KindRule):
    """A cause a protocol run tells apart within a kind ([KIND.causes.NAME])."""

    kind: Kind = Kind.UNKNOWN


@cache
def _classifications() -> dict[str, Any]:
    """data/classifications.toml, read once."""
    return load_data(CLASSIFICATIONS_PATH, CLASSIFICATIONS_LAYOUT)


@cache
def kind_rules() -> dict[Kind, KindRule]:
    """Every kind's rule, in precedence order (data/classifications.toml)."""
    return {Kind(name): KindRule(Status(row["status"]), row["next_step"])
            for name, row in _classifications().items()}


@cache
def cause_rules() -> dict[str, CauseRule]:
    """Every named cause with its kind, status (the kind's unless given) and next step."""
    return {name: CauseRule(Status(row.get("status", kind_row["status"])), row["next_step"],
                            Kind(kind))
            for kind, kind_row in _classifications().items()
            for name, row in kind_row.get("causes", {}).items()}


def status_of(kind: Kind) -> Status:
    """The run status a classification kind implies."""
    return kind_rules()[kind].status


class _Blank(dict[str, Any]):
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


def deciding_problems(facts: LogFacts) -> tuple[list[Problem], list[Problem]]:
    """(problems that may decide the verdict, pre-run lines the firmware's output overrules).

    Once the firmware has printed, no launcher, simulator start-up or build line can mean the
    run never started: such lines become secondary findings, wherever they stand in the log.
    """
    if not facts.firmware_printed():
        return facts.problems, []
    return ([p for p in facts.problems if not p.pre_run],
            [p for p in facts.problems if p.pre_run])


def secondary_finding(problem: Problem) -> dict[str, Any]:
    """A pre-run line kept beside the verdict it did not decide."""
    finding: dict[str, Any] = {
        "kind": problem.kind.value,
        "line": problem.line,
        "line_number": problem.number,
        "note": OVERRULED_NOTE,
    }
    if "cause" in problem.details:
        finding["cause"] = problem.details["cause"]
    return finding


def _from_problems(facts: LogFacts, problems: list[Problem]) -> Classification | None:
    """Classify by the most telling failure line, if any."""
    root = _root_problem(problems)
    if root is None:
        return None
    evidence = [root.line] + [p.line for p in problems if p is not root]
    details = dict(root.details)
    if "pool" in details:
        # the console-line rules load with the advice: a run's protocol stream needs none
        from orchestrator.parse.memory import pool_advice
        from orchestrator.parse.platform import PLATFORM

        details["pool_advice"] = pool_advice(details["pool"], facts.runner.get(PLATFORM))
    others = sorted({p.kind.value for p in problems if p.kind is not root.kind})
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
    from orchestrator.parse.fvp_stops import limit_of  # a stopped run's reason only

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


def _how_far(facts: LogFacts) -> str:
    """'executed the model and printed 1 output' - the furthest progress the log shows."""
    steps = [
        ("executed", "executed the model"),
        ("started", "started the model"),
        ("method_loaded", "loaded the method"),
        ("model_loaded", "loaded the model"),
    ]
    reached = next((text for name, text in steps if name in facts.markers), "printed output")
    if facts.outputs:
        count = len(facts.outputs)
        reached += f" and printed {count} output{'s' if count > 1 else ''}"
    return reached


def _report_kind(facts: LogFacts) -> str | None:
    """What a log without any run is: a Vela report, a delegation summary, build output."""
    found = []
    if facts.vela is not None or "vela" in facts.markers:
        npu = facts.vela.npu_operators if facts.vela else None
        operators = f" ({npu} NPU operators)" if npu is not None else ""
        found.append(f"a Vela compile report{operators}")
    if facts.delegation is not None:
        found.append(f"an ExecuTorch delegation summary ({facts.delegation.delegated_nodes} "
                     f"delegated nodes in {facts.delegation.subgraphs} subgraphs)")
    if "build" in facts.markers and not found:
        found.append("build output")
    return " and ".join(found) or None


def _from_progress(facts: LogFacts) -> Classification:
    """Classify a log without failure lines by how far the firmware got (never a guess)."""
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
    return _unfinished(facts)


def _unfinished(facts: LogFacts) -> Classification:
    """A log without completion: cut (output exists), silent after a real end, or no run."""
    if any(name in facts.markers for name in FIRMWARE_MARKERS) or facts.outputs:
        summary = f"the firmware {_how_far(facts)}, but the log ends before a completion marker"
        return make_classification(Kind.INCOMPLETE, summary, [])
    ended = any(name in facts.markers for name in ENDED_MARKERS)
    if "simulator" in facts.markers and not ended:
        summary = "the log ends after the simulator started, before any firmware output (cut?)"
        return make_classification(Kind.INCOMPLETE, summary, [])
    report = _report_kind(facts)
    if report is not None and not ended:
        return make_classification(Kind.NOT_A_RUN_LOG, f"the log holds {report}, not a run", [])
    if facts.log.unknown_count and not ended:
        summary = (
            f"none of the log's {facts.log.unknown_count} lines is a runner line this tool "
            "knows, and there is no completion marker"
        )
        return make_classification(Kind.INCOMPLETE, summary, facts.log.unknown[:3])
    summary = "no runner output at all"
    if "simulator" in facts.markers:
        summary += " (the simulator ran and stopped, but the firmware printed nothing)"
    return make_classification(Kind.NO_OUTPUT, summary, [])


def _explain_formats(facts: LogFacts, found: Classification) -> None:
    """Say what a broken log format means (newlib-nano's missing %zu) and how to fix it."""
    if NEWLIB_ZU not in facts.log.formats:
        return
    found.details["log_note"] = NEWLIB_ZU_NOTE
    found.summary += " (sizes and source lines print as 'zu': newlib-nano printf lacks %zu)"
    found.next_step += NEWLIB_ZU_STEP


def classify(facts: LogFacts) -> Classification:
    """The cause of the run's end: failures first, then limits, then how far the runner got."""
    problems, overruled = deciding_problems(facts)
    found = _from_problems(facts, problems)
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
    if overruled:
        found.details["secondary"] = [secondary_finding(problem) for problem in overruled]
    _explain_formats(facts, found)
    if (
        facts.simulation.wrapper_verdict == WRAPPER_PASS
        and status_of(found.kind) is not Status.PASS
    ):
        found.summary += FALSE_GREEN
    return found
