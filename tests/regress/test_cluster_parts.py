"""The cluster job's parts without a cluster: product transfer and relocation on real files,
the preflight's version comparison and its fix commands, the resume journal, the flags, and
the one-line answer when dask is not installed."""

from __future__ import annotations

import builtins
import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.cluster.command import cluster_spec, job_journal
from orchestrator.regress.cluster.connect import distributed_module
from orchestrator.regress.cluster.journal import Journal
from orchestrator.regress.cluster.preflight import (
    WorkerCheck,
    differences,
    fingerprint,
    fix_for,
)
from orchestrator.regress.cluster.transfer import pack, pack_folder, relocate, unpack
from orchestrator.regress.lanes.stages import FirmwareConfig, FirmwareOutcome
from orchestrator.regress.plan.cells import Cell, Mode
from orchestrator.regress.plan.matrix import load_matrix
from orchestrator.regress.verdict.outcome import CellReport, Outcome, Placement
from orchestrator.results import RunResult
from orchestrator.setup.lock import write_lock_entry
from orchestrator.sim.owners import kill_owned, reap_orphans, simulator_owners
from orchestrator.sim.process import OWNER_ENV


@dataclasses.dataclass(frozen=True)
class Built:
    """Shaped like a build product: an ELF, a build tree, a product folder."""

    elf: Path
    build_dir: Path
    product: Path
    outside: Path


def make_product(root: Path) -> Built:
    build = root / "build" / "cfg"
    (build / "CMakeFiles").mkdir(parents=True)
    (build / "CMakeCache.txt").write_text("cache")
    (build / "CMakeFiles" / "big.o").write_bytes(b"\0" * 1000)
    (build / "app.elf").write_bytes(b"\x7fELF-bytes")
    product = root / "models" / "add_key"
    (product / "inputs").mkdir(parents=True)
    (product / "model.pte").write_bytes(b"pte")
    (product / "inputs" / "0.bin").write_bytes(b"in")
    return Built(build / "app.elf", build, product, Path("/usr/bin/true"))


def test_a_product_travels_as_bytes_and_is_relocated(tmp_path):
    here, there = tmp_path / "a", tmp_path / "b"
    built = make_product(here)
    outcome = FirmwareOutcome(FirmwareConfig("cfg", "cortex-m55", "selftest"), True,
                              product=built, log=str(built.build_dir / "build.log"))
    unpack(pack(outcome, here), there)
    moved = relocate(outcome, here, there)
    assert moved.product.elf == there / "build" / "cfg" / "app.elf"
    assert moved.product.elf.read_bytes() == b"\x7fELF-bytes"
    assert (moved.product.product / "inputs" / "0.bin").read_bytes() == b"in"
    assert moved.log == str(there / "build" / "cfg" / "build.log")
    assert moved.product.outside == Path("/usr/bin/true")
    assert not (there / "build" / "cfg" / "CMakeFiles").exists()   # build trees stay home
    assert outcome.product.elf == built.elf                          # the original is intact


def test_unpack_keeps_content_keyed_files_and_replaces_cell_outputs(tmp_path):
    folder = tmp_path / "cell"
    folder.mkdir()
    (folder / "result.json").write_text("new")
    target = tmp_path / "client"
    target.mkdir()
    (target / "result.json").write_text("old")
    unpack(pack_folder(folder), target)
    assert (target / "result.json").read_text() == "old"
    unpack(pack_folder(folder), target, replace=True)
    assert (target / "result.json").read_text() == "new"
    assert [p.name for p in target.iterdir()] == ["result.json"]   # no staging left behind


def test_versions_that_differ_refuse_the_worker_with_the_fix(tmp_path):
    tree = scratch(tmp_path / "s").ensure()
    write_lock_entry(tree, "toolchain", {"kind": "toolchain", "version": "12.2.1"})
    client = fingerprint(tree)
    assert client["setup:toolchain"] == "12.2.1" and client["ethosu-orchestrator"]
    worker = dict(client, **{"setup:toolchain": "11.3.1"})
    assert differences(client, worker) == ["setup:toolchain 11.3.1 (client: 12.2.1)"]
    assert fix_for(client, worker) == "invoke setup --only toolchain (on that worker)"
    torch_less = {k: v for k, v in client.items() if k != "torch"}
    assert fix_for(client, torch_less) == f"pip install torch=={client['torch']} (on that worker)"
    check = WorkerCheck("tcp://10.0.0.2:1", "node2", versions=worker)
    check.judge(client)
    assert check.refused == ("worker tcp://10.0.0.2:1 (node2) refused: setup:toolchain 11.3.1 "
                             "(client: 12.2.1); next: invoke setup --only toolchain (on that "
                             "worker)")
    same = WorkerCheck("tcp://10.0.0.3:1", versions=dict(client))
    same.judge(client)
    assert same.refused is None and same.row(cells=0).state == "fit"


