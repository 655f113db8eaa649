"""The shipped peer matrix (examples/regress/peers.toml) and the verify lane mode: the file
loads and validates, upstream's expectations sit beside the cells they cite, and a small
verify-lane matrix runs for real (real compiles, the host's NPU model, the TOSA
reference model) with the upstream column in its JSON and Markdown reports. The whole peer
matrix's verify lane runs under `-m sweep`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import repo_root
from orchestrator.options.regress import RegressTask
from orchestrator.regress.plan.cells import Mode
from orchestrator.regress.plan.matrix import MatrixError, expand, load_matrix
from orchestrator.regress.report.document import LAST_POINTER
from orchestrator.targets import load_catalogue

PEERS = repo_root() / "examples" / "regress" / "peers.toml"
PEER_TARGETS = {"ethos-u55-128", "ethos-u65-256", "ethos-u85-128"}
SOURCES_ENV = "ETHOSU_ORCH_TEST_SOURCES"

SMALL_VERIFY_MATRIX = """
schema = 1
name = "verify-small"

[[lanes]]
name = "host"
mode = "verify"
models = ["add", "convnet"]
targets = ["ethos-u55-128", "ethos-u85-128"]

[[upstream]]
models = ["add"]
status = "xfail"
reason = "a reason upstream gave"
tolerance = { atol = 0.25, qtol = 1 }
source = "backends/arm/test/models/test_add.py:12"
"""


def test_peer_matrix_loads_with_host_and_qemu_lanes():
    matrix = load_matrix(PEERS)
    cells = expand(matrix, load_catalogue())
    modes = {cell.mode for cell in cells}
    assert modes == {Mode.VERIFY, Mode.RUN}
    assert {cell.target for cell in cells} == PEER_TARGETS
    assert all(cell.sim is None and not cell.simulates and cell.compiles
               for cell in cells if cell.mode is Mode.VERIFY)
    assert all(cell.sim_kind == "qemu" for cell in cells if cell.mode is Mode.RUN)
    verify = {cell.key for cell in cells if cell.mode is Mode.VERIFY}
    assert {"resnet8@ethos-u55-128/default", "mv3@ethos-u85-128/random"} <= verify


def test_every_peer_cell_carries_upstreams_expectation():
    for cell in expand(load_matrix(PEERS), load_catalogue()):
        assert cell.upstream is not None, cell.key
        if cell.target.startswith("ethos-u65"):
            assert cell.upstream.status == "untested"
            continue
        assert re.fullmatch(r"backends/arm/test/models/test_\w+\.py:\d+", cell.upstream.source)
    by_key = {cell.key: cell for cell in expand(load_matrix(PEERS), load_catalogue())}
    w2l = by_key["w2l@ethos-u55-128/default"].upstream
    assert w2l is not None and w2l.status == "xfail" and "insufficient memory" in w2l.reason
    assert dict(by_key["ds_cnn@ethos-u85-128/default"].upstream.tolerance) == \
        {"atol": 0.25, "qtol": 1.0}


@pytest.mark.skipif(not os.environ.get(SOURCES_ENV), reason=f"${SOURCES_ENV} is not set")
def test_cited_upstream_lines_are_the_marks_and_tests_they_name():
    """Each source row points at upstream's U55/U85 test function, its xfail reason or the
    line that drops its inference, in the pinned ExecuTorch sources."""
    root = Path(os.environ[SOURCES_ENV]) / "executorch"
    for rule in load_matrix(PEERS).upstream:
        if rule.upstream.status == "untested":
            continue
        name, _, line = rule.upstream.source.partition(":")
        text = (root / name).read_text().splitlines()[int(line) - 1]
        assert re.search(r"def test_\w+_u(55|85)_INT|reason=|inference", text), (
            rule.upstream.source, text)


@pytest.mark.parametrize(("entry", "complaint"), [
    ('status = "pass"', "needs source"),
    ('status = "xfail"\nsource = "t.py:1"', "needs upstream's reason"),
    ('status = "broken"\nsource = "t.py:1"', "is not one of"),
    ('status = "pass"\nsource = "t.py:1"\ntolerance = { eps = 1 }', "tolerance must be"),
    ('status = "pass"\nsource = "t.py:1"\nwhy = "x"', "unknown keys"),
])
def test_malformed_upstream_entries_are_refused(tmp_path, entry, complaint):
    path = tmp_path / "m.toml"
    path.write_text('[[lanes]]\nmode = "verify"\nmodels = ["add"]\ntargets = ["ethos-u55-128"]\n'
                    f"[[upstream]]\n{entry}\n")
    with pytest.raises(MatrixError, match=complaint):
        load_matrix(path)


@pytest.fixture(scope="module")
def small_verify_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("verify-lane")
    matrix = root / "verify-small.toml"
    matrix.write_text(SMALL_VERIFY_MATRIX)
    code = regress_command(RegressTask(str(matrix), quiet=True, jobs=1),
                           scratch_root=str(root / "scratch"))
    pointer = json.loads((root / "scratch" / "runs" / LAST_POINTER).read_text())
    report = Path(pointer["report"])
    return code, json.loads(report.read_text()), (report.parent / "summary.md").read_text()


def test_verify_lane_checks_each_cell_on_the_host_npu_model(small_verify_run):
    code, document, _ = small_verify_run
    cells = {cell["key"]: cell for cell in document["cells"]}
    assert set(cells) == {"add@ethos-u55-128/default", "add@ethos-u85-128/default",
                          "convnet@ethos-u55-128/default", "convnet@ethos-u85-128/default"}
    for key, cell in cells.items():
        assert cell["mode"] == "verify" and cell["sim"] is None
        assert cell["outcome"] == "pass", (key, cell["reason"])
        assert cell["reason"].startswith("exact (")
        verify = json.loads(Path(cell["result"]["artifacts"]["verify"]).read_text())
        assert verify["exact"] and verify["target"] == cell["target"]
        assert all(check["differing"] == 0 for check in verify["checks"])
        assert cell["result"]["versions"]["vela"]
    assert code == 0


def test_verify_lane_reports_carry_the_upstream_column(small_verify_run):
    _, document, markdown = small_verify_run
    cells = {cell["key"]: cell for cell in document["cells"]}
    assert cells["add@ethos-u55-128/default"]["upstream"] == {
        "status": "xfail", "reason": "a reason upstream gave",
        "tolerance": {"atol": 0.25, "qtol": 1.0},
        "source": "backends/arm/test/models/test_add.py:12"}
    assert cells["convnet@ethos-u85-128/default"]["upstream"] is None
    assert "| upstream | here |" in markdown
    row = next(line for line in markdown.splitlines() if "`add@ethos-u85-128/default`" in line)
    assert ("xfail: a reason upstream gave (atol 0.25, qtol 1; "
            "backends/arm/test/models/test_add.py:12)") in row
    assert "exact (" in row


@pytest.mark.sweep
def test_peer_matrix_verify_lane_in_full(tmp_path):
    """Every host-verify cell of the peer matrix ends with a verdict (exact, departs, stops):
    no cell dies without one line saying what happened. torchvision's models are imported
    through the test helper first (the registry's CUDA build cannot load its C operators
    here; the tool itself needs an ordinary install)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "models"))
    from torchvision_without_c_ops import import_torchvision_models_without_c_ops

    import_torchvision_models_without_c_ops()
    code = regress_command(RegressTask(str(PEERS), quiet=True, jobs=1, filter="host-*"),
                           scratch_root=os.environ.get("ETHOSU_ORCH_SCRATCH"))
    del code   # departures and stops are findings, reported per cell
    from orchestrator.foundation.paths import scratch

    pointer = json.loads((scratch().runs / LAST_POINTER).read_text())
    document = json.loads(Path(pointer["report"]).read_text())
    for cell in document["cells"]:
        assert cell["upstream"] is not None
        assert re.search(r"exact \(|departs: |stops: |compile failed: ", cell["reason"]), cell
