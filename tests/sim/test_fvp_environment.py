"""The FVP environment comes from one function: what setup's probe recorded in the lock for
that very binary, and a guess (execstack tunable, bundled python) only for unlisted FVPs."""

from __future__ import annotations

from pathlib import Path

from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.setup import execstack
from orchestrator.setup.lock import write_lock_entry
from orchestrator.setup.probe import EXECSTACK_TUNABLE
from orchestrator.sim.fvp_run import fvp_environment

BINARY = "FVP_Corstone_SSE-320"


def fvp_tree(root: Path) -> Path:
    """An FVP-shaped folder with a bundled python; returns the binary."""
    models = root / "models" / "Linux64_GCC-9.3"
    models.mkdir(parents=True)
    (root / "python" / "lib").mkdir(parents=True)
    binary = models / BINARY
    binary.write_text("#!/bin/sh\n")
    return binary


def record(work: Scratch, binary: Path, env: dict[str, str]) -> None:
    write_lock_entry(work, "fvp-corstone-320", {"kind": "fvp", "usable": True, "env": env,
                                                "binaries": {BINARY: str(binary)}})


def test_a_binary_setup_installed_gets_exactly_the_recorded_env(tmp_path):
    work = scratch(tmp_path / "scratch").ensure()
    binary = fvp_tree(work.tools / "fvp-corstone-320")
    recorded = {"PYTHONHOME": "/recorded/python", "LD_LIBRARY_PATH": "/recorded/python/lib"}
    record(work, binary, recorded)
    assert fvp_environment(binary) == recorded           # found from the binary's scratch
    assert fvp_environment(binary, work) == recorded


def test_an_adopted_fvp_dir_outside_scratch_uses_the_lock_of_the_given_scratch(tmp_path):
    work = scratch(tmp_path / "scratch").ensure()
    binary = fvp_tree(tmp_path / "user-fvp")
    record(work, binary, {"GLIBC_TUNABLES": EXECSTACK_TUNABLE})
    assert fvp_environment(binary, work) == {"GLIBC_TUNABLES": EXECSTACK_TUNABLE}


def test_an_fvp_no_lock_lists_gets_the_guess_with_setup_s_python_env(tmp_path, monkeypatch):
    monkeypatch.setattr(execstack, "glibc_version", lambda text=None: (2, 42))
    work = scratch(tmp_path / "scratch").ensure()
    record(work, tmp_path / "elsewhere" / BINARY, {})     # a lock that lists another binary
    binary = fvp_tree(tmp_path / "FVP")
    python = tmp_path / "FVP" / "python"
    assert fvp_environment(binary, work) == {"GLIBC_TUNABLES": EXECSTACK_TUNABLE,
                                             "PYTHONHOME": str(python),
                                             "LD_LIBRARY_PATH": str(python / "lib")}


def test_the_guess_adds_the_tunable_only_where_glibc_takes_it(tmp_path, monkeypatch):
    # glibc < 2.42 has no execstack=2: the guess cannot fix it (clearing the flag changes the
    # install, which only setup does), so it adds nothing
    binary = fvp_tree(tmp_path / "FVP")
    monkeypatch.setattr(execstack, "glibc_version", lambda text=None: (2, 41))
    assert "GLIBC_TUNABLES" not in fvp_environment(binary, scratch(tmp_path / "s").ensure())
