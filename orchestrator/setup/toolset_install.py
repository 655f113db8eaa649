"""Install a toolset's environment (`invoke setup --toolsets NAME`): a virtual environment
under scratch/toolsets/<name>/ layered on the tool's real one (toolsets/layering.py), what
it adds resolved there (toolset_plan.py), each distribution file, dependencies included,
downloaded alone (registry, or --mirror: a folder of files served over HTTP or on disk) and
checked against its sha256 in toolsets.toml (else refused unless --allow-unpinned names
it), installed without further resolution, then the versions the environment really
imports checked against the pins and no torch/nvidia copy of its own. Staged beside the
final directory and renamed into place, so an interrupted install leaves nothing half-made.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from orchestrator.foundation.cache_check import record_files
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.progress import step
from orchestrator.setup.digests import file_digests
from orchestrator.setup.filelock import exclusive_lock
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_plan import Addition, additions, read_report, requirements
from orchestrator.toolsets.catalogue import PACKAGES, Toolset, pinned_digests
from orchestrator.toolsets.environment import (
    STATE_FILE,
    STATE_SCHEMA,
    InstalledToolset,
    installed_toolset,
    python_of,
    toolset_directory,
    version_differences,
)
from orchestrator.toolsets.layering import (
    canonical,
    layer_on,
    layered_directories,
    own_heavy,
    tool_site_directories,
)

INSTALL_LOG = "install.log"
VERSIONS_SCRIPT = ("import json, importlib.metadata as m\n"
                   "def v(p):\n"
                   "    try: return m.version(p)\n"
                   "    except m.PackageNotFoundError: return 'missing'\n"
                   f"print(json.dumps({{p: v(p) for p in {list(PACKAGES)!r}}}))")


def _run(command: list[str], log: Path, what: str, toolset: Toolset) -> str:
    """Run a step of the install, its output appended to the log; one line if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    with log.open("a") as handle:
        handle.write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        last = next((line for line in reversed(done.stderr.splitlines())
                     if line.strip() and "is ignored" not in line), "no message")
        raise OrchestratorError(f"installing toolset {toolset.name} failed while {what}: "
                                f"{last.strip()}", f"read {log}, then invoke setup "
                                f"--toolsets {toolset.name}")
    return done.stdout


def _installed_versions(python: Path, log: Path, toolset: Toolset) -> dict[str, str]:
    printed = _run([str(python), "-c", VERSIONS_SCRIPT], log, "reading its versions", toolset)
    versions: dict[str, str] = json.loads(printed.strip().splitlines()[-1])
    return versions


def _source_flags(options: SetupOptions, cache: Path) -> list[str]:
    """pip's index flags: the registry; only the mirror's files (--mirror); only the download
    cache (--offline)."""
    if options.offline:
        return ["--no-index", "--find-links", str(cache)]
    if options.mirror:
        return ["--no-index", "--find-links", options.mirror]
    return []


def _wheel_of(path: Path) -> tuple[str, str]:
    """('typing-extensions', '4.12.2') from a wheel's file name."""
    name, version = (path.name.split("-") + ["", ""])[:2]
    return canonical(name), version


def _download(python: Path, addition: Addition, cache: Path, options: SetupOptions,
              log: Path, toolset: Toolset) -> Path:
    """One distribution file into the cache, without its dependencies (pip picks the host's
    file)."""
    _run([str(python), "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
          "--disable-pip-version-check", "--dest", str(cache), *_source_flags(options, cache),
          addition.requirement], log, f"downloading {addition.requirement}", toolset)
    found = [path for path in cache.iterdir() if path.suffix == ".whl"
             and _wheel_of(path) == (canonical(addition.name), addition.version)]
    if not found:
        raise OrchestratorError(f"pip downloaded no wheel for {addition.requirement}",
                                f"read {log}, then invoke setup --toolsets {toolset.name}")
    return sorted(found)[-1]


def _checked(path: Path, package: str, options: SetupOptions, toolset: Toolset
             ) -> dict[str, str]:
    """The file's sha256, refused when it differs from the pinned one or (unless allowed)
    when none is pinned."""
    actual = file_digests(path, ("sha256",))["sha256"]
    pinned = pinned_digests().get(path.name)
    if pinned is None and not options.unpinned_ok(package):
        raise OrchestratorError(
            f"{path.name} (toolset {toolset.name}) has no pinned sha256 in toolsets.toml",
            f"add its digest there, or invoke setup --toolsets {toolset.name} "
            f"--allow-unpinned={package}")
    if pinned is not None and pinned != actual:
        path.unlink(missing_ok=True)
        raise OrchestratorError(
            f"{path.name} (toolset {toolset.name}) has sha256 {actual[:16]}..., not the "
            f"pinned {pinned[:16]}...: the file was removed",
            f"check the mirror or registry, then invoke setup --toolsets {toolset.name}")
    return {"file": path.name, "sha256": actual,
            "verified": "sha256 pinned" if pinned else "unpinned (allowed)"}


