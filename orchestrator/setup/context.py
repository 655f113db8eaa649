"""One setup run's context and the steps every download-based artifact shares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation.paths import Scratch
from orchestrator.setup.catalogue import Artifact, HostBuild
from orchestrator.setup.download import Request, cached_file, mirrored_url, verify_local_archive
from orchestrator.setup.options import ARCHIVE_ENV_PREFIX, SetupOptions


@dataclass(frozen=True)
class Context:
    """Where to install, what the user asked for, and which host we are on."""

    scratch: Scratch
    options: SetupOptions
    host: str

    def install_dir(self, name: str) -> Path:
        """scratch/tools/<artifact>."""
        return self.scratch.tools / name


def fix_hint(artifact: Artifact) -> str:
    """The next command when an artifact's archive cannot be obtained or is bad."""
    return (f"invoke setup --only {artifact.name} --archive {artifact.name}=<{artifact.archive} "
            "file> (or --mirror <base URL>)")


def unpack_hint(ctx: Context, artifact: Artifact, archive: Path) -> str:
    """The next command when `archive` verified but cannot be unpacked or lacks what the pins
    say: never the same archive again (a user-named one is replaced or dropped, a cached one
    deleted so --force fetches it afresh)."""
    again = f"invoke setup --only {artifact.name} --force"
    if artifact.name in ctx.options.archives:
        return (f"replace {archive} with an intact {artifact.archive} of {artifact.title}, or "
                f"drop --archive {artifact.name}=... (and any {ARCHIVE_ENV_PREFIX}"
                f"{artifact.name.upper().replace('-', '_')}) and run: {again}")
    return f"delete {archive} and fetch it again: rm {archive} && {again} (or --mirror <base URL>)"


def obtain_archive(ctx: Context, artifact: Artifact, build: HostBuild) -> Path:
    """The verified archive: a user-named file, the cache, or a (mirrored) download."""
    hint = fix_hint(artifact)
    local = ctx.options.archives.get(artifact.name)
    if local is not None:
        return verify_local_archive(local, build.digests, hint)
    request = Request(url=mirrored_url(build.url, ctx.options.mirror), filename=build.filename,
                      digests=build.digests, hint=hint)
    return cached_file(ctx.options.download_cache(ctx.scratch), request,
                       offline=ctx.options.offline, policy=ctx.options.policy)


def download_entry(ctx: Context, artifact: Artifact, build: HostBuild,
                   archive: Path) -> dict[str, Any]:
    """Lock fields shared by every downloaded artifact."""
    return {"kind": artifact.kind, "version": artifact.version, "provider": "download",
            "host": ctx.host, "url": build.url, "archive": str(archive),
            "verified": dict(build.digests), "digest_note": build.digest_note,
            "install_dir": str(ctx.install_dir(artifact.name))}


def relocate(value: Any, staged: Path, target: Path) -> Any:
    """Rewrite paths under `staged` to the same paths under `target` (dicts/lists/strings)."""
    if isinstance(value, dict):
        return {key: relocate(item, staged, target) for key, item in value.items()}
    if isinstance(value, list):
        return [relocate(item, staged, target) for item in value]
    if isinstance(value, str) and value.startswith(str(staged)):
        return str(target) + value[len(str(staged)):]
    return value
