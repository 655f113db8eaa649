"""A toolset's environment installed through a mirror (a real HTTP server on 127.0.0.1
serving the distribution files): digests checked before anything is installed, a file whose
digest differs or is not pinned refused in one line, scratch left without a half-made
environment. The real file comes from the registry once (the fixture cache)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_install import install_toolset
from orchestrator.toolsets.catalogue import find_toolset
from orchestrator.toolsets.environment import installed_toolset, own_versions, release, toolset_root
from orchestrator.toolsets.layering import (
    layer_on,
    layered_directories,
    own_distributions,
    own_heavy,
    own_site_packages,
    tool_site_directories,
)

pytestmark = pytest.mark.slow
VELA = "vela-5.2.0"


def _registry_wheel(installed, toolset_cache) -> Path:
    """Vela 5.2.0's wheel as the registry served it (installing the toolset fetched it)."""
    installed(VELA)
    found = sorted((toolset_cache.downloads / "toolsets").glob("ethos_u_vela-5.2.0-*.whl"))
    assert found, "the fixture cache's install downloaded no Vela 5.2.0 wheel"
    return found[-1]


def _nothing_half_made(root: Path) -> None:
    assert [path.name for path in root.iterdir() if path.name.startswith(".")
            and not path.name.endswith(".lock")] == []


def test_a_toolset_installs_from_a_mirror_with_its_digest_checked(
        installed, toolset_cache, file_server, tmp_path):
    wheel = _registry_wheel(installed, toolset_cache)
    shutil.copy(wheel, file_server.directory / wheel.name)
    where = scratch(tmp_path / "scratch").ensure()
    done = install_toolset(find_toolset(VELA), SetupOptions(mirror=file_server.url), where)
    assert any(wheel.name in path for path in file_server.requested)
    assert done.versions["ethos-u-vela"] == "5.2.0" and done.versions["executorch"] == "1.4.1"
    assert done.state["files"]["ethos-u-vela"]["verified"] == "sha256 pinned"
    assert installed_toolset(find_toolset(VELA), where) is not None
    _nothing_half_made(toolset_root(where))


def test_a_mirrored_file_with_another_digest_is_refused(installed, toolset_cache, file_server,
                                                         tmp_path):
    wheel = _registry_wheel(installed, toolset_cache)
    (file_server.directory / wheel.name).write_bytes(wheel.read_bytes() + b"tampered")
    where = scratch(tmp_path / "scratch").ensure()
    with pytest.raises(OrchestratorError) as caught:
        install_toolset(find_toolset(VELA), SetupOptions(mirror=file_server.url), where)
    assert "not the pinned" in caught.value.cause and "\n" not in caught.value.message
    assert installed_toolset(find_toolset(VELA), where) is None
    _nothing_half_made(toolset_root(where))
    assert not list((where.downloads / "toolsets").glob("*.whl")), "the bad file was kept"


def test_a_file_without_a_pinned_digest_needs_allow_unpinned(installed, toolset_cache,
                                                             file_server, tmp_path):
    wheel = _registry_wheel(installed, toolset_cache)
    renamed = wheel.name.replace(".manylinux2014_x86_64", "")   # a name toolsets.toml lacks
    shutil.copy(wheel, file_server.directory / renamed)
    where = scratch(tmp_path / "scratch").ensure()
    with pytest.raises(OrchestratorError) as caught:
        install_toolset(find_toolset(VELA), SetupOptions(mirror=file_server.url), where)
    assert caught.value.next_step is not None
    assert "--allow-unpinned=ethos-u-vela" in caught.value.next_step
    done = install_toolset(find_toolset(VELA), SetupOptions(
        mirror=file_server.url, allow_unpinned=frozenset({"ethos-u-vela"})), where)
    assert done.state["files"]["ethos-u-vela"]["verified"] == "unpinned (allowed)"


_INSTALL_IN_THE_VENV = """
import json, sys
from pathlib import Path
from orchestrator.foundation.paths import scratch
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_install import install_toolset
from orchestrator.toolsets.catalogue import find_toolset
done = install_toolset(find_toolset(sys.argv[1]), SetupOptions(mirror=sys.argv[2]),
                       scratch(Path(sys.argv[3])).ensure())
print(json.dumps({"directory": str(done.directory), "state": done.state}))
"""
_WHERE_IS = ("import importlib.metadata as m, json, sys\n"
             "print(json.dumps({p: [m.version(p), str(m.distribution(p).locate_file(''))] "
             "for p in sys.argv[1:]}))")


