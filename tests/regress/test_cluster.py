"""`invoke regress --scheduler`: a real Dask scheduler and worker processes on 127.0.0.1
(started here, bounded in time), real firmware builds, compiles and QEMU runs.

test_qemu_lane's matrix (self-test cells, compile-only cells, an FVP cell skipped here, and
the Cortex-M55 model cells when $ETHOSU_ORCH_TEST_SOURCES is given) must give the same
report as `-j 1`; a worker with a
different toolchain is refused in one line with the fix; a client killed mid-job resumes;
a worker killed with SIGKILL mid-cell loses nothing (the cell runs again elsewhere, and
its simulator is stopped); Ctrl-C leaves no simulator running; a scheduler that goes away
ends the job in one sentence with the finished cells kept.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import repo_root, scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.cluster.journal import JOBS_DIR
from orchestrator.regress.report.document import LAST_POINTER
from orchestrator.setup.lock import read_lock, write_lock_entry
from orchestrator.setup.toolchain import adopt_system_toolchain
from orchestrator.sim.owners import simulator_owners

pytestmark = pytest.mark.slow
pytest.importorskip("distributed", reason="needs dask and distributed: "
                                          "pip install -e '.[cluster]'")

from loopback_cluster import REPO, LoopbackCluster, start_far_workers  # noqa: E402
from test_qemu_lane import (  # noqa: E402
    BUILD_SCRATCH_ENV,
    MATRIX,
    SOURCES_ENV,
    record_sources,
    require_lane_tools,
)

JOB_LIMIT_S = 240.0
NPU_EXAMPLE = repo_root() / "examples" / "regress" / "qemu-npu.toml"
HANGS = 4
HANG_MATRIX = f"""
name = "cluster-hang"
[defaults]
timeout_s = 30
[options]
{chr(10).join(f'hang{i} = {{ build_options = ["EOR_SELFTEST_BEHAVIOUR=hang"], '
              f'idle_timeout_s = 2 }}' for i in range(1, HANGS + 1))}
[[lanes]]
name = "hang"
mode = "app"
apps = ["selftest"]
targets = ["cortex-m55"]
options = [{", ".join(f'"hang{i}"' for i in range(1, HANGS + 1))}]
sim = "qemu"
[[expect]]
options = ["hang*"]
status = "xfail"
kind = "timeout"
reason = "hangs until the no-output watchdog stops it"
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    require_lane_tools()
    root = os.environ.get(BUILD_SCRATCH_ENV) or tmp_path_factory.mktemp("cluster") / "scratch"
    made = scratch(root).ensure()
    adopt_system_toolchain(made)
    record_sources(made)
    # a kept build scratch keeps builds, not the job journals of an earlier, interrupted session
    # (the tests below check that their own journals are gone, and resume their own jobs)
    shutil.rmtree(made.runs / JOBS_DIR, ignore_errors=True)
    return made


@pytest.fixture(scope="module")
def matrices(tmp_path_factory):
    folder = tmp_path_factory.mktemp("matrices")
    (folder / "qemu.toml").write_text(MATRIX)
    if NPU_EXAMPLE.is_file():
        shutil.copy(NPU_EXAMPLE, folder / "qemu-npu.toml")
    (folder / "hang.toml").write_text(HANG_MATRIX)
    return folder


def started(folder: Path, tree, workers: int = 2) -> LoopbackCluster:
    cluster = LoopbackCluster(folder)
    try:
        cluster.start_scheduler()
        for index in range(1, workers + 1):
            cluster.start_worker(f"w{index}", tree.root)
        cluster.wait_for_workers(workers)
    except BaseException:
        cluster.stop()
        raise
    return cluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, tree):
    made = started(tmp_path_factory.mktemp("dask"), tree)
    yield made
    made.stop()


@pytest.fixture
def own_cluster(tmp_path, tree):
    """A cluster a test may break (kill a worker or the scheduler)."""
    made = started(tmp_path, tree)
    yield made
    made.stop()


