"""Source trees side by side are found under their own names (as setup and the pins call
them: /work/upstream/{executorch,cmsis-nn,ethosu-core-driver,cmsis}) and under the names
upstream checkouts usually have."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.runner.sources import RUNTIME_TREES, trees_under


def test_each_tree_is_found_under_its_own_name(tmp_path: Path) -> None:
    for name in RUNTIME_TREES:
        (tmp_path / name).mkdir()
    assert trees_under(tmp_path) == {name: tmp_path / name for name in RUNTIME_TREES}


@pytest.mark.parametrize(("directory", "tree"), [("ethos-u-core-driver", "ethosu-core-driver"),
                                                 ("CMSIS_6", "cmsis"), ("CMSIS-NN", "cmsis-nn")])
def test_usual_checkout_names_still_count(directory: str, tree: str, tmp_path: Path) -> None:
    (tmp_path / directory).mkdir()
    assert trees_under(tmp_path) == {tree: tmp_path / directory}
