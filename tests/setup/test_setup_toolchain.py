"""The system toolchain provider against this machine's real arm-none-eabi-gcc."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from setup_fakes import catalogue, script

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import installed_binary, read_lock
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolchain import adopt_system_toolchain, describe_bin_dir

SYSTEM_GCC = Path("/usr/bin/arm-none-eabi-gcc")
needs_system_gcc = pytest.mark.skipif(not SYSTEM_GCC.is_file(),
                                      reason="no /usr/bin/arm-none-eabi-gcc on this host")
PIN = {"kind": "toolchain", "version": "15.2.rel1", "archive": "tar.xz", "bin_dir": "bin",
       "system_min_version": "12.2", "binaries": ["arm-none-eabi-gcc"],
       "hosts": {"linux-x86_64": {"url": "http://127.0.0.1:9/unused.tar.xz", "md5": "0" * 32}}}


@needs_system_gcc
def test_adopt_system_toolchain_records_absolute_paths(tree):
    entry = adopt_system_toolchain(tree)
    gcc = installed_binary(tree, "toolchain", "arm-none-eabi-gcc")
    assert gcc == SYSTEM_GCC and entry["bin_dir"] == "/usr/bin"
    for tool in ("g++", "objcopy", "size", "nm"):
        assert Path(entry["binaries"][f"arm-none-eabi-{tool}"]).is_absolute()
    done = subprocess.run([str(gcc), "-dumpfullversion"], capture_output=True, text=True)
    assert done.stdout.strip() == entry["version"]


@needs_system_gcc
def test_auto_provider_prefers_a_new_enough_system_gcc(tree):
    run_setup(tree, SetupOptions(only=("toolchain",)), catalogue({"toolchain": PIN}),
              host="linux-x86_64")
    assert read_lock(tree)["toolchain"]["provider"] == "system"


@needs_system_gcc
def test_system_gcc_older_than_the_minimum_is_refused():
    with pytest.raises(OrchestratorError, match="older than 99.0.*--toolchain-provider arm"):
        describe_bin_dir(Path("/usr/bin"), "system", min_version="99.0")


def test_a_folder_without_the_tools_names_the_package_to_install(tmp_path):
    (tmp_path / "arm-none-eabi-gcc").write_bytes(script("echo 13.1.0"))
    (tmp_path / "arm-none-eabi-gcc").chmod(0o755)
    with pytest.raises(OrchestratorError, match="lacks arm-none-eabi-g\\+\\+.*apt-get install "
                                                "gcc-arm-none-eabi"):
        describe_bin_dir(tmp_path, "system")


def test_a_user_toolchain_dir_is_version_checked(tmp_path, tree):
    for tool in ("gcc", "g++", "objcopy", "size", "nm"):
        path = tmp_path / f"arm-none-eabi-{tool}"
        path.write_bytes(script('[ "$1" = -dumpfullversion ] && echo 10.3.1'))
        path.chmod(0o755)
    options = SetupOptions(only=("toolchain",), toolchain_dir=tmp_path)
    with pytest.raises(OrchestratorError, match="is 10.3.1, older than 12.2"):
        run_setup(tree, options, catalogue({"toolchain": PIN}), host="linux-x86_64")
    assert read_lock(tree) == {}


def _invoke(tree, *args: str) -> subprocess.CompletedProcess:
    import os
    import sys
    return subprocess.run([sys.executable, "-m", "invoke", "setup", *args], capture_output=True,
                          text=True, cwd=Path(__file__).parents[2],
                          env={**os.environ, "ETHOSU_ORCH_SCRATCH": str(tree.root)})


@needs_system_gcc
def test_invoke_setup_only_toolchain_adopts_the_system_compiler(tree):
    first = _invoke(tree, "--only", "toolchain")
    assert first.returncode == 0, first.stderr
    assert "/usr/bin" in first.stdout and "installing toolchain" in first.stderr
    second = _invoke(tree, "--only", "toolchain")
    assert "nothing to do" in second.stdout and "installing" not in second.stderr


def test_invoke_setup_errors_are_one_line_with_the_next_command(tree):
    done = _invoke(tree, "--only", "fvp-corstone-300")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "; next: invoke setup --only fvp-corstone-300 --accept-eula" \
        in errors[0]