def regress(tree, matrix: Path, **flags) -> tuple[int, dict]:
    code = regress_command(RegressTask(str(matrix), quiet=True, **flags),
                           scratch_root=str(tree.root))
    pointer = json.loads((tree.runs / LAST_POINTER).read_text())
    return code, json.loads(Path(pointer["report"]).read_text())


def client_process(tree, matrix: Path, address: str) -> subprocess.Popen[bytes]:
    """`invoke regress --scheduler` as its own process (to be killed or interrupted)."""
    script = ("from orchestrator.options.regress import RegressTask; "
              "from orchestrator.commands.regress import regress_command; "
              f"regress_command(RegressTask({str(matrix)!r}, quiet=True, "
              f"scheduler={address!r}), scratch_root={str(tree.root)!r})")
    return subprocess.Popen([sys.executable, "-c", script], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def cells(document) -> dict[str, dict]:
    return {cell["key"]: cell for cell in document["cells"]}


def simulators_of(pids) -> list[int]:
    return [pid for pid, owner in simulator_owners().items() if owner in set(pids)]


@pytest.mark.parametrize("name", ["qemu", "qemu-npu"])
def test_cluster_report_equals_the_serial_report(tree, matrices, cluster, name):
    """test_qemu_lane's matrix, and the NPU model lane (examples/qemu-npu.toml:
    its runner cells run when sources are given, else both runs skip them alike)."""
    matrix = matrices / f"{name}.toml"
    if not matrix.is_file():
        pytest.skip(f"no {NPU_EXAMPLE.relative_to(repo_root())} in this checkout (regress runs "
                    "Ethos-U targets on QEMU's NPU model once the run plan is merged)")
    baselines = str(matrices / f"{name}.baselines.json")
    serial_code, serial = regress(tree, matrix, jobs=1, baselines=baselines,
                                  update_baselines=True)
    code, spread = regress(tree, matrix, scheduler=cluster.address, baselines=baselines)
    assert (code, serial_code) == (0, 0), [c["reason"] for c in spread["cells"]]
    local, remote = cells(serial), cells(spread)
    assert list(local) == list(remote)
    assert {k: c["outcome"] for k, c in local.items()} == {
        k: c["outcome"] for k, c in remote.items()}
    for key, cell in local.items():
        again = dict(remote[key]["metrics"])
        if "cpu.cycles" in again:   # the matrix's tolerance: SysTick phase, ±1 tick
            assert abs(again.pop("cpu.cycles") - cell["metrics"]["cpu.cycles"]) <= 1, key
        assert again == {k: v for k, v in cell["metrics"].items() if k != "cpu.cycles"}, key
        assert remote[key]["baseline"] == local[key]["baseline"] or (
            remote[key]["baseline"]["status"] == "ok"), key
    assert [b["key"] for b in spread["builds"]] == [b["key"] for b in serial["builds"]]
    assert [c["key"] for c in spread["compiles"]] == [c["key"] for c in serial["compiles"]]
    assert spread["verdict"] == serial["verdict"] == "pass"
    if os.environ.get(SOURCES_ENV):   # the model cells ran, on the cluster too
        assert all(cell["outcome"] == "pass" for cell in remote.values()
                   if cell["mode"] == "run" and cell["sim"] == "qemu"), name
    # every cell ran on a worker of the cluster, products through the shared scratch
    workers = {w["address"] for w in spread["cluster"]["workers"]}
    assert len(workers) == 2 and spread["cluster"]["scheduler"] == cluster.address
    for key, cell in remote.items():
        if cell["outcome"] != "skipped":
            assert cell["cluster"]["worker"] in workers and cell["cluster"]["products"] == \
                "shared", key
            assert (Path(cell["out_dir"]) / "result.json").is_file()
    run_dir = tree.runs / spread["run_id"]
    for name in ("junit.xml", "summary.md", "report.html"):
        assert (run_dir / name).is_file()
    assert not (tree.runs / JOBS_DIR).exists() or not any((tree.runs / JOBS_DIR).iterdir())


def test_a_worker_with_a_different_toolchain_is_refused(tree, matrices, cluster, tmp_path,
                                                        capsys):
    own = scratch(tmp_path / "odd-scratch").ensure()
    for name, entry in read_lock(tree).items():      # the client's setup, but its toolchain
        write_lock_entry(own, name, dict(entry, version="11.3.1") if name == "toolchain"
                         else entry)
    cluster.start_worker("odd", own.root)
    try:
        cluster.wait_for_workers(3)
        code, document = regress(tree, matrices / "qemu.toml", scheduler=cluster.address,
                                 filter="selftest@cortex-m55/default")
    finally:
        cluster.kill("odd")
    assert code == 0
    [refused] = [w for w in document["cluster"]["workers"] if w["state"] == "refused"]
    assert refused["cells"] == 0 and refused["scratch"] == str(own.root)
    client_version = read_lock(tree)["toolchain"]["version"]
    assert f"setup:toolchain 11.3.1 (client: {client_version})" in refused["reason"]
    assert refused["reason"].endswith("next: invoke setup --only toolchain (on that worker)")
    assert refused["reason"] in capsys.readouterr().err
    summary = (tree.runs / document["run_id"] / "summary.md").read_text()
    assert "refused: worker " in summary
    assert cells(document)["selftest@cortex-m55/default"]["outcome"] == "pass"


def test_workers_without_the_clients_scratch_get_products_as_bytes(tree, matrices, tmp_path):
    far = LoopbackCluster(tmp_path)
    try:
        start_far_workers(far, tmp_path, tree)
        code, document = regress(tree, matrices / "qemu.toml", scheduler=far.address,
                                 filter="selftest@cortex-m55/*")
    finally:
        far.stop()
    assert code == 0
    assert {w["products"] for w in document["cluster"]["workers"]} == {"bytes"}
    run_dir = tree.runs / document["run_id"]
    assert {c["key"]: c["outcome"] for c in document["cells"]} == {
        "selftest@cortex-m55/default": "pass", "selftest@cortex-m55/fault": "xfail"}
    for cell in document["cells"]:
        assert cell["cluster"]["products"] == "bytes"
        assert Path(cell["out_dir"]).parent == run_dir / "cells"
        transcript = Path(cell["result"]["artifacts"]["transcript"])
        assert transcript.parent == Path(cell["out_dir"]) and transcript.is_file()
        assert (Path(cell["out_dir"]) / "result.json").is_file()


def test_a_killed_client_resumes_without_rerunning_finished_cells(tree, matrices, cluster):
    matrix = matrices / "hang.toml"
    client = client_process(tree, matrix, cluster.address)
    journal = tree.runs / JOBS_DIR
    deadline = time.monotonic() + JOB_LIMIT_S
    try:
        while len(list(journal.glob("*/cells/*.pickle"))) < 2:
            assert client.poll() is None, "the client ended before it could be killed"
            assert time.monotonic() < deadline, "no cell finished in time"
            time.sleep(0.2)
    finally:
        client.kill()
        client.communicate(timeout=10)
    recorded = {path.stem for path in journal.glob("*/cells/*.pickle")}
    run_id = json.loads(next(journal.glob("*/job.json")).read_text())["run_id"]
    assert len(recorded) < HANGS
    code, document = regress(tree, matrix, scheduler=cluster.address)
    assert code == 0 and document["run_id"] == run_id
    assert len(document["cells"]) == HANGS
    assert all(cell["outcome"] == "xfail" for cell in document["cells"])
    resumed = set(document["cluster"]["resumed"])
    assert len(resumed) >= len(recorded) >= 2
    for cell in document["cells"]:
        assert cell["cluster"].get("resumed", False) == (cell["key"] in resumed)
    assert not list(journal.glob("*/job.json"))   # complete: the next run is a new job


def test_a_worker_killed_mid_cell_loses_nothing(tree, matrices, own_cluster):
    pids = own_cluster.worker_pids()
    outcome: dict[str, object] = {}

    def job() -> None:
        try:
            outcome["result"] = regress(tree, matrices / "hang.toml",
                                        scheduler=own_cluster.address)
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            outcome["error"] = error

    runner = threading.Thread(target=job, daemon=True)
    runner.start()
    victim = None
    deadline = time.monotonic() + JOB_LIMIT_S
    while victim is None:
        assert time.monotonic() < deadline and runner.is_alive(), outcome
        busy = [name for name, pid in pids.items() if simulators_of([pid])]
        victim = busy[0] if busy else None
        time.sleep(0.1)
    orphans = simulators_of([pids[victim]])
    own_cluster.kill(victim)
    runner.join(JOB_LIMIT_S)
    assert not runner.is_alive() and "error" not in outcome, outcome
    code, document = outcome["result"]
    assert code == 0 and len(document["cells"]) == HANGS
    assert all(cell["outcome"] == "xfail" for cell in document["cells"])
    retried = [cell for cell in document["cells"] if cell["cluster"]["retried"]]
    assert retried and document["cluster"]["retried"] == sorted(c["key"] for c in retried)
    for cell in retried:
        assert cell["cluster"]["attempts"] >= 2
        assert cell["cluster"]["worker"] != cell["cluster"]["workers_tried"][0]
    assert orphans and not simulators_of([pids[victim]])   # its QEMU was stopped
    run_dir = tree.runs / document["run_id"]
    assert "(retried)" in (run_dir / "junit.xml").read_text()
    summary = (run_dir / "summary.md").read_text()
    assert "- retried: " in summary and f"`{retried[0]['key']}`" in summary


def test_ctrl_c_cancels_and_leaves_no_simulator(tree, matrices, own_cluster):
    pids = list(own_cluster.worker_pids().values())
    client = client_process(tree, matrices / "hang.toml", own_cluster.address)
    deadline = time.monotonic() + JOB_LIMIT_S
    try:
        while not simulators_of(pids):
            assert client.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        client.send_signal(signal.SIGINT)
        _, err = client.communicate(timeout=60)
    finally:
        client.kill()
    assert client.returncode != 0
    assert b"cancelling the cluster job" in err
    assert not simulators_of(pids)


def test_a_scheduler_that_goes_away_ends_the_job_in_one_sentence(tree, matrices,
                                                                  own_cluster):
    journal = tree.runs / JOBS_DIR

    def kill_scheduler_after_a_cell() -> None:
        deadline = time.monotonic() + JOB_LIMIT_S
        while not list(journal.glob("*/cells/*.pickle")) and time.monotonic() < deadline:
            time.sleep(0.1)
        own_cluster.kill("scheduler")

    killer = threading.Thread(target=kill_scheduler_after_a_cell, daemon=True)
    killer.start()
    with pytest.raises(OrchestratorError) as raised:
        regress(tree, matrices / "hang.toml", scheduler=own_cluster.address)
    killer.join(10)
    message = raised.value.message
    assert message.startswith(f"the Dask scheduler at {own_cluster.address} went away")
    assert "\n" not in message and "rerun the same command" in raised.value.next_step
    kept = list(journal.glob("*/cells/*.pickle"))
    assert kept and str(kept[0].parents[1]) in message
    for folder in journal.iterdir():   # leave no half job for the other tests
        shutil.rmtree(folder)


def test_workers_n_starts_a_local_cluster_for_the_job(tree, matrices):
    code, document = regress(tree, matrices / "qemu.toml", workers="1",
                             filter="selftest@cortex-m55/default")
    assert code == 0 and document["cluster"]["scheduler"].startswith("tcp://127.0.0.1:")
    [worker] = document["cluster"]["workers"]
    assert worker["products"] == "shared" and worker["cells"] == 1
