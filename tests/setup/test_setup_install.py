"""Safe unpacking and atomic installs: hostile archives, interruption, concurrent setups."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
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
from orchestrator.setup.install import MARKER, read_marker
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import read_lock
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.unpack import UnsafeArchive, safe_extract

TOP = "tc"
RUNNER = Path(__file__).with_name("setup_runner.py")
OPTIONS = {"only": ["toolchain"], "toolchain_provider": "arm"}


def _hostile(tmp_path: Path, members: list[Member]) -> Path:
    archive = tmp_path / "bad.tgz"
    archive.write_bytes(make_tar(members, "tgz"))
    return archive


@pytest.mark.parametrize("members", [
    [Member("ok.txt", b"x"), Member("../evil.txt", b"x")],
    [Member("/tmp/evil-absolute.txt", b"x")],
    [Member("link", link="../../outside")],
    [Member("link", link="/etc")],
    [Member("dir", directory=True), Member("dir/up", link="../../..")],
    [Member("hard", hardlink="../../etc/passwd")],
], ids=["dotdot", "absolute", "symlink-escape", "absolute-symlink", "nested-escape",
        "hardlink-escape"])
def test_hostile_archives_are_refused(tmp_path, members):
    dest = tmp_path / "out" / "dest"
    with pytest.raises(UnsafeArchive, match="nothing was installed"):
        safe_extract(_hostile(tmp_path, members), "tgz", dest, "hint")
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "out" / "evil.txt").exists()


def test_write_through_an_inside_symlink_is_allowed_but_never_outside(tmp_path):
    members = [Member("real", directory=True), Member("alias", link="real"),
               Member("alias/file", b"data")]
    dest = tmp_path / "dest"
    safe_extract(_hostile(tmp_path, members), "tgz", dest, "hint")
    assert (dest / "real" / "file").read_bytes() == b"data"


def test_hostile_archive_through_setup_leaves_nothing(server, tree):
    data = make_tar(toolchain_members(TOP) + [Member(f"{TOP}/x", link="../../../../escape")],
                    "tar.xz")
    server.routes["tc.tar.xz"] = Route(data)
    cat = catalogue({"toolchain": toolchain_pin(server.url("tc.tar.xz"), data, TOP)})
    options = SetupOptions(only=("toolchain",), toolchain_provider="arm", policy=FAST_POLICY)
    with pytest.raises(OrchestratorError, match="escapes; nothing was installed"):
        run_setup(tree, options, cat, host="linux-x86_64")
    assert sorted(p.name for p in tree.tools.iterdir()) == []
    assert read_lock(tree) == {}


def _spec(tmp_path: Path, tree, pins: dict, name: str) -> Path:
    spec = tmp_path / f"{name}.json"
    spec.write_text(json.dumps({"scratch": str(tree.root), "pins": pins, "options": OPTIONS,
                                "host": "linux-x86_64"}))
    return spec


def _runner(spec: Path, quiet: bool = False) -> subprocess.Popen:
    pipe = subprocess.DEVNULL if quiet else subprocess.PIPE
    root = Path(__file__).parents[2]   # this checkout's orchestrator, not an installed one
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (
        str(root), os.environ.get("PYTHONPATH"))))}
    return subprocess.Popen([sys.executable, str(RUNNER), str(spec)], stdout=pipe, stderr=pipe,
                            text=True, cwd=root, start_new_session=True, env=env)


def test_killed_mid_unpack_keeps_the_old_install(server, tree, tmp_path):
    old = make_tar(toolchain_members(TOP, version="15.2.0"), "tar.xz")
    new = make_tar(toolchain_members(TOP, version="15.2.1", extra=400), "tar.xz")
    server.routes["old.tar.xz"], server.routes["new.tar.xz"] = Route(old), Route(new)
    old_pins = {"artifacts": {"toolchain": toolchain_pin(server.url("old.tar.xz"), old, TOP)}}
    run_setup(tree, SetupOptions(only=("toolchain",), toolchain_provider="arm",
                                 policy=FAST_POLICY),
              catalogue(old_pins["artifacts"]), host="linux-x86_64")
    new_pins = {"artifacts": {"toolchain": toolchain_pin(server.url("new.tar.xz"), new, TOP,
                                                         version="15.2.rel2")}}
    proc = _runner(_spec(tmp_path, tree, new_pins, "new"), quiet=True)
    deadline = time.monotonic() + 20
    while not any(tree.tools.glob(f".tmp-toolchain-*/{TOP}/share/f00020")):
        assert proc.poll() is None and time.monotonic() < deadline, "never saw the unpack"
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert read_marker(tree.tools / "toolchain")["gcc_version"] == "15.2.0"
    assert read_lock(tree)["toolchain"]["gcc_version"] == "15.2.0"
    assert any(tree.tools.glob(".tmp-toolchain-*"))          # the debris of the killed run
    run_setup(tree, SetupOptions(only=("toolchain",), toolchain_provider="arm",
                                 policy=FAST_POLICY),
              catalogue(new_pins["artifacts"]), host="linux-x86_64")
    assert sorted(p.name for p in tree.tools.iterdir()) == ["toolchain"]
    assert read_lock(tree)["toolchain"]["gcc_version"] == "15.2.1"
    assert (tree.tools / "toolchain" / MARKER).is_file()


def test_concurrent_setups_serialise(server, tree, tmp_path):
    data = make_tar(toolchain_members(TOP), "tar.xz")
    server.routes["tc.tar.xz"] = Route(data, delay=1.0)
    pins = {"artifacts": {"toolchain": toolchain_pin(server.url("tc.tar.xz"), data, TOP)}}
    procs = [_runner(_spec(tmp_path, tree, pins, f"run{i}")) for i in range(2)]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    stderr = "".join(err for _out, err in outputs)
    assert stderr.count("installing toolchain ...") == 1   # the step start line
    assert "waiting for it" in stderr
    assert server.hits.count("tc.tar.xz") == 1
    assert sorted(p.name for p in tree.tools.iterdir()) == ["toolchain"]
