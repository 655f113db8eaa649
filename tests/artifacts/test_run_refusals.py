"""`invoke run --pte` refuses, in one sentence and before anything is built, what cannot run:
another backend's delegate (named), a target other than the file's, a memory mode other than
the file's, a file that is not a program."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunRequest
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.options.compile import CompileChoices

pytestmark = pytest.mark.slow


def run(tmp_path: Path, pte: Path, **given: object) -> None:
    execute(RunRequest(pte=str(pte), sim="qemu", **given), scratch(tmp_path))  # type: ignore[arg-type]


def test_other_backend_is_refused_by_name(foreign: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(OrchestratorError, match="XnnpackBackend") as error:
        run(tmp_path, foreign["xnnpack"])
    assert "invoke inspect" in error.value.message


def test_target_mismatch_is_refused(foreign: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(OrchestratorError, match="compiled for ethos-u55-128, not "
                                                "ethos-u85-128") as error:
        run(tmp_path, foreign["ethos-u55-128"], target="ethos-u85-128")
    assert error.value.next_step is not None and "--target ethos-u55-128" in error.value.next_step


def test_memory_mode_mismatch_is_refused(foreign: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(OrchestratorError, match="memory mode Sram_Only, not Shared_Sram"):
        run(tmp_path, foreign["ethos-u85-128"], compile=CompileChoices(memory_mode="Shared_Sram"))


def test_not_a_program_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "model.pte"
    other.write_bytes(b"\x80\x04 a pickle, not a program" * 4)
    with pytest.raises(OrchestratorError, match="not an ExecuTorch program"):
        run(tmp_path, other)


def test_run_needs_a_target_without_pte() -> None:
    with pytest.raises(OrchestratorError, match="needs --target"):
        RunRequest(model="add").resolved()


def test_pools_are_sized_from_the_file(foreign: dict[str, Path], tmp_path: Path) -> None:
    """The imported artifact's facts (planned buffers, the delegate's Vela scratch) feed the
    runner's fit check: pools smaller than the program needs are refused, naming the pool."""
    from orchestrator.artifacts.imported import import_artifact
    from orchestrator.artifacts.inspection import inspect_artifact
    from orchestrator.runner.precheck import check_fits, needs_for, program_facts_of
    from orchestrator.targets.runner_data import Pools

    inspection = inspect_artifact(foreign["ethos-u85-128"])
    product = import_artifact(inspection, scratch(tmp_path).ensure())
    facts = program_facts_of(product.manifest)
    assert facts["max_vela_scratch_bytes"] == inspection.ethosu[0].scratch_bytes
    assert import_artifact(inspection, scratch(tmp_path)).directory == product.directory
    small = Pools(method_pool_size=1 << 20, temp_pool_size=256, temp_pool_region="FAST",
                  fast_scratch_size=0)
    with pytest.raises(OrchestratorError, match="temp pool .* needs 1.2 KiB") as error:
        check_fits(needs_for(facts, product.pte.stat().st_size, 64, small, 1 << 20, 1 << 16),
                   "invoke run --pte x")
    assert "--temp-pool" in (error.value.next_step or "")
