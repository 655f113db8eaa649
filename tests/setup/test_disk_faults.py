"""Where the tool writes a lot (downloads, archive extraction, source exports, compile products,
regress reports), a full disk, a read-only file system or a directory without write permission
is one line naming the path and the fix; nothing half-installed is left.

Real file systems: a small tmpfs (full), a tmpfs remounted read-only, and a root-owned folder
written by the real CLI running as `nobody` (with read-search capability, so it can import the
interpreter's packages under /root, but still cannot write there)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from setup_fakes import (
    FAST_POLICY,
    Route,
    catalogue,
    make_repo,
    make_tar,
    toolchain_members,
    toolchain_pin,
)

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.regress.report.records import MatrixRef, RegressDocument
from orchestrator.regress.report.writers import write_reports
from orchestrator.setup.catalogue import host_build, host_key, load_setup_catalogue
from orchestrator.setup.install import STAGING_PREFIX
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import read_lock
from orchestrator.setup.options import SetupOptions, SourceRequest

ROOT = Path(__file__).resolve().parents[2]
NO_SPACE = "cannot be written: no space left on the device"
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
          "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]


@contextmanager
def _tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at `where` (a skip when this machine cannot mount one), unmounted after."""
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A 256 KiB tmpfs (a full disk after a few files)."""
    with _tmpfs(tmp_path / "small", "size=256k") as where:
        yield where


@pytest.fixture
def read_only(tmp_path) -> Iterator[Path]:
    """A tmpfs holding an empty scratch tree, then remounted read-only."""
    with _tmpfs(tmp_path / "ro", "size=1m") as where:
        scratch(where / "scratch").ensure()
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        yield where / "scratch"


def _left_nothing_half_installed(root: Path) -> None:
    assert read_lock(scratch(root)) == {}
    assert not [p for p in root.rglob(f"{STAGING_PREFIX}*")], "staging left behind"


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "Traceback" not in done.stderr and len(errors) == 1, done.stderr
    return errors[0]


def test_download_onto_a_full_disk_is_one_line(small_disk, server):
    """The real CLI downloading the pinned toolchain file name from a mirror on 127.0.0.1."""
    build = host_build(load_setup_catalogue().artifacts["toolchain"], host_key())
    server.routes[build.filename] = Route(os.urandom(1 << 20))
    root = small_disk / "scratch"
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(root)}
    done = subprocess.run([sys.executable, "-m", "invoke", "setup", "--only", "toolchain",
                           "--toolchain-provider", "arm", "--mirror", server.base],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    message = _one_line(done)
    assert f"{root / 'downloads' / build.filename}.part {NO_SPACE}" in message
    assert "next: free space" in message
    assert server.hits.count(build.filename) == 1, "a full disk is not retried"
    _left_nothing_half_installed(root)


def test_extraction_onto_a_full_disk_names_the_install_directory(small_disk, server, tmp_path):
    data = make_tar(toolchain_members("tc", extra=300, incompressible=True), "tar.xz")
    archive = tmp_path / "tc.tar.xz"
    archive.write_bytes(data)
    pins = catalogue({"toolchain": toolchain_pin(server.url("tc.tar.xz"), data, "tc")})
    root = scratch(small_disk / "scratch").ensure()
    options = SetupOptions(only=("toolchain",), toolchain_provider="arm",
                           archives={"toolchain": archive}, policy=FAST_POLICY)
    with pytest.raises(OrchestratorError) as caught:
        run_setup(root, options, pins, host="linux-x86_64")
    assert caught.value.message.startswith(f"{root.tools / 'toolchain'} {NO_SPACE}")
    _left_nothing_half_installed(root.root)


def test_source_export_onto_a_full_disk_names_the_source_directory(small_disk, tmp_path):
    repo = tmp_path / "lib"
    commit = make_repo(repo, {"include/lib.h": "x\n", "big.bin": "y" * (1 << 20)}, tag="1.0")
    pins = catalogue(sources={"lib": {"url": f"file://{repo}", "tag": "1.0", "commit": commit,
                                      "required_files": ["include/lib.h"]}})
    root = scratch(small_disk / "scratch").ensure()
    options = SetupOptions(only=("lib",), sources={"lib": SourceRequest(repo, "1.0")})
    with pytest.raises(OrchestratorError) as caught:
        run_setup(root, options, pins, host="linux-x86_64")
    assert caught.value.message.startswith(f"{root.src / 'lib'} {NO_SPACE}")
    _left_nothing_half_installed(root.root)


def test_regress_reports_on_a_read_only_file_system(read_only):
    run_dir = read_only / "runs" / "r1"
    with pytest.raises(OrchestratorError) as caught:
        write_reports(run_dir, RegressDocument("r1", MatrixRef("m", "m.toml"), []))
    assert caught.value.message.startswith(f"{run_dir} is on a read-only file system")
    assert "next: point ETHOSU_ORCH_SCRATCH at a writable directory" in caught.value.message


def test_compile_into_a_read_only_scratch_is_one_line(read_only):
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(read_only)}
    done = subprocess.run([sys.executable, "-m", "invoke", "compile", "--model", "add",
                           "--target", "cortex-m55"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert f"{read_only / 'models'} is on a read-only file system" in _one_line(done)


def _nobody_can_run_the_cli() -> str:
    """'' when the real CLI runs as nobody here, else the one-line reason it cannot."""
    try:
        done = subprocess.run([*NOBODY, sys.executable, "-c", "import invoke, orchestrator"],
                              cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    except OSError as error:
        return f"setpriv cannot run here ({error.strerror})"
    tail = done.stderr.strip().splitlines()[-1:] or [""]
    return "" if done.returncode == 0 else f"the CLI cannot run as nobody here: {tail[0]}"


def test_a_folder_without_write_permission_as_a_non_root_user(tmp_path):
    """`invoke compile` as nobody: scratch is theirs, scratch/models is root's (0755)."""
    reason = _nobody_can_run_the_cli()
    if reason:
        pytest.skip(reason)
    root = scratch(tmp_path / "scratch").ensure()
    tmp_path.chmod(0o755)
    for path in [root.root, *root.root.rglob("*")]:
        os.chown(path, 65534, 65534)
    os.chown(root.models, 0, 0)
    root.models.chmod(0o755)
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(root.root), "HOME": str(tmp_path)}
    done = subprocess.run([*NOBODY, sys.executable, "-m", "invoke", "compile", "--model", "add",
                           "--target", "cortex-m55"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    message = _one_line(done)
    assert f"{root.models} is not writable (permission denied)" in message
    assert "next: fix its permissions" in message
    assert list(root.models.iterdir()) == []