def report_for(key_model: str, run_id: str) -> CellReport:
    cell = Cell(key_model, key_model, "cortex-m55", "default", (), Mode.APP, "lane", "qemu",
                30.0)
    result = RunResult.from_dict({"status": "pass", "reason": "ok",
                                  "classification": {"kind": "success", "summary": "ok",
                                                     "next_step": "none"}})
    return CellReport(cell, Outcome.PASS, "ok", "/x", result, metrics={"cpu.cycles": 7.0},
                      run_id=run_id, placement=Placement(worker="tcp://w:1", attempts=1))


def test_the_journal_resumes_the_same_job_only(tmp_path):
    identity = {"matrix_sha256": "abc", "cells": ["a", "b"]}
    journal = Journal(tmp_path, identity)
    assert journal.run_id() is None and journal.finished() == {}
    journal.start("run-1")
    journal.record(report_for("selftest", "run-1"))
    again = Journal(tmp_path, dict(identity))
    assert again.run_id() == "run-1"
    [(key, report)] = again.finished().items()
    assert key == "selftest@cortex-m55/default" and report.metrics == {"cpu.cycles": 7.0}
    assert report.result is not None and report.result.reason == "ok"
    assert Journal(tmp_path, dict(identity, cells=["a"])).run_id() is None
    (again.folder / "cells" / "broken.pickle").write_bytes(b"not a pickle")
    assert list(again.finished()) == [key]
    again.close()
    assert Journal(tmp_path, identity).run_id() is None


def test_cluster_flags_and_the_job_identity(tmp_path):
    assert cluster_spec(RegressTask("m.toml")) is None
    assert cluster_spec(RegressTask("m.toml", workers="2")).workers == 2
    assert cluster_spec(RegressTask("m.toml", scheduler="tcp://h:8786")).scheduler == \
        "tcp://h:8786"
    with pytest.raises(OrchestratorError, match="not both"):
        cluster_spec(RegressTask("m.toml", scheduler="tcp://h:8786", workers="2"))
    with pytest.raises(OrchestratorError, match="--workers none is not a positive number"):
        cluster_spec(RegressTask("m.toml", workers="none"))
    matrix = tmp_path / "m.toml"
    matrix.write_text('name = "m"\n[[lanes]]\nname = "l"\nmode = "compile"\n'
                      'models = ["add"]\ntargets = ["ethos-u55-128"]\n')
    tree = scratch(tmp_path / "s").ensure()
    loaded = load_matrix(str(matrix))
    first = job_journal(RegressTask(str(matrix)), tree, loaded, [])
    assert first.folder == job_journal(RegressTask(str(matrix)), tree, loaded, []).folder
    assert first.folder != job_journal(RegressTask(str(matrix), shard="1/2"), tree, loaded,
                                       []).folder
    matrix.write_text(matrix.read_text() + "# edited\n")
    assert first.folder != job_journal(RegressTask(str(matrix)), tree, loaded, []).folder


def test_without_dask_the_flags_say_how_to_install_it(monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name.split(".")[0] in ("dask", "distributed"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(OrchestratorError) as raised:
        distributed_module()
    assert raised.value.message == ("--scheduler and --workers need dask and distributed, "
                                    "which are not installed; next: pip install -e "
                                    "'.[cluster]'")


def test_simulators_are_found_by_owner_and_orphans_reaped(tmp_path):
    if not Path("/proc/self/environ").is_file():
        pytest.skip("needs Linux /proc")
    # A stand-in owner that starts a marked long sleep and dies without stopping it.
    owner = subprocess.Popen(
        [sys.executable, "-c", "import os, subprocess, sys; subprocess.Popen(['sleep', '60'], "
         f"stdout=subprocess.DEVNULL, env=dict(os.environ, {OWNER_ENV}=str(os.getpid())), "
         "start_new_session=True); "
         "sys.stdout.write('started'); sys.stdout.flush()"], stdout=subprocess.PIPE)
    assert owner.communicate(timeout=30)[0] == b"started"
    deadline = time.monotonic() + 10
    while not [pid for pid, by in simulator_owners().items() if by == owner.pid]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    [orphan] = [pid for pid, by in simulator_owners().items() if by == owner.pid]
    assert orphan not in kill_owned(os.getpid())       # not this process's simulator
    assert reap_orphans([os.getpid()]) == []          # a living owner's are never touched
    assert reap_orphans([owner.pid]) == [orphan]
    deadline = time.monotonic() + 10
    while orphan in simulator_owners():                # gone (a zombie has no environment)
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_an_address_without_a_scheduler_is_one_sentence(monkeypatch, tmp_path):
    pytest.importorskip("distributed", reason="pip install -e '.[cluster]'")
    from orchestrator.regress.cluster import connect

    monkeypatch.setattr(connect, "CONNECT_TIMEOUT_S", 1)
    with pytest.raises(OrchestratorError) as raised:
        with connect.open_client("tcp://127.0.0.1:9", None, scratch(tmp_path / "s")):
            pass
    message = raised.value.message
    assert message.startswith("no Dask scheduler answers at tcp://127.0.0.1:9 (")
    assert message.endswith("next: start one (dask scheduler --host HOST) or pass its "
                            "address: invoke regress --scheduler tcp://HOST:8786 ...")
    assert "\n" not in message