def test_a_tool_in_a_venv_gets_a_toolset_layered_on_that_venv(installed, toolset_cache,
                                                              file_server, tmp_path):
    """The tool runs in a venv made here (its packages: this environment's, layered in); the
    toolset made from it sees the venv's executorch and torch and adds only Vela from the
    mirror (as `venv --system-site-packages` from a venv did not: it saw the base
    interpreter's packages and went looking for executorch)."""
    wheel = _registry_wheel(installed, toolset_cache)
    shutil.copy(wheel, file_server.directory / wheel.name)
    tool = tmp_path / "tool-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tool)], check=True)
    layer_on(tool, tool_site_directories())
    done = subprocess.run([str(tool / "bin" / "python"), "-c", _INSTALL_IN_THE_VENV, VELA,
                           file_server.url, str(tmp_path / "scratch")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    directory = Path(answer["directory"])
    assert layered_directories(directory) == [str(own_site_packages(tool))]
    assert set(answer["state"]["files"]) == {"ethos-u-vela"}
    assert own_distributions(directory)["ethos-u-vela"] == "5.2.0"
    assert {"executorch", "torch"}.isdisjoint(own_distributions(directory))
    seen = subprocess.run([str(directory / "bin" / "python"), "-c", _WHERE_IS, "executorch",
                           "torch", "ethos-u-vela"], capture_output=True, text=True, check=True)
    where = json.loads(seen.stdout)
    assert where["ethos-u-vela"][0] == "5.2.0" and str(directory) in where["ethos-u-vela"][1]
    for package in ("executorch", "torch"):
        assert where[package][0] == own_versions()[package]
        assert str(directory) not in where[package][1]


@pytest.mark.parametrize("name", ["vela-5.2.0", "et-1.5.1"])
def test_a_toolset_with_the_tools_torch_holds_no_torch_or_nvidia_of_its_own(installed, name):
    done = installed(name)
    if release(own_versions()["torch"]) != done.toolset.versions["torch"]:
        pytest.skip(f"this environment's torch is not {name}'s")
    assert own_heavy(done.directory) == []
    assert "torch" not in done.state["files"]


def _installing(python: str, url: str, root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([python, "-c", _INSTALL_IN_THE_VENV, VELA, url, str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_installs_killed_midway_or_run_twice_at_once_leave_one_sound_environment(
        installed, toolset_cache, file_server, tmp_path):
    """One install SIGKILLed while it stages, then two at once (real processes): they take
    turns, the second finds the first's environment, nothing half-made is left."""
    import signal
    import time

    wheel = _registry_wheel(installed, toolset_cache)
    shutil.copy(wheel, file_server.directory / wheel.name)
    root = tmp_path / "scratch"
    victim = _installing(sys.executable, file_server.url, root)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((root / "toolsets").glob(".staging-*")):
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=30)
    assert list((root / "toolsets").glob(".staging-*")), "the victim left no staging to clean"
    pair = [_installing(sys.executable, file_server.url, root) for _ in range(2)]
    answers = [process.communicate(timeout=600) for process in pair]
    assert [process.returncode for process in pair] == [0, 0], [err for _o, err in answers]
    assert sum("waiting for another install" in err for _out, err in answers) == 1
    assert sum(" done in " in err for _out, err in answers) == 1, "installed twice"
    where = scratch(root)
    assert installed_toolset(find_toolset(VELA), where) is not None
    _nothing_half_made(toolset_root(where))


def test_a_flipped_byte_in_a_toolset_environment_is_named_and_installed_again(
        installed, toolset_cache, file_server, tmp_path, capsys):
    wheel = _registry_wheel(installed, toolset_cache)
    shutil.copy(wheel, file_server.directory / wheel.name)
    where = scratch(tmp_path / "scratch").ensure()
    options = SetupOptions(mirror=file_server.url)
    done = install_toolset(find_toolset(VELA), options, where)
    metadata = next(own_site_packages(done.directory).glob("ethos_u_vela-*.dist-info")) \
        / "METADATA"
    data = bytearray(metadata.read_bytes())
    data[0] ^= 0x20
    metadata.write_bytes(bytes(data))
    capsys.readouterr()
    assert installed_toolset(find_toolset(VELA), where) is None
    name = metadata.relative_to(done.directory).as_posix()
    assert (f"scratch/toolsets/{done.directory.name}/{name} differs from its manifest: "
            f"installed again by invoke setup --toolsets {VELA}") in capsys.readouterr().err
    again = install_toolset(find_toolset(VELA), options, where)
    assert metadata.read_bytes()[0] == data[0] ^ 0x20
    assert installed_toolset(find_toolset(VELA), where) == again
