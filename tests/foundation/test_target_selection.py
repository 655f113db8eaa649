"""Several targets at once: a comma list or a family wildcard over the catalogue."""

from __future__ import annotations

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets.selection import expand_targets


def test_a_list_keeps_its_order_and_names_each_target_once() -> None:
    assert expand_targets("ethos-u85-2048, ethos-u85-128,ethos-u85-2048") == [
        "ethos-u85-2048", "ethos-u85-128"]


def test_a_family_wildcard_gives_the_family_in_catalogue_order() -> None:
    assert expand_targets("ethos-u55-*") == ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128",
                                             "ethos-u55-256"]
    assert expand_targets("ethos-u85-*,cortex-m55")[-1] == "cortex-m55"


def test_unknown_names_and_empty_patterns_are_one_line_errors() -> None:
    with pytest.raises(OrchestratorError, match="unknown target 'ethos-u85-4096'"):
        expand_targets("ethos-u85-4096")
    with pytest.raises(OrchestratorError, match="matches no target") as raised:
        expand_targets("ethos-u99-*")
    assert raised.value.next_step == "invoke targets lists them all"
    with pytest.raises(OrchestratorError, match="no target given"):
        expand_targets(" , ")
