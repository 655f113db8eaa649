"""A compile Vela refuses is refused in one sentence: Vela's message condensed, the target,
the next command; through a full compile (Vela inside ExecuTorch's lowering), through a
configuration of a cached lowering (Vela on the kept partitions) and from Vela's C++ core."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from aot_cases import needs_executorch

from orchestrator.aot import compile_request, request_for
from orchestrator.aot.compiler import captured_output
from orchestrator.aot.lower.lowering import ethosu_compile_spec
from orchestrator.aot.vela.refusal import vela_failure, vela_refusal
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.options.compile import CompileChoices

MODE = "Arena_In_Flash"
VELA_SAYS = "Invalid configuration of arena_mem_area=OffChipFlash (must be Sram or Dram)"


def _vela_ini_with_arena_in_flash(folder: Path) -> Path:
    """Arm's vela.ini as Vela installs it, plus a memory mode that puts the arena (the NPU's
    read-write tensors) in flash, which Vela refuses."""
    spec = importlib.util.find_spec("ethosu")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("ethos-u-vela not installed (pip install -e '.[aot]')")
    arm = Path(next(iter(spec.submodule_search_locations))) / "config_files" / "Arm" / "vela.ini"
    ini = folder / "arena_in_flash.ini"
    ini.write_text(arm.read_text() + f"\n[Memory_Mode.{MODE}]\nconst_mem_area=Axi1\n"
                   "arena_mem_area=Axi1\ncache_mem_area=Axi0\n")
    return ini


def _refusal(tree: Scratch, ini: Path) -> str:
    needs_executorch()
    choices = CompileChoices(vela_config=str(ini), memory_mode=MODE)
    with pytest.raises(OrchestratorError) as caught:
        compile_request(request_for("add", "ethos-u55-128", choices), tree)
    assert [p for p in tree.models.iterdir() if p.name.startswith(".")] == []
    return caught.value.message


def _assert_names_vela_target_and_fix(message: str) -> None:
    assert message.startswith(f"Vela refuses to compile model add for ethos-u55-128: {VELA_SAYS}; "
                              "next: fix the Vela configuration (--vela-config"), message
    assert "\n" not in message


@pytest.mark.slow
def test_full_compile_refused_by_vela(tmp_path) -> None:
    tree = scratch(tmp_path / "scratch").ensure()
    message = _refusal(tree, _vela_ini_with_arena_in_flash(tmp_path))
    _assert_names_vela_target_and_fix(message)
    log = Path(message.rsplit("full log: ", 1)[1])
    assert "arena_mem_area" in log.read_text()


@pytest.mark.slow
def test_configuration_of_a_cached_lowering_refused_by_vela(compiled, aot_scratch,
                                                           tmp_path) -> None:
    assert ("add", "ethos-u55-128") in compiled   # the lowering is cached: Vela alone runs
    _assert_names_vela_target_and_fix(_refusal(aot_scratch, _vela_ini_with_arena_in_flash(
        tmp_path)))


@pytest.mark.slow
def test_regor_refusal_is_condensed_with_the_cpu_fallback_command() -> None:
    """Vela's C++ core on a TOSA flatbuffer it cannot read (a header and nothing else):
    its RuntimeError 'Compilation failed: ...' becomes the refusal."""
    needs_executorch()
    request = request_for("add", "ethos-u55-128")
    truncated = b"\x1c\x00\x00\x00TOSA" + bytes(56)
    with captured_output(), pytest.raises(Exception) as caught:  # noqa: PT011 - Vela's own
        from executorch.backends.arm.ethosu.backend import EthosUBackend

        spec = ethosu_compile_spec(request.options, None)
        EthosUBackend._compile_tosa_flatbuffer(truncated, spec)
    found = vela_failure(caught.value)
    assert found is not None and not found[1]
    assert found[0].startswith("TOSA FB Reader error"), found
    refusal = vela_refusal("add", "ethos-u55-128", caught.value)
    assert refusal is not None
    assert refusal.message.startswith("Vela refuses to compile model add for ethos-u55-128: TOSA")
    assert refusal.message.endswith(
        "next: compile for another Ethos-U target (`invoke targets` lists them), or run the "
        "model on the CPU: invoke compile --model add --target ethos-u55-128 --no-delegate")


def test_other_failures_are_not_vela_refusals() -> None:
    assert vela_refusal("add", "ethos-u55-128", RuntimeError("Missing out variants")) is None
