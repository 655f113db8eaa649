"""The engine: one build per firmware config, one batch compile, skips with reasons,
expectations, failures of stages landing in cells, and -jN equal to -j1."""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest
from regress_replay import replay_stages

from orchestrator.regress.engine import EngineOptions, execute
from orchestrator.regress.plan.matrix import expand, load_matrix
from orchestrator.regress.verdict.outcome import Outcome
from orchestrator.targets import load_catalogue


def run(unit_matrix, tmp_path, stages, jobs=1, require=frozenset()):
    cells = expand(load_matrix(unit_matrix), load_catalogue())
    options = EngineOptions(run_id="RUN1", run_dir=tmp_path / "runs" / "RUN1", jobs=jobs,
                            require=require)
    return execute(cells, stages, options)


def outcomes(engine_run):
    return {report.key: report.outcome for report in engine_run.cells}


def test_each_config_built_once_and_one_batch_compile(unit_matrix, tmp_path, stages):
    result = run(unit_matrix, tmp_path, stages)
    assert sorted(stages.builds) == ["cortex-m55-runner", "ethos-u55-128-runner",
                                     "ethos-u85-128-runner"]
    assert len(stages.batches) == 1
    assert sorted(f"{r.model}@{r.target}/{dict(r.options)}" for r in stages.batches[0]) == [
        "add@cortex-m55/{}", "add@ethos-u55-128/{}", "add@ethos-u85-128/{}",
        "conv@cortex-m55/{}", "mv2@ethos-u85-128/{'fast': True}", "mv2@ethos-u85-128/{}"]
    assert outcomes(result) == {
        "add@cortex-m55/default": Outcome.XFAIL,
        "add@ethos-u55-128/default": Outcome.ERROR,  # the log ends before completion
        "add@ethos-u85-128/default": Outcome.PASS,
        "conv@cortex-m55/default": Outcome.PASS,
        "mv2@ethos-u55-128/default": Outcome.SKIPPED,
        "mv2@ethos-u85-128/default": Outcome.PASS,
        "mv2@ethos-u85-128/fast": Outcome.PASS,
    }
    reports = {r.key: r for r in result.cells}
    assert reports["add@ethos-u55-128/default"].reason == ("the firmware printed output, but "
                                                           "the log ends before a completion "
                                                           "marker")
    assert reports["mv2@ethos-u55-128/default"].reason.endswith("too big for U55 SRAM in this "
                                                                "matrix")
    assert "allocation too small (known)" in reports["add@cortex-m55/default"].reason
    compile_only = reports["mv2@ethos-u85-128/fast"]
    assert compile_only.metrics["vela.npu_cycles"] == 4832315
    assert compile_only.result.vela.access_cycles == {"sram": 1168037, "dram": 0,
                                                      "on_chip_flash": 0, "off_chip_flash": 0}
    assert "mv2@ethos-u85-128/fast" not in stages.runs  # compile-only cells never simulate
    simulated = reports["mv2@ethos-u85-128/default"]  # measured numbers beside Vela's estimate
    assert simulated.metrics["npu.cycles"] == 5920305
    assert simulated.metrics["vela.npu_cycles"] == 4832315
    assert simulated.versions["vela"] == "5.1.0"


def test_every_cell_writes_its_result_under_the_run_id(unit_matrix, tmp_path, stages):
    result = run(unit_matrix, tmp_path, stages)
    for report in result.cells:
        assert "/runs/RUN1/cells/" in report.out_dir and report.run_id == "RUN1"
        if report.result is not None:
            written = json.loads((tmp_path / report.out_dir / "result.json").read_text())
            assert written["status"] == report.result.status.value
    conv = next(r for r in result.cells if r.key == "conv@cortex-m55/default")
    assert conv.log.endswith("RUN1/cells/conv__cortex-m55__default/transcript.log")


def test_missing_fvp_is_skipped_with_reason_and_require_fails_it(unit_matrix, tmp_path):
    reason = "FVP_Corstone_SSE-320 is not installed; next: invoke setup --only fvp"
    stages = replay_stages(missing_sims={"fvp": reason})
    skipped = outcomes(run(unit_matrix, tmp_path, stages))
    assert skipped["mv2@ethos-u85-128/default"] is Outcome.SKIPPED
    assert skipped["add@ethos-u55-128/default"] is Outcome.SKIPPED
    assert skipped["mv2@ethos-u85-128/fast"] is Outcome.PASS  # compile-only needs no FVP
    assert sorted(stages.builds) == ["cortex-m55-runner"]  # nothing built for skipped cells
    strict = run(unit_matrix, tmp_path, replay_stages(missing_sims={"fvp": reason}),
                 require=frozenset({"fvp"}))
    failed = {r.key: r for r in strict.cells if r.outcome is Outcome.ERROR}
    assert failed["mv2@ethos-u85-128/default"].reason == f"--require fvp: {reason}"
    skipped_reports = [r for r in run(unit_matrix, tmp_path, replay_stages(
        missing_sims={"fvp": reason})).cells if r.outcome is Outcome.SKIPPED]
    assert all(r.reason for r in skipped_reports)


