"""The real thing, kept to one session: real firmware builds, real batch compiles with Vela,
real QEMU runs, through `invoke regress` twice, then a tightened baseline and --require fvp.

Model cells (the ExecuTorch runner on QEMU) run when upstream sources are given the way the
runner tests take them: $ETHOSU_ORCH_TEST_SOURCES (a folder with executorch/ and cmsis-nn/);
$ETHOSU_ORCH_TEST_BUILD_SCRATCH reuses runtime builds across sessions. Without sources the
model cells must be skipped with the reason and the setup command.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.report.document import LAST_POINTER

pytestmark = pytest.mark.slow

GCC = Path("/usr/bin/arm-none-eabi-gcc")
SOURCES_ENV = "ETHOSU_ORCH_TEST_SOURCES"
BUILD_SCRATCH_ENV = "ETHOSU_ORCH_TEST_BUILD_SCRATCH"
SOURCE_DIRS = {"executorch": "executorch", "cmsis-nn": "cmsis-nn"}
MODELS = ("add@cortex-m55/default", "convnet@cortex-m55/default")
XSD = Path(__file__).parent / "fixtures" / "junit-common.xsd"
MATRIX = """
name = "qemu-small"
[defaults]
timeout_s = 60
[options]
fault = { build_options = ["EOR_SELFTEST_BEHAVIOUR=fault"] }
[tolerances]
"cpu.cycles" = { rel = 0.0, abs = 1 }

[[lanes]]
name = "selftest"
mode = "app"
apps = ["selftest"]
targets = ["cortex-m55"]
options = ["default", "fault"]
sim = "qemu"

[[lanes]]
name = "cpu"
models = ["add", "convnet"]
targets = ["cortex-m55"]
sim = "qemu"

[[lanes]]
name = "npu-compile"
mode = "compile"
models = ["add"]
targets = ["ethos-u55-128", "ethos-u85-128"]

[[lanes]]
name = "fvp"
mode = "app"
apps = ["selftest"]
targets = ["ethos-u55-128"]
sim = "fvp"

[[expect]]
options = ["fault"]
status = "xfail"
kind = "hard_fault"
reason = "deliberate hard fault"
"""


class Lane:
    """The session's scratch, matrix and reports."""

    def __init__(self, root: Path) -> None:
        self.tree = scratch(os.environ.get(BUILD_SCRATCH_ENV) or root / "scratch").ensure()
        self.models = record_sources(self.tree)
        self.matrix = root / "small.toml"
        self.matrix.write_text(MATRIX)
        self.baselines = root / "small.baselines.json"

    def run(self, **flags) -> tuple[int, dict]:
        code = regress_command(RegressTask(str(self.matrix), quiet=True, **flags),
                               scratch_root=str(self.tree.root))
        pointer = json.loads((self.tree.runs / LAST_POINTER).read_text())
        return code, json.loads(Path(pointer["report"]).read_text())


def record_sources(tree) -> bool:
    """Record $ETHOSU_ORCH_TEST_SOURCES's trees in the lock, as setup does; True if given."""
    from orchestrator.setup.lock import write_lock_entry

    root = os.environ.get(SOURCES_ENV)
    if not root:
        return False
    for name, folder in SOURCE_DIRS.items():
        write_lock_entry(tree, name, {"kind": "source", "path": str(Path(root) / folder)})
    return True


def require_lane_tools() -> None:
    """Skip, naming the install, without the cross compiler, QEMU or executorch."""
    if not GCC.is_file() or not shutil.which("qemu-system-arm"):
        pytest.skip("needs arm-none-eabi-gcc and qemu-system-arm (apt-get install "
                    "gcc-arm-none-eabi qemu-system-arm)")
    pytest.importorskip("executorch", reason="needs executorch[ethos-u] (pip install -e .[aot])")


@pytest.fixture(scope="session")
def lane(tmp_path_factory):
    require_lane_tools()
    from orchestrator.setup.toolchain import adopt_system_toolchain

    made = Lane(tmp_path_factory.mktemp("qemu-lane"))
    adopt_system_toolchain(made.tree)
    return made


@pytest.fixture(scope="session")
def first(lane):
    """Serial run that records the baselines."""
    return lane.run(jobs=1, update_baselines=True)


@pytest.fixture(scope="session")
def second(lane, first):
    """Parallel run against those baselines: must reuse every build and compile."""
    return lane.run(jobs=2)


def cells(document):
    return {cell["key"]: cell for cell in document["cells"]}


