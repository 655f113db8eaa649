"""Install a toolset's environment (`invoke setup --toolsets NAME`): a virtual environment
under scratch/toolsets/<name>/ over the tool's own (--system-site-packages), the toolset's
distribution files downloaded (registry, or --mirror: a folder of files served over HTTP or
on disk), each checked against its sha256 in toolsets.toml, installed, then the versions the
environment really imports checked against the pins. Staged beside the final directory and
renamed into place, so an interrupted install leaves nothing half-made.
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

from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.progress import step
from orchestrator.setup.digests import file_digests
from orchestrator.setup.options import SetupOptions
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


def _download(python: Path, requirement: str, cache: Path, options: SetupOptions,
              log: Path, toolset: Toolset) -> Path:
    """One pinned distribution file into the cache (pip picks the host's file)."""
    before = set(cache.iterdir())
    _run([str(python), "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
          "--dest", str(cache), *_source_flags(options, cache), requirement], log,
         f"downloading {requirement}", toolset)
    name, version = requirement.split("==")
    prefix = f"{name.replace('-', '_')}-{version}"
    found = [path for path in cache.iterdir() if path.name.startswith(prefix)
             and path.suffix == ".whl"] or [path for path in set(cache.iterdir()) - before]
    if not found:
        raise OrchestratorError(f"pip downloaded no file for {requirement}",
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


def _install_files(python: Path, toolset: Toolset, files: dict[str, Path],
                   flags: list[str], log: Path) -> None:
    """executorch with its ethos-u extra's dependencies, the others laid over it as pinned."""
    for package, path in files.items():
        extra, deps = ("[ethos-u]", []) if package == "executorch" else ("", ["--no-deps"])
        _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", *deps,
              *flags, f"{path}{extra}"], log, f"installing {path.name}", toolset)


def _build(toolset: Toolset, staging: Path, log: Path, cache: Path, options: SetupOptions
           ) -> dict[str, Any]:
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(staging)], log,
         "creating its virtual environment", toolset)
    python = python_of(staging)
    needed = _needed(toolset, _installed_versions(python, log, toolset))
    files = {package: _download(python, f"{package}=={toolset.versions[package]}", cache,
                                options, log, toolset) for package in needed}
    checked = {package: _checked(path, package, options, toolset)
               for package, path in files.items()}
    _install_files(python, toolset, files, _source_flags(options, cache), log)
    versions = _installed_versions(python, log, toolset)
    differences = version_differences(toolset.versions, versions)
    if differences:
        raise OrchestratorError(f"toolset {toolset.name} does not hold its pins: "
                                f"{'; '.join(differences)}", f"read {log}")
    log.replace(staging / INSTALL_LOG)
    return {"schema": STATE_SCHEMA, "name": toolset.name, "packages": toolset.versions,
            "versions": versions, "files": checked, "runtime_tag": toolset.runtime_tag,
            "base_python": sys.executable, "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                         time.gmtime())}


def _publish(staging: Path, final: Path) -> None:
    """Swap the staged environment in (an older one is moved aside, then removed)."""
    old = final.with_name(f".old-{final.name}-{os.getpid()}")
    if final.exists():
        os.rename(final, old)
    os.rename(staging, final)
    shutil.rmtree(old, ignore_errors=True)


def install_toolset(toolset: Toolset, options: SetupOptions, where: Scratch) -> InstalledToolset:
    """The toolset's environment, installed unless it already is (or --force)."""
    found = installed_toolset(toolset, where)
    if found is not None and not options.forced(toolset.name):
        return found
    final = toolset_directory(toolset, where)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = final.with_name(f".staging-{final.name}-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    log = final.with_name(f"{final.name}.{INSTALL_LOG}")   # kept beside it if the install fails
    log.unlink(missing_ok=True)
    cache = options.download_cache(where) / "toolsets"
    cache.mkdir(parents=True, exist_ok=True)
    with step(f"toolset {toolset.describe()}"):
        try:
            state = _build(toolset, staging, log, cache, options)
            (staging / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n")
            _publish(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    installed = installed_toolset(toolset, where)
    assert installed is not None, f"toolset {toolset.name} was published without its state"
    return installed
