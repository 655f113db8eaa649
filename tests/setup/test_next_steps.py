"""Every "next:" is a command that would change the outcome: for each error that carries one
(setup archive/mirror/offline, build, run, parse, regress, compile, verify), the suggested
command is never the one that just failed, and a bad `--archive` is never suggested again."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from setup_fakes import (
    FAST_POLICY,
    Member,
    Route,
    catalogue,
    make_tar,
    toolchain_members,
    toolchain_pin,
)

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup.install import STAGING_PREFIX
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import read_lock
from orchestrator.setup.options import SetupOptions

ROOT = Path(__file__).resolve().parents[2]
TOP = "tc"


def suggested_commands(next_step: str) -> list[list[str]]:
    """The `invoke ...` commands named in a next step, as argv lists."""
    found = re.findall(r"invoke [^;,()&]*", next_step)
    return [shlex.split(command.strip().rstrip(".:")) for command in found]


def assert_changes_outcome(failed: list[str], next_step: str | None) -> None:
    """The next step names something to do, and no suggested command is the failed one."""
    assert next_step, "an error without a next step"
    for command in suggested_commands(next_step):
        assert sorted(command) != sorted(failed), f"{next_step!r} repeats {failed}"


# -- the real CLI, cheap cases -----------------------------------------------------------------

def _cli(tmp_path: Path, argv: list[str]) -> str:
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp_path / "scratch")}
    env.pop("ETHOSU_ORCH_MIRROR", None)
    done = subprocess.run([sys.executable, "-m", "invoke", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 2 and len(errors) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return errors[0].split("; next: ", 1)[1] if "; next: " in errors[0] else ""


CLI_CASES = [
    "build --target cortex-m55",
    "run --target cortex-m55",
    "parse {tmp}/missing.log",
    "regress --matrix {tmp}/missing.toml",
    "regress-merge --reports {tmp}/no-shard-a,{tmp}/no-shard-b",
    "compile --model nosuch --target cortex-m55",
    "verify --model add --target cortex-m55",
    "setup --only toolchain --toolchain-provider arm --offline",
    "setup --only toolchain --toolchain-provider arm --archive toolchain={tmp}/bogus.tar.xz",
]


@pytest.mark.parametrize("command", CLI_CASES)
def test_cli_next_step_is_not_the_failed_command(command, tmp_path):
    (tmp_path / "bogus.tar.xz").write_bytes(b"not the pinned toolchain")
    argv = shlex.split(command.format(tmp=tmp_path))
    next_step = _cli(tmp_path, argv)
    assert_changes_outcome(["invoke", *argv], next_step)


# -- setup with test pins: archives that verify but are bad ------------------------------------

def _setup(tree, server, data: bytes, *, local: Path | None = None,
           provider: str = "arm") -> OrchestratorError:
    """Run setup of the toolchain pinned to `data` (downloaded, or the user's `local` file)."""
    server.routes["tc.tar.xz"] = Route(data)
    pins = catalogue({"toolchain": toolchain_pin(server.url("tc.tar.xz"), data, TOP)})
    archives = {"toolchain": local} if local else {}
    options = SetupOptions(only=("toolchain",), toolchain_provider=provider, archives=archives,
                           policy=FAST_POLICY)
    with pytest.raises(OrchestratorError) as caught:
        run_setup(tree, options, pins, host="linux-x86_64")
    assert read_lock(tree) == {}
    assert not list((tree.tools).glob(f"{STAGING_PREFIX}*")), "staging left behind"
    return caught.value


def _user_archive(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "mine.tar.xz"
    path.write_bytes(data)
    return path


def _never_the_same_archive(error: OrchestratorError, archive: Path) -> None:
    assert error.next_step and f"replace {archive}" in error.next_step
    for command in suggested_commands(error.next_step):
        assert "--archive" not in " ".join(command) or "..." in " ".join(command)


def test_corrupt_user_archive_is_replaced_not_forced_again(tree, server, tmp_path):
    data = b"\xfd7zXZ\x00 truncated, not an archive"
    archive = _user_archive(tmp_path, data)
    error = _setup(tree, server, data, local=archive)
    assert "could not be unpacked" in error.cause
    _never_the_same_archive(error, archive)


def test_unsafe_user_archive_is_replaced_not_forced_again(tree, server, tmp_path):
    data = make_tar([Member(f"{TOP}/bin/escape", link="../../../../etc")], "tar.xz")
    archive = _user_archive(tmp_path, data)
    error = _setup(tree, server, data, local=archive)
    assert "escapes" in error.cause
    _never_the_same_archive(error, archive)


def test_corrupt_cached_download_is_deleted_before_fetching_again(tree, server):
    data = b"\xfd7zXZ\x00 the pinned bytes are not an archive"
    error = _setup(tree, server, data)
    cached = tree.root / "downloads" / "tc.tar.xz"
    assert cached.is_file() and error.next_step
    assert f"rm {cached} && invoke setup --only toolchain --force" in error.next_step


def test_valid_archive_without_gcc_names_the_archive_and_another_provider(tree, server,
                                                                           tmp_path):
    members = [m for m in toolchain_members(TOP) if not m.name.endswith("-gcc")]
    data = make_tar(members, "tar.xz")
    archive = _user_archive(tmp_path, data)
    error = _setup(tree, server, data, local=archive)
    assert STAGING_PREFIX not in error.message and str(tree.tools) not in error.message
    assert f"mine.tar.xz:{TOP}/bin lacks arm-none-eabi-gcc" in error.cause
    failed = ["invoke", "setup", "--only", "toolchain", "--toolchain-provider", "arm",
              "--archive", f"toolchain={archive}"]
    assert_changes_outcome(failed, error.next_step)
    assert error.next_step and "--toolchain-provider system" in error.next_step
