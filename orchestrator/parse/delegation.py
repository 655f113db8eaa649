"""ExecuTorch's delegation summary (exir.backend.utils.get_delegation_info().get_summary())."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine

FIELDS = {
    "Total delegated subgraphs": "subgraphs",
    "Number of delegated nodes": "delegated_nodes",
    "Number of non-delegated nodes": "non_delegated_nodes",
}


@rule(rf"^({'|'.join(FIELDS)}):\s*(\d+)")
def _count(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    setattr(facts.delegation_summary(), FIELDS[match[1]], int(match[2]))


class DelegationSummary(RuleConsumer):
    """The three counts of the delegation summary (docs print them with a trailing <br/>)."""

    rules = (_count,)
