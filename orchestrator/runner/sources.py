"""Where the upstream source trees the runtime is built from are: the setup lock, or paths
given directly (user-supplied source directories)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.pins import load_pins, source_needs
from orchestrator.setup.lock import read_lock, source_tree

# The trees the runtime build compiles, in RuntimeSources order; which are NPU-only and which
# files prove a directory is that tree come from the pins ([sources.*] in pins.toml).
RUNTIME_TREES = ("executorch", "cmsis-nn", "ethosu-core-driver", "cmsis")
# Directory names the trees usually have when checked out side by side (first: the tree's
# own name, as setup and the pins call it).
USUAL_DIRS = {"executorch": ("executorch",), "cmsis-nn": ("cmsis-nn", "CMSIS-NN"),
              "ethosu-core-driver": ("ethosu-core-driver", "ethos-u-core-driver", "core_driver",
                                     "hal_ethos_u"),
              "cmsis": ("cmsis", "cmsis_6", "CMSIS_6")}


@dataclass(frozen=True)
class RuntimeSources:
    """The source trees one runtime build needs (driver + CMSIS only for NPU configs)."""

    executorch: Path
    cmsis_nn: Path
    ethosu_driver: Path | None = None
    cmsis: Path | None = None


def resolve_sources(scratch: Scratch, given: Mapping[str, Path] | None = None,
                    npu: bool = False) -> RuntimeSources:
    """Source trees from `given` (name -> dir) first, then the setup lock; checked. The
    pins' [sources.*] tables are read through source_needs (needed_for, required_files): locating a
    tree needs none of the setup catalogue's records (a warm run does not build them)."""
    pinned = {name: source_needs(load_pins()["sources"][name]) for name in RUNTIME_TREES}
    needed = [name for name in RUNTIME_TREES if npu or pinned[name][0] != "npu"]
    found = {name: _locate(scratch, name, pinned[name][1], given or {}) for name in needed}
    return RuntimeSources(found["executorch"], found["cmsis-nn"],
                          found.get("ethosu-core-driver"), found.get("cmsis"))


def _locate(scratch: Scratch, name: str, required_files: tuple[str, ...],
            given: Mapping[str, Path]) -> Path:
    fix = f"invoke setup --only sources --source {name}=<dir>"
    path = given.get(name) or _from_lock(scratch, name, fix)
    if path is None:
        raise OrchestratorError(f"no {name} source tree is set up", fix)
    path = Path(path).expanduser().resolve()
    missing = [f for f in required_files if not (path / f).is_file()]
    if missing:
        raise OrchestratorError(f"{path} is not a {name} source tree (no {missing[0]})",
                                f"{fix} --force")
    if name == "executorch" and path.name != "executorch":
        raise OrchestratorError(f"the ExecuTorch source directory must be named 'executorch' "
                                f"(its headers are included as <executorch/...>), got {path}",
                                "rename or symlink it, then invoke setup --only sources")
    return path


def _from_lock(scratch: Scratch, name: str, fix: str) -> Path | None:
    """The tree setup recorded (None when setup recorded none)."""
    return source_tree(scratch, name, fix) if name in read_lock(scratch) else None


def sources_available(scratch: Scratch, given: Mapping[str, Path] | None = None,
                      npu: bool = False) -> str | None:
    """None when every needed tree resolves, else the one-line reason (for skips/doctor)."""
    try:
        resolve_sources(scratch, given, npu)
    except OrchestratorError as error:
        return error.message
    return None


def trees_under(root: Path) -> dict[str, Path]:
    """name -> directory for the source trees checked out side by side under `root`."""
    found = {}
    for name, candidates in USUAL_DIRS.items():
        existing = [root / c for c in candidates if (root / c).is_dir()]
        if existing:
            found[name] = existing[0]
    return found


UNVERSIONED = "unversioned"


def source_commit(scratch: Scratch, tree: Path) -> str:
    """The commit of the ExecuTorch tree a runtime is built from: what setup recorded for it,
    else the checkout's HEAD, else 'unversioned <its version.txt> at <path>' (a plain
    directory has no commit; the result says so rather than leaving the field empty)."""
    entry = read_lock(scratch).get("executorch") or {}
    if entry.get("commit") and Path(entry.get("path", "")).resolve() == tree.resolve():
        return str(entry["commit"])
    from orchestrator.setup import gitsrc  # a tree setup did not record

    if gitsrc.is_git(tree):
        head = gitsrc.resolve(tree, "HEAD")
        if head:
            return head
    version = tree / "version.txt"
    declared = version.read_text().strip() if version.is_file() else "tree"
    return f"{UNVERSIONED} {declared} at {tree}"
