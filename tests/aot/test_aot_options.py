"""Option resolution against the target catalogue (no torch)."""

from __future__ import annotations

import pytest

from orchestrator.aot.options import parse_quantize, parse_vela_flags, resolve_options
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices
from orchestrator.targets import load_catalogue


@pytest.mark.parametrize("name", load_catalogue().names())
def test_every_catalogue_target_resolves_with_its_defaults(name: str) -> None:
    target = load_catalogue().target(name)
    options = resolve_options(name)
    assert options.target == name
    assert options.quantize == "int8"
    assert options.delegate is target.has_npu
    assert options.cortex_m is (not target.has_npu)
    if target.npu:
        assert options.system_config == target.npu.system_config
        assert options.memory_mode == target.npu.memory_mode
    else:
        assert options.system_config is None and options.memory_mode is None


def test_cpu_target_refuses_delegate_with_reason() -> None:
    with pytest.raises(OrchestratorError, match="cortex-m55 has no NPU.*--no-delegate"):
        resolve_options("cortex-m55", CompileChoices(delegate=True))


def test_a16w8_only_where_the_target_supports_int16() -> None:
    assert resolve_options("ethos-u85-128", CompileChoices(quantize="a16w8")).quantize == "a16w8"
    with pytest.raises(OrchestratorError, match="does not support a16w8"):
        resolve_options("cortex-m55", CompileChoices(quantize="a16w8"))


def test_vela_choices_are_checked_unless_a_custom_config_is_given(tmp_path) -> None:
    with pytest.raises(OrchestratorError, match="memory_mode 'Dedicated_Sram' is not valid"):
        resolve_options("ethos-u55-128", CompileChoices(memory_mode="Dedicated_Sram"))
    ini = tmp_path / "my.ini"
    ini.write_text("[System_Config.Mine]\n")
    options = resolve_options("ethos-u55-128", CompileChoices(system_config="Mine",
                                                               vela_config=str(ini),
                                                               vela_flags="--optimise Size"))
    assert (options.system_config, options.vela_config) == ("Mine", str(ini))
    assert options.vela_flags == ("--optimise", "Size")
    with pytest.raises(OrchestratorError, match="does not exist"):
        resolve_options("ethos-u55-128", CompileChoices(vela_config=str(tmp_path / "missing.ini")))


def test_vela_and_tosa_options_need_an_npu_and_delegation() -> None:
    with pytest.raises(OrchestratorError, match="Vela and TOSA options do not apply"):
        resolve_options("cortex-m55", CompileChoices(system_config="Ethos_U55_High_End_Embedded"))
    with pytest.raises(OrchestratorError, match="only exists for delegated"):
        resolve_options("ethos-u55-128", CompileChoices(delegate=False, tosa=True))


def test_float_on_npu_target_is_noted_not_hidden() -> None:
    options = resolve_options("ethos-u55-128", CompileChoices(quantize="none"))
    assert options.quantize is None
    assert any("nothing will be delegated" in note for note in options.notes)


@pytest.mark.parametrize(("value", "expected"), [
    ("int8", "int8"), ("A16W8", "a16w8"), ("none", None), (True, "int8"), (False, None),
    (None, None)])
def test_parse_quantize(value, expected) -> None:
    assert parse_quantize(value) == expected


def test_parse_quantize_rejects_unknown() -> None:
    with pytest.raises(OrchestratorError, match="unknown quantization 'int4'"):
        parse_quantize("int4")


def test_parse_vela_flags() -> None:
    assert parse_vela_flags(None) == ()
    assert parse_vela_flags("--a=1 --b 2") == ("--a=1", "--b", "2")
    assert parse_vela_flags(["--x"]) == ("--x",)
