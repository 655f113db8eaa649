"""A toolset's environment installed through a mirror (a real HTTP server on 127.0.0.1
serving the distribution files): digests checked before anything is installed, a file whose
digest differs or is not pinned refused in one line, scratch left without a half-made
environment. The real file comes from the registry once (the fixture cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from orchestrator.errors import OrchestratorError
from orchestrator.paths import scratch
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_install import install_toolset
from orchestrator.toolsets.catalogue import find_toolset
from orchestrator.toolsets.environment import installed_toolset, toolset_root

pytestmark = pytest.mark.slow
VELA = "vela-5.2.0"


def _registry_wheel(installed, toolset_cache) -> Path:
    """Vela 5.2.0's wheel as the registry served it (installing the toolset fetched it)."""
    installed(VELA)
    found = sorted((toolset_cache.downloads / "toolsets").glob("ethos_u_vela-5.2.0-*.whl"))
    assert found, "the fixture cache's install downloaded no Vela 5.2.0 wheel"
    return found[-1]


def _nothing_half_made(root: Path) -> None:
    assert [path.name for path in root.iterdir() if path.name.startswith(".")] == []


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
