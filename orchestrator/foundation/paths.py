"""The scratch/ layout: everything downloaded, built or produced lives under one root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.file_faults import writing

SCRATCH_ENV = "ETHOSU_ORCH_SCRATCH"
USER_CACHE_ENV = "ETHOSU_ORCH_CACHE_DIR"   # a directory, or "0" to keep builds in the scratch
USER_CACHE_NAME = "ethosu-orchestrator"
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


def user_cache() -> Path | None:
    """The user-level cache shared by every scratch and clone of this user: $ETHOSU_ORCH_CACHE_DIR,
    else $XDG_CACHE_HOME/ethosu-orchestrator, else ~/.cache/ethosu-orchestrator; None when
    $ETHOSU_ORCH_CACHE_DIR is "0" (everything stays in the scratch)."""
    chosen = os.environ.get(USER_CACHE_ENV, "")
    if chosen == "0":
        return None
    if chosen:
        return Path(chosen).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser().resolve() / USER_CACHE_NAME
