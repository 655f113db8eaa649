"""The compile stage is one lowering per (model, NPU family) first, then one Vela run per
configuration; on a cluster a configuration's compile task runs after the lowering's and
receives it (as bytes here: the workers do not see the client's scratch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.engine import planned
from orchestrator.regress.lanes.stages import CompileJob
from orchestrator.regress.plan.lowering import lowering_leaders
from orchestrator.regress.report.document import LAST_POINTER

U85 = ("ethos-u85-128", "ethos-u85-512", "ethos-u85-2048")
MATRIX = f"""
name = "family-column"
[[lanes]]
name = "npu-compile"
mode = "compile"
models = ["add"]
targets = {json.dumps(list(U85))}
"""


def _request(model: str, target: str) -> CompileJob:
    return CompileJob(model, model, target, ())


def test_the_first_request_of_each_lowering_lowers_for_the_others() -> None:
    requests = [_request("add", "ethos-u85-128"), _request("add", "ethos-u55-32"),
                _request("add", "ethos-u85-2048"), _request("convnet", "ethos-u85-256"),
                _request("add", "ethos-u65-512"), _request("no-such-model", "ethos-u85-512")]
    assert lowering_leaders(requests) == {
        requests[0]: None, requests[1]: None, requests[2]: requests[0], requests[3]: None,
        requests[4]: requests[1], requests[5]: None}


def test_the_local_plan_lowers_each_family_first_then_runs_vela() -> None:
    requests = [_request("add", target) for target in
                ("ethos-u55-32", "ethos-u55-64", "ethos-u85-128", "ethos-u85-2048")]
    assert [r.target for r in planned(requests)] == [
        "ethos-u55-32", "ethos-u85-128", "ethos-u55-64", "ethos-u85-2048"]


@pytest.mark.slow
def test_a_family_column_on_two_workers_is_one_lowering_and_vela_runs(tmp_path) -> None:
    pytest.importorskip("distributed", reason="needs dask: pip install -e '.[cluster]'")
    pytest.importorskip("executorch.backends.arm", reason="needs pip install -e '.[aot]'")
    from loopback_cluster import LoopbackCluster, start_far_workers

    tree = scratch(tmp_path / "client").ensure()
    matrix = tmp_path / "column.toml"
    matrix.write_text(MATRIX)
    (tmp_path / "dask").mkdir()
    far = LoopbackCluster(tmp_path / "dask")
    try:
        start_far_workers(far, tmp_path, tree)
        code = regress_command(RegressTask(str(matrix), quiet=True, scheduler=far.address),
                               scratch_root=str(tree.root))
    finally:
        far.stop()
    assert code == 0
    pointer = json.loads((tree.runs / LAST_POINTER).read_text())
    document = json.loads(Path(pointer["report"]).read_text())
    manifests = {cell["target"]: json.loads(
        (Path(cell["result"]["artifacts"]["product"]) / "manifest.json").read_text())
        for cell in document["cells"]}
    assert set(manifests) == set(U85)
    assert len({m["lowering"]["key"] for m in manifests.values()}) == 1
    lowered = [t for t, m in manifests.items() if m["lowering"].get("configured_seconds") is None]
    assert lowered == ["ethos-u85-128"]