def _needed(toolset: Toolset, present: dict[str, str]) -> list[str]:
    """The packages whose present version differs from the toolset's, executorch first (its
    ethos-u extra brings its dependencies); the others are laid over it without deps."""
    differing = [package for package, version in toolset.versions.items()
                 if present.get(package, "missing").split("+")[0] != version]
    return sorted(differing, key=lambda package: package != "executorch")


def _resolve(python: Path, toolset: Toolset, needed: list[str], cache: Path,
             options: SetupOptions, log: Path) -> list[Addition]:
    """What the install adds over the tool's environment, dependencies included."""
    report = log.with_suffix(".resolve.json")
    resolved: list[tuple[str, str]] = []
    try:
        for requirement in requirements(toolset, needed):   # each alone: pins are laid over
            _run([str(python), "-m", "pip", "install", "--dry-run", "--quiet",
                  "--only-binary=:all:", "--disable-pip-version-check", "--report", str(report),
                  *_source_flags(options, cache), requirement], log,
                 f"resolving {requirement}", toolset)
            resolved += read_report(report)
    finally:
        report.unlink(missing_ok=True)
    return additions(toolset, needed, resolved)


def _no_heavy_copies(toolset: Toolset, environment: Path, needed: list[str]) -> None:
    """A toolset whose torch is the tool's holds no torch, triton or nvidia-* of its own."""
    heavy = own_heavy(environment) if "torch" not in needed else []
    if heavy:
        raise OrchestratorError(f"toolset {toolset.name} would hold its own "
                                f"{', '.join(heavy)} though its torch is the tool's",
                                f"report this; invoke setup --toolsets {toolset.name} --force")


def _build(toolset: Toolset, staging: Path, log: Path, cache: Path, options: SetupOptions
           ) -> dict[str, Any]:
    _run([sys.executable, "-m", "venv", str(staging)], log,
         "creating its virtual environment", toolset)
    layer_on(staging, tool_site_directories())
    python = python_of(staging)
    needed = _needed(toolset, _installed_versions(python, log, toolset))
    adding = _resolve(python, toolset, needed, cache, options, log) if needed else []
    files = {addition.name: _download(python, addition, cache, options, log, toolset)
             for addition in adding}
    checked = {name: _checked(path, name, options, toolset) for name, path in files.items()}
    if files:
        _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-deps",
              "--no-index", *map(str, files.values())], log, "installing its files", toolset)
    versions = _installed_versions(python, log, toolset)
    differences = version_differences(toolset.versions, versions)
    if differences:
        raise OrchestratorError(f"toolset {toolset.name} does not hold its pins: "
                                f"{'; '.join(differences)}", f"read {log}")
    _no_heavy_copies(toolset, staging, needed)
    log.replace(staging / INSTALL_LOG)
    return {"schema": STATE_SCHEMA, "name": toolset.name, "packages": toolset.versions,
            "versions": versions, "files": checked, "runtime_tag": toolset.runtime_tag,
            "base_python": sys.executable, "layered_on": layered_directories(staging),
            "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def _publish(staging: Path, final: Path) -> None:
    """Swap the staged environment in (an older one is moved aside, then removed)."""
    old = final.with_name(f".old-{final.name}-{os.getpid()}")
    if final.exists():
        os.rename(final, old)
    os.rename(staging, final)
    shutil.rmtree(old, ignore_errors=True)


def _remove_leftovers(final: Path) -> None:
    """What an install killed midway left (its staging, a replaced environment moved aside);
    called with the install lock held, so no live install owns them."""
    for pattern in (f".staging-{final.name}-*", f".old-{final.name}-*"):
        for leftover in final.parent.glob(pattern):
            shutil.rmtree(leftover, ignore_errors=True)


def install_toolset(toolset: Toolset, options: SetupOptions, where: Scratch) -> InstalledToolset:
    """The toolset's environment, installed unless it already is (or --force). Installs of
    one toolset take turns (a lock beside it): the second finds the first's environment."""
    final = toolset_directory(toolset, where)
    found = installed_toolset(toolset, where)
    if found is not None and not options.forced(toolset.name):
        return found
    final.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(final.with_name(f".{final.name}.lock"),
                        f"waiting for another install of toolset {toolset.name}"):
        found = installed_toolset(toolset, where)
        if found is not None and not options.forced(toolset.name):
            return found
        _remove_leftovers(final)
        _install(toolset, options, where, final)
    installed = installed_toolset(toolset, where)
    assert installed is not None, f"toolset {toolset.name} was published without its state"
    return installed


def _install(toolset: Toolset, options: SetupOptions, where: Scratch, final: Path) -> None:
    staging = final.with_name(f".staging-{final.name}-{os.getpid()}")
    log = final.with_name(f"{final.name}.{INSTALL_LOG}")   # kept beside it if the install fails
    log.unlink(missing_ok=True)
    cache = options.download_cache(where) / "toolsets"
    cache.mkdir(parents=True, exist_ok=True)
    with step(f"toolset {toolset.describe()}"):
        try:
            state = _build(toolset, staging, log, cache, options)
            (staging / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n")
            record_files(staging)   # verified on every use (toolsets/environment.py)
            _publish(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
