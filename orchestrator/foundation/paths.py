"""The scratch/ layout: everything downloaded, built or produced lives under one root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.cache_root import USER_CACHE_ENV as USER_CACHE_ENV
from orchestrator.foundation.cache_root import USER_CACHE_NAME as USER_CACHE_NAME
from orchestrator.foundation.cache_root import user_cache as user_cache
from orchestrator.foundation.file_faults import writing

SCRATCH_ENV = "ETHOSU_ORCH_SCRATCH"
SUBDIRS = ("downloads", "tools", "src", "build", "models", "runs")


def repo_root() -> Path:
    """The checkout this package was imported from (the default parent of scratch/)."""
    return Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Scratch:
    """Paths of the scratch tree; nothing is created until `ensure()` is called."""

    root: Path

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    @property
    def tools(self) -> Path:
        return self.root / "tools"

    @property
    def src(self) -> Path:
        return self.root / "src"

    @property
    def build(self) -> Path:
        return self.root / "build"

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def weights(self) -> Path:
        """Pretrained weights of upstream models (invoke setup --models NAME)."""
        return self.root / "weights"

    def ensure(self) -> Scratch:
        """Create the root and its standard sub-directories; return self."""
        for name in SUBDIRS:
            with writing(self.root / name):
                (self.root / name).mkdir(parents=True, exist_ok=True)
        return self


def scratch(root: str | os.PathLike[str] | None = None) -> Scratch:
    """The scratch tree: `root`, else $ETHOSU_ORCH_SCRATCH, else <repo>/scratch."""
    chosen = root or os.environ.get(SCRATCH_ENV) or repo_root() / "scratch"
    return Scratch(Path(chosen).expanduser().resolve())
