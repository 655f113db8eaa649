"""Toolsets installed from the registry into a fixture cache shared by test sessions
(ETHOSU_ORCH_TEST_TOOLSETS, default ~/.cache/ethosu-orchestrator-tests/toolsets): the first
session installs them (under a minute each), later ones find them checked and complete."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from toolset_helpers import needs_aot

from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_install import install_toolset
from orchestrator.toolsets.catalogue import find_toolset
from orchestrator.toolsets.environment import TOOLSETS_DIR, InstalledToolset

CACHE_VARIABLE = "ETHOSU_ORCH_TEST_TOOLSETS"


@pytest.fixture(scope="session")
def toolset_cache() -> Scratch:
    chosen = os.environ.get(CACHE_VARIABLE)
    root = Path(chosen) if chosen else Path.home() / ".cache" / "ethosu-orchestrator-tests" \
        / "toolsets"
    return scratch(root).ensure()


@pytest.fixture(scope="session")
def installed(toolset_cache: Scratch) -> Callable[[str], InstalledToolset]:
    """Install (or find) a toolset of toolsets.toml in the fixture cache, from the registry."""
    def install(name: str) -> InstalledToolset:
        needs_aot()
        return install_toolset(find_toolset(name), SetupOptions(), toolset_cache)
    return install


@pytest.fixture(scope="module")
def ab_scratch(tmp_path_factory: pytest.TempPathFactory, toolset_cache: Scratch) -> Scratch:
    """A fresh scratch for products, whose toolsets are the fixture cache's."""
    where = scratch(tmp_path_factory.mktemp("ab-scratch")).ensure()
    (toolset_cache.root / TOOLSETS_DIR).mkdir(exist_ok=True)
    (where.root / TOOLSETS_DIR).symlink_to(toolset_cache.root / TOOLSETS_DIR,
                                          target_is_directory=True)
    return where