def test_failed_build_and_compile_error_their_cells_with_logs(unit_matrix, tmp_path):
    stages = replay_stages(failing_builds={"cortex-m55-runner": "region ITCM overflowed"},
                           failing_compiles={"mv2@ethos-u85-128": "Vela: op not supported"})
    reports = {r.key: r for r in run(unit_matrix, tmp_path, stages).cells}
    conv = reports["conv@cortex-m55/default"]
    assert conv.outcome is Outcome.ERROR
    assert conv.reason == ("firmware build cortex-m55-runner failed: region ITCM overflowed")
    assert conv.log == "/logs/cortex-m55-runner.log"
    assert reports["add@cortex-m55/default"].outcome is Outcome.XFAIL  # expected to fail anyway
    compile_only = reports["mv2@ethos-u85-128/fast"]
    assert compile_only.outcome is Outcome.FAIL
    assert compile_only.reason == "compile failed: Vela: op not supported"
    assert compile_only.log.endswith("RUN1/compile/batch.log")
    assert reports["mv2@ethos-u85-128/default"].outcome is Outcome.ERROR


def test_xfail_that_passes_is_a_failure(unit_matrix, tmp_path):
    stages = replay_stages()
    stages.results["add@cortex-m55"] = stages.results["conv@cortex-m55"]
    reports = {r.key: r for r in run(unit_matrix, tmp_path, stages).cells}
    assert reports["add@cortex-m55/default"].outcome is Outcome.XPASS
    assert "remove the xfail" in reports["add@cortex-m55/default"].reason
    assert Outcome.XPASS.failing and not Outcome.XFAIL.failing


def test_parallel_run_matches_serial(unit_matrix, tmp_path):
    serial = run(unit_matrix, tmp_path / "a", replay_stages(), jobs=1)
    parallel = run(unit_matrix, tmp_path / "b", replay_stages(), jobs=4)

    def comparable(engine_run):
        return [(r.key, r.outcome, r.reason.replace(str(tmp_path / "b"), str(tmp_path / "a")),
                 r.metrics) for r in engine_run.cells]

    assert comparable(serial) == comparable(parallel)


def test_xfail_with_a_kind_fails_when_the_cell_fails_differently(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text("""
[[lanes]]
models = ["add"]
targets = ["cortex-m55"]
sim = "qemu"
[[expect]]
status = "xfail"
kind = "hard_fault"
reason = "deliberate fault build"
""")
    stages = replay_stages()  # add@cortex-m55 replays an allocation failure, not a fault
    report = run(path, tmp_path, stages).cells[0]
    assert report.outcome is Outcome.FAIL
    assert report.reason.startswith("expected to fail as hard_fault but ended as alloc_failure")


def test_a_stage_that_raises_errors_only_its_cell(unit_matrix, tmp_path):
    stages = replay_stages()
    del stages.results["conv@cortex-m55"]  # run_cell raises KeyError for this cell
    reports = {r.key: r for r in run(unit_matrix, tmp_path, stages).cells}
    assert reports["conv@cortex-m55/default"].outcome is Outcome.ERROR
    assert reports["conv@cortex-m55/default"].reason == "run failed: KeyError: 'conv@cortex-m55'"
    assert reports["mv2@ethos-u85-128/default"].outcome is Outcome.PASS


def test_ctrl_c_starts_no_more_cells(unit_matrix, tmp_path):
    stages = replay_stages()
    original = stages.run_cell
    stopped = threading.Event()

    def interrupted(cell, *args):
        if cell.key == "add@ethos-u85-128/default":
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C reaches the main thread
            stopped.wait(5)  # the main thread cancels the queue while this cell runs
        return original(cell, *args)

    def cancel_then_release(*args):
        stopped.set()

    stages.run_cell = interrupted
    with pytest.raises(KeyboardInterrupt):
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            threading.Timer(0.5, cancel_then_release).start()
            run(unit_matrix, tmp_path, stages, jobs=1)
        finally:
            signal.signal(signal.SIGINT, previous)
    assert "conv@cortex-m55/default" not in stages.runs  # queued after the interrupt
    assert "add@ethos-u85-128/default" in stages.runs  # the running cell finished
