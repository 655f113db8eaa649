"""Where the upstream source trees the runtime is built from are: the setup lock, or paths
given directly (user-supplied source directories)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.setup.lock import read_lock

# name -> a file that proves the directory is that source tree
REQUIRED_FILE = {
    "executorch": "runtime/executor/program.h",
    "cmsis-nn": "Include/arm_nnfunctions.h",
    "ethosu-core-driver": "include/ethosu_driver.h",
    "cmsis": "CMSIS/Core/Include/cmsis_compiler.h",
}
NPU_ONLY = ("ethosu-core-driver", "cmsis")
# Directory names the trees usually have when checked out side by side.
USUAL_DIRS = {"executorch": ("executorch",), "cmsis-nn": ("cmsis-nn", "CMSIS-NN"),
              "ethosu-core-driver": ("ethos-u-core-driver", "core_driver", "hal_ethos_u"),
              "cmsis": ("cmsis_6", "CMSIS_6")}
_PATH_KEYS = ("path", "source_dir", "dir")


@dataclass(frozen=True)
class RuntimeSources:
    """The source trees one runtime build needs (driver + CMSIS only for NPU configs)."""

    executorch: Path
    cmsis_nn: Path
    ethosu_driver: Path | None = None
    cmsis: Path | None = None


def resolve_sources(scratch: Scratch, given: Mapping[str, Path] | None = None,
                    npu: bool = False) -> RuntimeSources:
    """Source trees from `given` (name -> dir) first, then the setup lock; checked."""
    needed = [name for name in REQUIRED_FILE if npu or name not in NPU_ONLY]
    found = {name: _locate(scratch, name, given or {}) for name in needed}
    return RuntimeSources(found["executorch"], found["cmsis-nn"],
                          found.get("ethosu-core-driver"), found.get("cmsis"))


def _locate(scratch: Scratch, name: str, given: Mapping[str, Path]) -> Path:
    path = given.get(name) or _from_lock(scratch, name)
    if path is None:
        raise OrchestratorError(f"no {name} source tree is set up",
                                f"invoke setup --only sources --source {name}=<dir>")
    path = Path(path).expanduser().resolve()
    if not (path / REQUIRED_FILE[name]).is_file():
        raise OrchestratorError(f"{path} is not a {name} source tree "
                                f"(no {REQUIRED_FILE[name]})",
                                f"invoke setup --only sources --source {name}=<dir> --force")
    if name == "executorch" and path.name != "executorch":
        raise OrchestratorError(f"the ExecuTorch source directory must be named 'executorch' "
                                f"(its headers are included as <executorch/...>), got {path}",
                                "rename or symlink it, then invoke setup --only sources")
    return path


def _from_lock(scratch: Scratch, name: str) -> Path | None:
    entry = read_lock(scratch).get(f"source-{name}") or read_lock(scratch).get(name) or {}
    for key in _PATH_KEYS:
        if entry.get(key):
            return Path(entry[key])
    return None


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
