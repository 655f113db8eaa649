"""--shard splits deterministically and evenly; --filter selects by names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.plan.cells import Cell, Mode
from orchestrator.regress.plan.matrix import MODE_WEIGHTS
from orchestrator.regress.plan.select import (
    assign_shards,
    filter_cells,
    parse_shard,
    shard_cells,
)


def cell(model: str, target: str = "cortex-m55", mode: Mode = Mode.RUN) -> Cell:
    return Cell(model, model, target, "default", (), mode, "lane", "qemu", 60.0,
                weight=MODE_WEIGHTS[mode])


cells_strategy = st.lists(
    st.tuples(st.text("abcdefgh", min_size=1, max_size=6), st.sampled_from(list(Mode))),
    min_size=0, max_size=40, unique_by=lambda item: item[0],
).map(lambda items: [cell(name, mode=mode) for name, mode in items])


@given(cells_strategy, st.integers(1, 7))
def test_shards_partition_the_cells_evenly(cells, count):
    shards = assign_shards(cells, count)
    keys = [c.key for shard in shards for c in shard]
    assert sorted(keys) == sorted(c.key for c in cells)  # every cell exactly once
    loads = [sum(c.weight for c in shard) for shard in shards]
    heaviest = max((c.weight for c in cells), default=0)
    assert max(loads) - min(loads) <= heaviest  # greedy LPT bound
    assert assign_shards(list(reversed(cells)), count) == shards  # input order does not matter


def test_shard_selection_is_one_based_and_stable():
    cells = [cell(f"m{i}", mode=mode) for i, mode in enumerate([Mode.RUN] * 3 + [Mode.COMPILE])]
    first = shard_cells(cells, parse_shard("1/2"))
    second = shard_cells(cells, parse_shard("2/2"))
    assert {c.key for c in first} | {c.key for c in second} == {c.key for c in cells}
    assert not {c.key for c in first} & {c.key for c in second}
    assert shard_cells(cells, None) == sorted(cells, key=lambda c: c.key)


@pytest.mark.parametrize("text", ["0/2", "3/2", "1-2", "a/b", "2"])
def test_bad_shard_is_one_line(text):
    with pytest.raises(OrchestratorError, match="is not i/N"):
        parse_shard(text)


def test_filter_matches_model_target_or_key():
    cells = [cell("add"), cell("mv2", "ethos-u55-128"), cell("softmax", "ethos-u85-256")]
    assert [c.model for c in filter_cells(cells, ["add"])] == ["add"]
    assert [c.model for c in filter_cells(cells, ["ethos-u*"])] == ["mv2", "softmax"]
    assert [c.model for c in filter_cells(cells, ["soft*@*"])] == ["softmax"]
    assert filter_cells(cells, []) == cells
    assert filter_cells(cells, ["nothing"]) == []
