"""Baselines: metrics per (model, target, options) with the versions that produced them.

Every metric is compared with a relative and an absolute tolerance that fail in BOTH
directions (an unexplained improvement is also a change to look at); a version change
is reported beside any metric that moved.

An entry is keyed by its toolset too (the AOT stack that compiled it: executorch, Vela,
tosa-tools, torch). A run under another toolset is not compared metric by metric (a toolset
bump would otherwise show up as a regression of every cell): its check says "toolset
changed", names the versions, and --update-baselines records the new toolset's numbers.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_json_atomic

BASELINE_SCHEMA = 1
DEFAULT_TOLERANCES: dict[str, dict[str, float]] = {
    "vela.*": {"rel": 0.0, "abs": 0.0},
    "memory.*": {"rel": 0.0, "abs": 0.0},
    "error.*": {"rel": 0.0, "abs": 1e-6},
    "accuracy.*": {"rel": 0.0, "abs": 1e-6},
    "*": {"rel": 0.03, "abs": 0.0},
}


# The version fields (orchestrator/regress/verdict/metrics.py extract_versions) that name a toolset.
TOOLSET_FIELDS = ("executorch", "vela", "extra.tosa-tools", "extra.torch")


def toolset_of(versions: dict[str, str]) -> dict[str, str]:
    """The toolset part of a cell's versions."""
    return {name: versions[name] for name in TOOLSET_FIELDS if name in versions}


@dataclass(frozen=True)
class Tolerance:
    """|value - baseline| <= abs + rel * |baseline| is within tolerance."""

    rel: float
    abs: float

    def allows(self, baseline: float, value: float) -> bool:
        """True when `value` is close enough to `baseline`, whichever direction it moved."""
        return abs(value - baseline) <= self.abs + self.rel * abs(baseline)


@dataclass
class MetricDelta:
    """One metric of a cell against its baseline."""

    metric: str
    baseline: float | None
    value: float | None
    tolerance: Tolerance

    @property
    def ok(self) -> bool:
        """Within tolerance (a metric that vanished is not)."""
        if self.baseline is None:
            return True
        return self.value is not None and self.tolerance.allows(self.baseline, self.value)

    @property
    def moved(self) -> bool:
        """True when the value differs from the baseline at all."""
        return self.baseline != self.value

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.value is None:
            return None
        return self.value - self.baseline

    @property
    def relative(self) -> float | None:
        """Delta as a fraction of the baseline (None when the baseline is 0 or missing)."""
        delta = self.delta
        return None if delta is None or not self.baseline else delta / abs(self.baseline)

    def describe(self) -> str:
        """'cpu.cycles 1000 -> 1100 (+10.00%, tolerance ±3% +0)'."""
        if self.value is None:
            return f"{self.metric} {fmt(self.baseline)} -> missing"
        if self.baseline is None:
            return f"{self.metric} new {fmt(self.value)}"
        relative = self.relative
        shown = f"{relative:+.2%}" if relative is not None else f"{fmt(self.delta)}"
        return (f"{self.metric} {fmt(self.baseline)} -> {fmt(self.value)} ({shown}, "
                f"tolerance ±{self.tolerance.rel:g} rel +{self.tolerance.abs:g} abs)")


@dataclass
class BaselineCheck:
    """A cell's metrics compared with its baseline entry."""

    status: str  # "ok" | "regressed" | "no-baseline" | "toolset-changed"
    deltas: list[MetricDelta] = field(default_factory=list)
    version_changes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    @property
    def regressions(self) -> list[MetricDelta]:
        return [delta for delta in self.deltas if not delta.ok]

    def summary(self) -> str:
        """One line: which metrics moved out of tolerance and by how much, plus version changes."""
        if self.status == "no-baseline":
            return "no baseline entry (run with --update-baselines to record one)"
        if self.status == "toolset-changed":
            return ("toolset changed (" + ", ".join(
                f"{name.removeprefix('extra.')} {old} -> {new}"
                for name, (old, new) in self.version_changes.items()) +
                "): metrics not compared; record this toolset's with --update-baselines")
        moved = self.regressions or [delta for delta in self.deltas if delta.moved]
        text = "; ".join(delta.describe() for delta in moved) or "all metrics equal"
        if self.version_changes and moved:
            text += " [versions changed: " + ", ".join(
                f"{name} {old} -> {new}" for name, (old, new) in self.version_changes.items()
            ) + "]"
        return text


@dataclass(frozen=True)
class BaselineEntry:
    """One entry of the baselines file: a cell's identity, the metrics it recorded, the versions
    (and toolset) that produced them, the run, and tolerances a person set for it."""

    model: str
    target: str
    options: str
    metrics: dict[str, float]
    versions: dict[str, str]
    run_id: str
    toolset: dict[str, str] | None = None       # absent in files written before toolsets
    tolerances: dict[str, dict[str, float]] | None = None   # hand-set, kept by updates

    @classmethod
    def from_json(cls, path: Path, key: str, document: object) -> BaselineEntry:
        """The entry `key` as the file holds it; a missing or unknown key is one sentence."""
        names = [item.name for item in fields(cls)]
        required = {item.name for item in fields(cls) if item.default is MISSING}
        if not isinstance(document, dict) or required - set(document) or set(document) - set(names):
            got = sorted(document) if isinstance(document, dict) else type(document).__name__
            raise OrchestratorError(
                f"baselines file {path}: entry {key!r} holds {got}, not the keys "
                f"{sorted(required)} (optional: toolset, tolerances)",
                "fix or delete that entry, then invoke regress --update-baselines")
        return cls(**{name: document[name] for name in names if name in document})

    def to_json(self) -> dict[str, Any]:
        """The entry as the file holds it (an absent optional key stays absent)."""
        return {item.name: getattr(self, item.name) for item in fields(self)
                if getattr(self, item.name) is not None}