def test_first_run_builds_compiles_and_simulates(first, lane):
    code, document = first
    assert code == 0, document["cells"]
    by_key = cells(document)
    selftest = by_key["selftest@cortex-m55/default"]
    assert selftest["outcome"] == "pass" and selftest["metrics"]["cpu.cycles"] > 0
    assert selftest["result"]["cpu"]["source"] == "systick"
    fault = by_key["selftest@cortex-m55/fault"]
    assert fault["outcome"] == "xfail" and fault["result"]["classification"]["kind"] == "hard_fault"
    for target in ("ethos-u55-128", "ethos-u85-128"):
        compiled = by_key[f"add@{target}/default"]
        assert compiled["outcome"] == "pass" and compiled["metrics"]["vela.npu_cycles"] > 0
        assert compiled["versions"]["vela"] and compiled["versions"]["executorch"]
    fvp = by_key["selftest@ethos-u55-128/default"]
    assert fvp["outcome"] == "skipped"
    assert "fvp-corstone-300-u55 is not set up" in fvp["reason"]
    assert "next: invoke setup --only fvp-corstone-300" in fvp["reason"]   # setup's item
    assert "--only fvp-corstone-300-u55" not in fvp["reason"]
    # one build per distinct firmware config: selftest, selftest-fault (+ the model runner)
    assert len(document["builds"]) == (3 if lane.models else 2)
    assert len({build["key"] for build in document["builds"]}) == len(document["builds"])
    for key in MODELS:
        model = by_key[key]
        if lane.models:
            assert model["outcome"] == "pass", model["reason"]
            # exact runs: exactness is the pass/fail, accuracy vs float the tracked metric
            assert model["metrics"]["cpu.cycles"] > 0 and "accuracy.snr_db" in model["metrics"]
            assert not any(name.startswith("error.") for name in model["metrics"])
        else:
            assert model["outcome"] == "skipped"
            assert model["reason"].startswith("no executorch source tree is set up; next: "
                                              "invoke setup --only sources")
    assert all(str(lane.tree.runs / document["run_id"] / "cells") in c["out_dir"]
               for c in document["cells"])
    assert (Path(selftest["out_dir"]) / "transcript.log").is_file()
    assert lane.baselines.is_file()


def test_second_run_reuses_builds_and_compiles_and_matches_serial(first, second):
    code, document = second
    assert code == 0
    assert all(build["cached"] for build in document["builds"])
    assert document["compiles"] and all(item["cached"] for item in document["compiles"])
    serial, parallel = cells(first[1]), cells(document)
    assert {k: c["outcome"] for k, c in serial.items()} == {
        k: c["outcome"] for k, c in parallel.items()}
    for key, cell in serial.items():
        again = dict(parallel[key]["metrics"])
        if key in MODELS and again:  # SysTick phase follows the random input nonce: ±1 tick
            assert abs(again.pop("cpu.cycles") - cell["metrics"]["cpu.cycles"]) <= 1
            again["cpu.cycles"] = cell["metrics"]["cpu.cycles"]
        assert again == cell["metrics"], key
    assert all(c["baseline"]["status"] == "ok" for c in parallel.values() if c["baseline"])


def test_junit_of_a_real_run_validates(second, lane):
    xmlschema = pytest.importorskip("xmlschema", reason="pip install -e .[test] for xmlschema")
    junit = lane.tree.runs / second[1]["run_id"] / "junit.xml"
    xmlschema.XMLSchema(str(XSD)).validate(str(junit))
    assert "fvp-corstone-300-u55 is not set up" in junit.read_text()


def test_tightened_baseline_fails_naming_metric_and_amount(lane, second):
    book = json.loads(lane.baselines.read_text())
    entry = book["entries"]["selftest@cortex-m55/default"]
    measured = entry["metrics"]["cpu.cycles"]
    entry["metrics"]["cpu.cycles"] = measured - 3  # as if an older toolchain had recorded it
    entry["tolerances"] = {"cpu.cycles": {"rel": 0.01, "abs": 0}}  # 1 %: the move is inside
    lane.baselines.write_text(json.dumps(book))
    code, document = lane.run(jobs=2, filter="selftest@cortex-m55/default")
    assert code == 0 and cells(document)["selftest@cortex-m55/default"]["outcome"] == "pass"
    entry["tolerances"] = {"cpu.cycles": {"rel": 0.0, "abs": 1}}  # tightened: now it is not
    lane.baselines.write_text(json.dumps(book))
    code, document = lane.run(jobs=2, filter="selftest@cortex-m55/default")
    assert code == 1 and document["verdict"] == "fail"
    cell = cells(document)["selftest@cortex-m55/default"]
    assert cell["outcome"] == "regressed"
    expected = (f"cpu.cycles {measured - 3} -> {measured} (+{3 / (measured - 3):.2%}, "
                "tolerance ±0 rel +1 abs)")
    assert expected in cell["reason"]
    summary = (lane.tree.runs / document["run_id"] / "summary.md").read_text()
    assert expected in summary


def test_require_fvp_turns_the_skip_into_a_failure(lane, second):
    code, document = lane.run(jobs=1, filter="selftest@ethos-u55-128/default", require="fvp")
    cell = cells(document)["selftest@ethos-u55-128/default"]
    assert code == 1 and cell["outcome"] == "error"
    assert cell["reason"].startswith("--require fvp: fvp-corstone-300-u55 is not set up")
