"""Corstone FVPs: EULA consent, the vendor installer, and a `--version` probe with remedies.

A binary that cannot run here is recorded under `unusable` (never under `binaries`), so no
later stage can pick it up; the lock says why and how to fix it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import filling
from orchestrator.setup.catalogue import EULA_ENV, Artifact, HostBuild, host_build
from orchestrator.setup.context import (
    Context,
    download_entry,
    obtain_archive,
    relocate,
    unpack_hint,
)
from orchestrator.setup.install import commit_install, discard, staging_dir
from orchestrator.setup.probe import probe_fvp, runtime_env
from orchestrator.setup.unpack import safe_extract

INSTALLER_FLAGS = ("--i-agree-to-the-contained-eula", "--force", "--quiet", "--no-interactive")
INSTALLER_TIMEOUT = 900


def require_eula(ctx: Context, artifact: Artifact) -> None:
    """Refuse unless the user consented to Arm's EULA (flag or environment)."""
    if not ctx.options.accept_eula:
        raise OrchestratorError(
            f"{artifact.title} is under Arm's EULA and setup needs your consent to install it",
            f"invoke setup --only {artifact.name} --accept-eula "
            f"(or export {EULA_ENV}=True)")


def find_installer(package: Path, artifact: Artifact, hint: str) -> Path:
    """The vendor's installer script inside the unpacked package."""
    found = sorted(package.rglob(artifact.installer))
    if not found:
        raise OrchestratorError(f"{artifact.installer} is not in the {artifact.title} package",
                                hint)
    return found[0]


def run_installer(installer: Path, destination: Path, artifact: Artifact) -> None:
    """Run the vendor installer non-interactively into `destination`."""
    command = ["bash", str(installer), *INSTALLER_FLAGS, "--destination", str(destination)]
    try:
        done = subprocess.run(command, cwd=installer.parent, capture_output=True, text=True,
                              timeout=INSTALLER_TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise OrchestratorError(f"{installer.name} did not finish in {INSTALLER_TIMEOUT} s",
                                f"invoke setup --only {artifact.name} --force") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise OrchestratorError(f"{installer.name} failed with exit {done.returncode}: "
                                f"{tail[0][:200]}", f"invoke setup --only {artifact.name} --force")


def describe_install(artifact: Artifact, root: Path, model_dir: Path,
                     host: str) -> dict[str, Any]:
    """Probe every FVP binary under `model_dir`; usable ones under `binaries`, others not."""
    env = runtime_env(artifact, root)
    entry: dict[str, Any] = {"binaries": {}, "unusable": {}, "env": env, "problems": []}
    for name in artifact.binaries:
        result = probe_fvp(model_dir / name, env, host, artifact.name)
        if result.ok:
            entry["binaries"][name] = str(model_dir / name)
            entry["env"] = result.env
            entry["reported_version"] = result.version
            if result.execstack_fix:
                entry["execstack_fix"] = result.execstack_fix
        else:
            entry["unusable"][name] = str(model_dir / name)
            entry["problems"].append({"binary": name, "problem": result.problem,
                                      "remedy": result.remedy})
    entry["usable"] = not entry["unusable"]
    return entry


def install_fvp_package(ctx: Context, artifact: Artifact, build: HostBuild) -> dict[str, Any]:
    """Unpack, run the installer into a staging tree, probe, then swap it into place."""
    archive = obtain_archive(ctx, artifact, build)
    target = ctx.install_dir(artifact.name)
    package = staging_dir(target)
    staged = staging_dir(target)
    with filling(target):
        try:
            hint = unpack_hint(ctx, artifact, archive)
            safe_extract(archive, artifact.archive, package, hint)
            run_installer(find_installer(package, artifact, hint), staged, artifact)
            probed = describe_install(artifact, staged, staged / build.model_dir, ctx.host)
            entry = {**download_entry(ctx, artifact, build, archive),
                     **relocate(probed, staged, target)}
            commit_install(staged, target, entry)
        except BaseException:
            discard(staged)
            raise
        finally:
            discard(package)
    return entry


def adopt_fvp_dir(ctx: Context, artifact: Artifact, directory: Path) -> dict[str, Any]:
    """Use FVPs the user installed elsewhere (e.g. FVPs-on-Mac wrappers), in place."""
    candidates = [directory, *sorted(directory.glob("models/*"))]
    model_dir = next((d for d in candidates if (d / artifact.binaries[0]).is_file()), None)
    if model_dir is None:
        raise OrchestratorError(f"{directory} has no {artifact.binaries[0]}",
                                f"invoke setup --only {artifact.name} --fvp-dir "
                                f"{artifact.name}=<folder holding {artifact.binaries[0]}>")
    entry = describe_install(artifact, directory, model_dir, ctx.host)
    return {"kind": "fvp", "version": artifact.version, "provider": "user",
            "install_dir": str(directory), **entry}


def provide_fvp(ctx: Context, artifact: Artifact) -> dict[str, Any]:
    """Install (or adopt) one FVP package and return its lock entry."""
    user_dir = ctx.options.fvp_dirs.get(artifact.name)
    if user_dir is not None:
        return adopt_fvp_dir(ctx, artifact, user_dir)
    build = host_build(artifact, ctx.host)
    require_eula(ctx, artifact)
    return install_fvp_package(ctx, artifact, build)


def unusable_error(artifact: Artifact, entry: dict[str, Any]) -> OrchestratorError:
    """One line naming the first problem and its remedy."""
    first = entry["problems"][0]
    return OrchestratorError(f"{artifact.title}: {first['binary']} {first['problem']} "
                             "(recorded as unusable, not used)", first["remedy"])