@dataclass
class Baselines:
    """The baselines file: entries keyed by 'model@target/options'."""

    path: Path
    entries: dict[str, BaselineEntry] = field(default_factory=dict)

    def check(self, key: str, metrics: dict[str, float], versions: dict[str, str],
              tolerances: dict[str, dict[str, float]]) -> BaselineCheck:
        """Compare one cell's metrics with its entry, in both directions."""
        entry = self.entries.get(key)
        if entry is None:
            return BaselineCheck("no-baseline")
        changed = _toolset_changes(entry, versions)
        if changed:
            return BaselineCheck("toolset-changed", version_changes=changed)
        patterns = {**DEFAULT_TOLERANCES, **tolerances, **(entry.tolerances or {})}
        recorded = entry.metrics
        deltas = [MetricDelta(name, recorded.get(name), metrics.get(name),
                              tolerance_for(name, patterns))
                  for name in sorted(set(recorded) | set(metrics))]
        check = BaselineCheck("ok", deltas, _version_changes(entry.versions, versions))
        if check.regressions:
            check.status = "regressed"
        return check

    def update(self, key: str, identity: dict[str, str], metrics: dict[str, float],
               versions: dict[str, str], run_id: str) -> list[str]:
        """Replace one entry's metrics and versions (its tolerances stay); return the diff."""
        old = self.entries.get(key)
        self.entries[key] = BaselineEntry(
            model=identity["model"], target=identity["target"], options=identity["options"],
            metrics=dict(sorted(metrics.items())), versions=versions,
            toolset=toolset_of(versions), run_id=run_id,
            tolerances=old.tolerances if old is not None else None)
        return diff_lines(key, old.metrics if old is not None else None, metrics)

    def save(self) -> None:
        """Write atomically (temp file + rename), stable key order."""
        entries = {key: entry.to_json() for key, entry in sorted(self.entries.items())}
        write_json_atomic(self.path, {"schema": BASELINE_SCHEMA, "entries": entries})


def load_baselines(path: Path) -> Baselines:
    """Read a baselines file (an absent file is an empty set of baselines)."""
    if not path.is_file():
        return Baselines(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise OrchestratorError(f"baselines file {path} is not valid JSON ({error})",
                                "fix it, or delete it and run invoke regress --update-baselines"
                                ) from None
    if document.get("schema") != BASELINE_SCHEMA or not isinstance(document.get("entries"), dict):
        raise OrchestratorError(f"baselines file {path} is not a schema {BASELINE_SCHEMA} "
                                "baselines document",
                                "invoke regress --update-baselines to rewrite it")
    return Baselines(path, {key: BaselineEntry.from_json(path, key, entry)
                            for key, entry in document["entries"].items()})


def tolerance_for(metric: str, patterns: dict[str, dict[str, float]]) -> Tolerance:
    """The exact entry for `metric`, else the most specific (longest) matching glob."""
    if metric in patterns:
        return Tolerance(**patterns[metric])
    matching = [pattern for pattern in patterns if fnmatch.fnmatchcase(metric, pattern)]
    if not matching:
        return Tolerance(0.0, 0.0)
    return Tolerance(**patterns[max(matching, key=len)])


def _toolset_changes(entry: BaselineEntry, versions: dict[str, str]
                     ) -> dict[str, tuple[str | None, str | None]]:
    """The toolset versions known both to the entry and to this run that differ."""
    recorded = entry.toolset or toolset_of(entry.versions)
    current = toolset_of(versions)
    return {name: (recorded[name], current[name]) for name in TOOLSET_FIELDS
            if name in recorded and name in current and recorded[name] != current[name]}


def _version_changes(old: dict[str, str], new: dict[str, str]
                     ) -> dict[str, tuple[str | None, str | None]]:
    """Components whose version differs between the baseline and this run."""
    names = sorted(set(old) | set(new))
    return {name: (old.get(name), new.get(name)) for name in names
            if old.get(name) != new.get(name)}


def diff_lines(key: str, old: dict[str, float] | None, new: dict[str, float]) -> list[str]:
    """Human diff of one entry: added, removed and changed metrics."""
    if old is None:
        return [f"+ {key}: new entry ({len(new)} metrics)"]
    lines = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if before is None:
            lines.append(f"+ {key} {name} = {fmt(after)}")
        elif after is None:
            lines.append(f"- {key} {name} (was {fmt(before)})")
        else:
            lines.append(f"~ {key} {name} {fmt(before)} -> {fmt(after)}")
    return lines


def fmt(value: float | None) -> str:
    """Numbers as people read them: integers plainly, floats with 6 significant digits."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6g}"
