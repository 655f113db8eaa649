"""Turn parsed log facts into a RunResult (the same document our own runs produce)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.parse.classify import classify, completed_at, status_of
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.upstream import parse_file
from orchestrator.results.model import RunResult, Versions

CATALOGUE_EVENTS = "target catalogue (the log printed no event list)"


def merge_versions(found: Versions, given: Versions | None) -> Versions:
    """Versions the caller knows win; the log fills in the rest."""
    if given is None:
        return found
    merged = dataclasses.replace(given, extra={**found.extra, **given.extra})
    for field in dataclasses.fields(Versions):
        if getattr(merged, field.name) is None:
            setattr(merged, field.name, getattr(found, field.name))
    return merged


def label_from_catalogue(facts: LogFacts, events: Sequence[str]) -> None:
    """Name unlabelled PMU counters from the target's event set (saying where names came from)."""
    if facts.npu is None or not events or facts.npu.event_source:
        return
    for counter in facts.npu.counters:
        if counter.event is None and counter.index < len(events):
            counter.event = events[counter.index]
    facts.npu.event_source = CATALOGUE_EVENTS


def result_from_facts(
    facts: LogFacts,
    *,
    source: str = "upstream-log",
    model: str | None = None,
    target: str | None = None,
    pmu_events: Sequence[str] = (),
    versions: Versions | None = None,
    transcript: Path | None = None,
    timings_s: dict[str, float] | None = None,
    run_id: str | None = None,
) -> RunResult:
    """Classify the facts and assemble the RunResult document."""
    label_from_catalogue(facts, pmu_events)
    classification = classify(facts)
    facts.simulation.completed = completed_at(facts) is not None
    facts.log.stated = dict(facts.runner)
    facts.target.name = target or facts.target.name
    if facts.target.simulator is None:
        facts.target.simulator = facts.versions.simulator
    artifacts = dict(facts.artifacts)
    if transcript is not None:
        artifacts["transcript"] = str(transcript)
    result = RunResult(
        status=status_of(classification.kind),
        reason=classification.summary,
        classification=classification,
        source=source,
        model=model,
        target=facts.target,
        versions=merge_versions(facts.versions, versions),
        outputs=facts.outputs,
        comparison=facts.comparison,
        npu=facts.npu,
        cpu=facts.cpu,
        vela=facts.vela,
        memory=facts.memory,
        delegation=facts.delegation,
        simulation=facts.simulation,
        timings_s=dict(timings_s or {}),
        artifacts=artifacts,
        log=facts.log,
    )
    if run_id:
        result.run_id = run_id
    return result


# upstream's arm_executor_runner: et_pal_current_ticks() is the PMU cycle counter
UPSTREAM_TICKS = "cycles"


def parse_log(path: Path, etdump_dir: Path | None = None, etrecord: Path | None = None,
              **metadata: Any) -> RunResult:
    """Parse a saved upstream console log into a RunResult (ETDump blobs go to etdump_dir;
    the ETDump, read with `etrecord` when given, becomes the result's profile; the profile
    modules are imported only then)."""
    from orchestrator.profile.attach import attach_profile

    result = result_from_facts(parse_file(path, etdump_dir), transcript=path, **metadata)
    etdump = result.artifacts.get("etdump")
    if etdump and etdump_dir is not None:
        result = attach_profile(result, Path(etdump).read_bytes(), etdump_dir,
                                etrecord=etrecord, source=UPSTREAM_TICKS)
    return result
