"""Every run path x every version field the schema names: a result carries each version that
was in play on its path (tool, torch, executorch, Vela, tosa-tools, toolchain, simulator and
its version, the runtime's source commit, the NPU model) and none that was not.
Real runs: QEMU (selftest, NPU self-test, the runner on the M55 and on the NPU
model), an FVP replay (upstream ELF), a small real regress job, and invoke parse of a
recorded FVP log and of our own transcript. Runner rows need the upstream sources."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_upstream_elf_replays import elf_file, run_elf, setup_replay

from orchestrator.api.run_job import execute
from orchestrator.commands.regress import regress_command
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import Scratch
from orchestrator.options.regress import RegressTask
from orchestrator.parse.result import parse_log
from orchestrator.regress.report.document import LAST_POINTER
from orchestrator.results import RunResult, Status, Versions
from orchestrator.results.model import NPU_MODEL_VERSION
from orchestrator.setup.lock import write_lock_entry

pytestmark = pytest.mark.slow

FIELDS: dict[str, Callable[[Versions], Any]] = {
    "tool": lambda v: v.tool,
    "torch": lambda v: v.extra.get("torch"),
    "executorch": lambda v: v.executorch,
    "vela": lambda v: v.vela,
    "tosa-tools": lambda v: v.extra.get("tosa-tools"),
    "toolchain": lambda v: v.toolchain,
    "simulator": lambda v: v.simulator,
    "simulator_version": lambda v: v.simulator_version,
    "runtime_commit": lambda v: v.runtime_commit,
    "npu_model": lambda v: v.extra.get(NPU_MODEL_VERSION),
}
SIMULATED = {"tool", "toolchain", "simulator", "simulator_version"}
COMPILED = {"torch", "executorch", "vela", "tosa-tools"}
MODEL = {"npu_model"}
RUNTIME = {"runtime_commit"}
# path -> (fixture producing its RunResult, the version fields in play on it)
PATHS: dict[str, tuple[str, set[str]]] = {
    "run selftest": ("selftest_run", SIMULATED),
    "run npuselftest": ("npuselftest_run", SIMULATED | COMPILED | MODEL),
    "run runner cortex-m55": ("runner_m55", SIMULATED | COMPILED | RUNTIME),
    "run runner ethos-u55 on the NPU model": ("runner_u55", SIMULATED | COMPILED |
                                                     RUNTIME | MODEL),
    "run upstream ELF (FVP replay)": ("elf_run", {"tool", "simulator", "simulator_version"}),
    "regress app cell selftest": ("regress_selftest", SIMULATED),
    "regress app cell npuselftest": ("regress_npuselftest", SIMULATED | COMPILED | MODEL),
    "regress compile-only cell": ("regress_compile", {"tool"} | COMPILED),
    "regress model cell cortex-m55": ("regress_m55", SIMULATED | COMPILED | RUNTIME),
    "regress model cell ethos-u55 on the NPU model": ("regress_u55", SIMULATED |
                                                             COMPILED | RUNTIME | MODEL),
    "parse an FVP log naming its binary": ("parsed_fvp_log", {"tool", "simulator"}),
    "parse a Fast Models log printing its version": ("parsed_fast_models_log",
                                                     {"tool", "simulator_version"}),
    "parse our npu-model transcript": ("parsed_transcript", {"tool"} | MODEL),
}
TABLE = [(path, field) for path in PATHS for field in FIELDS]
TRANSCRIPTS = Path(__file__).parents[1] / "fixtures" / "transcripts"
FVP_LOG = TRANSCRIPTS / "et-issue-7568-1.log"              # names FVP_Corstone_SSE-300_Ethos-U55
FAST_MODELS_LOG = TRANSCRIPTS / "avh-getstarted-unity-1.log"   # prints Fast Models [11.16.24]
PARSED = {"parsed_fvp_log", "parsed_fast_models_log"}   # recorded logs: any verdict
MATRIX = """
name = "versions"
[defaults]
timeout_s = 120
[[lanes]]
name = "apps-m55"
mode = "app"
apps = ["selftest"]
targets = ["cortex-m55"]
sim = "qemu"
[[lanes]]
name = "apps-npu"
mode = "app"
apps = ["npuselftest"]
targets = ["ethos-u55-128"]
sim = "qemu"
[[lanes]]
name = "models"
models = ["add"]
targets = ["cortex-m55", "ethos-u55-128"]
sim = "qemu"
[[lanes]]
name = "compile"
mode = "compile"
models = ["add"]
targets = ["ethos-u85-128"]
"""
REGRESS_CELLS = {"regress_selftest": "selftest@cortex-m55/default",
                 "regress_npuselftest": "npuselftest@ethos-u55-128/default",
                 "regress_compile": "add@ethos-u85-128/default",
                 "regress_m55": "add@cortex-m55/default",
                 "regress_u55": "add@ethos-u55-128/default"}


@pytest.fixture(scope="module")
def work(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    """The runner tests' scratch when the upstream sources are given; else (CI) a session
    scratch with the system toolchain: the rows that need no sources still run."""
    try:
        return request.getfixturevalue("runner_scratch")
    except pytest.skip.Exception:
        pass
    from orchestrator.foundation.paths import scratch
    from orchestrator.setup.toolchain import SYSTEM_BIN_DIR, adopt_system_toolchain

    if not (SYSTEM_BIN_DIR / "arm-none-eabi-gcc").is_file():
        pytest.skip("arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
    made = scratch(tmp_path_factory.mktemp("versions-scratch")).ensure()
    adopt_system_toolchain(made)
    return made


@pytest.fixture(scope="module")
def selftest_run(work: Scratch) -> RunResult:
    return execute(RunRequest(target="cortex-m55", app="selftest", sim="qemu"), work)


@pytest.fixture(scope="module")
def npuselftest_run(work: Scratch) -> RunResult:
    return execute(RunRequest(target="ethos-u55-128", app="npuselftest", sim="qemu"), work)


def _runner(work: Scratch, sources: dict[str, Path], target: str) -> RunResult:
    return execute(RunRequest(target=target, model="add", sim="qemu", timeout_s=300.0,
                              idle_timeout_s=120.0, runner=RunnerSettings(sources=sources)),
                   work)


@pytest.fixture(scope="module")
def runner_m55(work: Scratch, runtime_sources: dict[str, Path]) -> RunResult:
    return _runner(work, runtime_sources, "cortex-m55")


@pytest.fixture(scope="module")
def runner_u55(work: Scratch, runtime_sources: dict[str, Path]) -> RunResult:
    return _runner(work, runtime_sources, "ethos-u55-128")


@pytest.fixture
def elf_run(tmp_path: Path) -> RunResult:
    from orchestrator.foundation.paths import scratch

    fvp_work = scratch(tmp_path / "scratch").ensure()
    setup_replay(fvp_work, "ethos-u85-128", "et-docs-v0.5.0-1.log")
    return run_elf(fvp_work, "ethos-u85-128", elf_file(tmp_path))


@pytest.fixture(scope="module")
def regress_cells(work: Scratch, request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunResult | str]:
    try:
        sources = request.getfixturevalue("runtime_sources")
    except pytest.skip.Exception:
        sources = {}   # the model cells are skipped with the reason; their rows skip too
    for name in ("executorch", "cmsis-nn"):   # as setup records them (test_qemu_lane too)
        if name in sources:
            write_lock_entry(work, name, {"kind": "source", "path": str(sources[name])})
    matrix = tmp_path_factory.mktemp("versions-matrix") / "versions.toml"
    matrix.write_text(MATRIX)
    regress_command(RegressTask(str(matrix), quiet=True, jobs=1), scratch_root=str(work.root))
    pointer = json.loads((work.runs / LAST_POINTER).read_text())
    cells = json.loads(Path(pointer["report"]).read_text())["cells"]
    # a cell regress skipped (no sources) has no result, only its reason
    return {cell["key"]: RunResult.from_dict(cell["result"]) if cell.get("result")
            else cell["reason"] for cell in cells}


@pytest.fixture
def parsed_fvp_log() -> RunResult:
    return parse_log(FVP_LOG)


@pytest.fixture
def parsed_fast_models_log() -> RunResult:
    return parse_log(FAST_MODELS_LOG)


@pytest.fixture
def parsed_transcript(npuselftest_run: RunResult) -> RunResult:
    return parse_log(Path(npuselftest_run.artifacts["transcript"]))


def _result_of(request: pytest.FixtureRequest, fixture: str) -> RunResult:
    if fixture not in REGRESS_CELLS:
        return request.getfixturevalue(fixture)
    result = request.getfixturevalue("regress_cells")[REGRESS_CELLS[fixture]]
    if isinstance(result, str):
        pytest.skip(f"regress skipped the cell: {result}")
    if result.status is Status.SKIPPED:
        pytest.skip(f"regress skipped the cell: {result.reason}")
    return result


@pytest.mark.parametrize("path, field", TABLE, ids=[f"{p}-{f}" for p, f in TABLE])
def test_every_version_in_play_is_recorded_and_none_invented(
        request: pytest.FixtureRequest, path: str, field: str) -> None:
    fixture, in_play = PATHS[path]
    result = _result_of(request, fixture)
    if fixture not in PARSED:
        assert result.status is Status.PASS, (path, result.reason)
    value = FIELDS[field](result.versions)
    if field in in_play:
        assert value and value != "missing", f"{path}: versions.{field} is missing"
    else:
        assert value is None, f"{path}: versions.{field} = {value!r} was not in play"
