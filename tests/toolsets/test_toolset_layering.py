"""A toolset's environment is layered on the tool's real environment (a real venv made here,
a real interpreter started in it): it sees the tool's packages after its own, never the base
interpreter's alone; heavy dependencies a toolset does not pin are refused in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup.toolset_plan import additions
from orchestrator.toolsets.catalogue import find_toolset
from orchestrator.toolsets.layering import (
    layer_on,
    layered_directories,
    own_distributions,
    own_heavy,
    own_site_packages,
    tool_site_directories,
)


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path


def _module(folder: Path, name: str, says: str) -> None:
    (folder / f"{name}.py").write_text(f"SAYS = {says!r}\n")


def _says(python: Path, module: str) -> str:
    return subprocess.run([str(python), "-c", f"import {module}; print({module}.SAYS)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_layered_environment_sees_the_tool_venv_after_its_own(tmp_path):
    tool = _venv(tmp_path / "tool")             # the tool's venv (made from this one: a venv
    _module(own_site_packages(tool), "only_in_tool", "tool")   # made from a venv)
    _module(own_site_packages(tool), "in_both", "tool")
    toolset = _venv(tmp_path / "toolset")
    _module(own_site_packages(toolset), "in_both", "toolset")
    directories = tool_site_directories(tool / "bin" / "python")
    assert directories == [str(own_site_packages(tool))]
    layer_on(toolset, directories)
    assert layered_directories(toolset) == directories
    python = toolset / "bin" / "python"
    assert _says(python, "only_in_tool") == "tool"
    assert _says(python, "in_both") == "toolset"


def test_the_layer_carries_the_tool_venvs_own_pth_files(tmp_path):
    """An editable install is a .pth in the tool's site-packages: it works in the toolset."""
    code = tmp_path / "editable"
    code.mkdir()
    _module(code, "editable_module", "editable")
    tool = _venv(tmp_path / "tool")
    (own_site_packages(tool) / "editable.pth").write_text(f"{code}\n")
    toolset = _venv(tmp_path / "toolset")
    layer_on(toolset, tool_site_directories(tool / "bin" / "python"))
    assert _says(toolset / "bin" / "python", "editable_module") == "editable"


def test_own_heavy_names_a_torch_or_nvidia_copy(tmp_path):
    toolset = _venv(tmp_path / "toolset")
    site = own_site_packages(toolset)
    assert own_heavy(toolset) == []
    (site / "nvidia_cublas_cu12-12.8.4.1.dist-info").mkdir()
    (site / "torch-2.13.0.dist-info").mkdir()
    (site / "flatbuffers-24.3.25.dist-info").mkdir()
    assert own_heavy(toolset) == ["nvidia-cublas-cu12 12.8.4.1", "torch 2.13.0"]
    assert own_distributions(toolset)["flatbuffers"] == "24.3.25"


@pytest.mark.parametrize("pulled", [("triton", "3.5.0"), ("nvidia-cudnn-cu12", "9.10.2.21")])
def test_a_heavy_dependency_the_toolset_does_not_pin_is_refused(pulled):
    toolset = find_toolset("et-1.5.1")
    with pytest.raises(OrchestratorError) as caught:
        additions(toolset, ["executorch"], [("executorch", "1.5.1"), pulled])
    assert pulled[0] in caught.value.cause and "\n" not in caught.value.message
    assert "never installed" in caught.value.cause


def test_a_torch_other_than_the_pin_is_refused():
    toolset = find_toolset("et-1.5.1")
    with pytest.raises(OrchestratorError) as caught:
        additions(toolset, ["executorch"], [("executorch", "1.5.1"), ("torch", "2.14.0")])
    assert "torch 2.14.0" in caught.value.cause


def test_additions_are_the_pins_then_the_missing_dependencies():
    toolset = find_toolset("et-1.5.1")
    added = additions(toolset, ["executorch"],
                      [("executorch", "1.5.1"), ("py_cpuinfo", "9.0.0")])
    assert [(a.requirement, a.pinned) for a in added] == [
        ("executorch==1.5.1", True), ("py-cpuinfo==9.0.0", False)]
