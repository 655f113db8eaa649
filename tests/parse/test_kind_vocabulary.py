"""One failure-kind vocabulary: the Kind enum, data/classifications.toml and the causes the
simulator layer tells apart (rows under their kind) agree; one evidence limit."""

from __future__ import annotations

from orchestrator.foundation.tomlfile import DATA_DIR, load_toml
from orchestrator.parse.classify import cause_rules, kind_rules
from orchestrator.results.model import MAX_EVIDENCE, Kind, Status
from orchestrator.sim.classify import Verdict


def test_every_kind_has_exactly_one_row_and_every_row_is_a_kind():
    table = load_toml(DATA_DIR / "classifications.toml")
    assert set(table) == {kind.value for kind in Kind}
    assert set(kind_rules()) == set(Kind)


def test_simulator_causes_are_rows_under_a_kind():
    causes = cause_rules()
    assert {"pass", "fail", "abort", "hard_fault", "timeout", "hang", "stale_firmware",
            "protocol_error", "incomplete", "no_output", "launch_failure"} <= set(causes)
    assert causes["hang"].kind is Kind.TIMEOUT and causes["hang"].status is Status.TIMEOUT
    assert causes["fail"].kind is Kind.ASSERTION and causes["fail"].status is Status.FAIL
    assert causes["abort"].status is Status.ERROR


def test_a_verdict_speaks_kind_and_keeps_at_most_the_evidence_limit():
    verdict = Verdict("protocol_error", "lost records", [f"line {i}" for i in range(20)])
    assert verdict.kind is Kind.INCOMPLETE and verdict.status is Status.ERROR
    assert len(verdict.evidence) == MAX_EVIDENCE
