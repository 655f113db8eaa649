"""Upstream sources: fetched at the pinned revision, exported from a local git repository, or
a user's directory used in place — always checked (commit or tag, required files, submodules).
"""

from __future__ import annotations

import importlib.metadata
import shutil
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import filling
from orchestrator.setup import gitsrc
from orchestrator.setup.catalogue import SetupCatalogue, Source, pin_label
from orchestrator.setup.context import Context, relocate
from orchestrator.setup.install import commit_install, discard, staging_dir
from orchestrator.setup.options import SourceRequest

HINT = "invoke setup --only sources"


def _pin_hint(source: Source) -> str:
    """How to give setup the pinned revision, or knowingly accept another one."""
    return (f"{HINT} --source {source.name}=<git repo>@{source.tag or source.commit} (or "
            f"accept another revision: --source {source.name}=<git repo>@<rev> "
            f"--allow-unpinned {source.name})")


def check_pin(ctx: Context, source: Source, commit: str | None, repo: Path | None,
              where: str) -> bool:
    """True when `commit` is the pinned one; an error unless the user allowed otherwise."""
    if commit and source.commit:
        match = commit == source.commit
    elif commit and repo is not None and source.tag:
        match = commit == gitsrc.tag_commit(repo, source.tag)
    else:
        match = False
    if not match and not ctx.options.unpinned_ok(source.name):
        found = f"is at {commit[:12]}" if commit else "has no verifiable revision"
        raise OrchestratorError(f"{source.name} at {where} {found}, not the pinned "
                                f"{pin_label(source)}", _pin_hint(source))
    return match


def check_required(source: Source, tree: Path, hint: str = HINT) -> None:
    """Every file the build needs must be present."""
    missing = [name for name in source.required_files if not (tree / name).exists()]
    if missing:
        raise OrchestratorError(f"{source.name} at {tree} lacks {', '.join(missing[:3])}", hint)


def check_package_version(source: Source, tree: Path) -> None:
    """The installed Python package (e.g. executorch) must match the runtime source tree."""
    if not source.package:
        return
    try:
        installed = importlib.metadata.version(source.package)
    except importlib.metadata.PackageNotFoundError:
        return
    version_file = tree / "version.txt"
    tree_version = (version_file.read_text().strip() if version_file.is_file()
                    else source.tag.lstrip("v"))
    if installed.split("+")[0] != tree_version:
        raise OrchestratorError(
            f"the installed {source.package} package is {installed} but the {source.name} "
            f"runtime sources are {tree_version}; they must match",
            f"pip install {source.package}=={tree_version} (or {HINT} --force --source "
            f"{source.name}=<git repo>@v{installed.split('+')[0]} --allow-unpinned "
            f"{source.name})")


def _entry(source: Source, path: Path, commit: str | None, pin_match: bool, origin: str,
           request: SourceRequest | None, **extra: Any) -> dict[str, Any]:
    """The lock entry of one source tree."""
    return {"kind": "source", "path": str(path), "commit": commit, "pin_match": pin_match,
            "pinned": {"tag": source.tag, "commit": source.commit}, "origin": origin,
            "request": _request_json(request), "parent": source.parent or None, **extra}


def _request_json(request: SourceRequest | None) -> dict[str, str] | None:
    """How the user asked for a source (compared on the next run)."""
    return None if request is None else {"path": str(request.path), "rev": request.rev}


def _require_online(ctx: Context, source: Source) -> None:
    """Offline runs cannot clone: say how to hand setup a local copy."""
    if ctx.options.offline:
        raise OrchestratorError(f"--offline and {source.name} is not set up",
                                f"{HINT} --source {source.name}=<local git repo or directory>")


# -- submodules ------------------------------------------------------------------------------

def fill_submodule(ctx: Context, child: Source, parent_tree: Path,
                   want: str | None) -> dict[str, Any]:
    """Put one needed submodule at its path inside a staged parent tree; return its entry."""
    if want is None:
        raise OrchestratorError(f"{child.parent} has no submodule at {child.path}",
                                _pin_hint(child))
    if child.commit and want != child.commit and not ctx.options.unpinned_ok(child.name):
        raise OrchestratorError(f"{child.parent} pins {child.path} to {want[:12]}, not the "
                                f"pinned {child.commit[:12]}", _pin_hint(child))
    dest = parent_tree / child.path
    dest.mkdir(parents=True, exist_ok=True)
    request = ctx.options.sources.get(child.name)
    extra: dict[str, Any] = {}
    if request is None:
        _require_online(ctx, child)
        commit = gitsrc.fetch_shallow(child.url, want, dest, _pin_hint(child))
        origin = "fetch"
    elif gitsrc.is_git(request.path):
        commit = _resolve(request.path, request.rev or want, child)
        extra["omitted"] = gitsrc.export_tree(request.path, commit, dest).omitted
        origin = "export"
    else:
        commit, origin = None, "copy"
        shutil.copytree(request.path, dest, symlinks=True, dirs_exist_ok=True)
    match = commit == want
    if not match and not ctx.options.unpinned_ok(child.name):
        raise OrchestratorError(f"{child.name} from {request.path if request else child.url} "
                                f"is {(commit or 'unversioned')[:12]}, not {want[:12]}",
                                _pin_hint(child))
    check_required(child, dest, _pin_hint(child))
    return _entry(child, dest, commit, match, origin, request, **extra)


def _resolve(repo: Path, rev: str, source: Source) -> str:
    """The commit `rev` names in `repo`, or an error naming the fix."""
    commit = gitsrc.resolve(repo, rev)
    if commit is None:
        raise OrchestratorError(f"{repo} has no revision {rev} for {source.name}",
                                _pin_hint(source))
    return commit


# -- top-level sources -----------------------------------------------------------------------

def use_in_place(ctx: Context, catalogue: SetupCatalogue, source: Source,
                 request: SourceRequest) -> dict[str, dict[str, Any]]:
    """Check a user's directory (revision, cleanliness, files, submodules) and use it as is."""
    tree = request.path
    if not tree.is_dir():
        raise OrchestratorError(f"{source.name} directory {tree} does not exist",
                                f"{HINT} --source {source.name}=<existing directory>")
    commit = gitsrc.resolve(tree, "HEAD") if gitsrc.is_git(tree) else None
    match = check_pin(ctx, source, commit, tree if commit else None, str(tree))
    dirty = gitsrc.dirty_paths(tree) if commit else []
    if dirty and not ctx.options.allow_dirty:
        raise OrchestratorError(f"{source.name} at {tree} has uncommitted changes in "
                                f"{len(dirty)} file(s), e.g. {dirty[0]}",
                                f"commit or stash them, or {HINT} --allow-dirty")
    check_required(source, tree)
    check_package_version(source, tree)
    entries = {source.name: _entry(source, tree, commit, match, "in-place", request,
                                   dirty=bool(dirty))}
    for child in (catalogue.sources[name] for name in source.submodules):
        entries[child.name] = _in_place_child(ctx, child, tree, commit)
    return entries


def _in_place_child(ctx: Context, child: Source, tree: Path,
                    parent_commit: str | None) -> dict[str, Any]:
    """A submodule inside a user's tree must be checked out (at the parent's gitlink)."""
    dest = tree / child.path
    init = f"git -C {tree} submodule update --init {child.path}"
    check_required(child, dest, f"{init}, or {HINT} --source {child.parent}={tree}@HEAD")
    want = gitsrc.gitlink(tree, parent_commit, child.path) if parent_commit else None
    commit = gitsrc.resolve(dest, "HEAD") if gitsrc.is_git(dest) else None
    match = commit is not None and commit == want
    if not match and not ctx.options.unpinned_ok(child.name):
        expected = (f"the {want[:12]} its parent records" if want
                    else "a pinned revision (its parent has no git revision to record one)")
        raise OrchestratorError(f"{child.name} at {dest} is {(commit or 'unversioned')[:12]}, "
                                f"not {expected}",
                                f"{init} (or add --allow-unpinned {child.name})")
    return _entry(child, dest, commit, match, "in-place", None)


def materialize(ctx: Context, catalogue: SetupCatalogue, source: Source,
                request: SourceRequest | None) -> dict[str, dict[str, Any]]:
    """Fetch or export a source (and its submodules) into scratch/src/<name>, atomically."""
    target = ctx.scratch.src / source.name
    staged = staging_dir(target)
    with filling(target):
        try:
            entries = _populate(ctx, catalogue, source, request, staged)
            entries = {name: relocate(entry, staged, target) for name, entry in entries.items()}
            commit_install(staged, target, entries[source.name])
        except BaseException:
            discard(staged)
            raise
    return entries


def _populate(ctx: Context, catalogue: SetupCatalogue, source: Source,
              request: SourceRequest | None, staged: Path) -> dict[str, dict[str, Any]]:
    """Write the source tree into `staged` and fill its submodules; return the entries."""
    extra: dict[str, Any] = {}
    if request is None:
        _require_online(ctx, source)
        commit = gitsrc.fetch_shallow(source.url, source.rev, staged, _pin_hint(source))
        match = check_pin(ctx, source, commit, staged, source.url)
        links = {name: gitsrc.gitlink(staged, commit, catalogue.sources[name].path)
                 for name in source.submodules}
        origin = "fetch"
    else:
        if not gitsrc.is_git(request.path):
            raise OrchestratorError(f"{request.path} is not a git repository, so revision "
                                    f"{request.rev} cannot be taken from it",
                                    f"{HINT} --source {source.name}=<git repo>@<rev>")
        commit = _resolve(request.path, request.rev or source.rev, source)
        match = check_pin(ctx, source, commit, request.path, str(request.path))
        exported = gitsrc.export_tree(request.path, commit, staged)
        links = {name: exported.gitlinks.get(catalogue.sources[name].path)
                 for name in source.submodules}
        extra["omitted"] = exported.omitted
        origin = "export"
    check_required(source, staged, _pin_hint(source))
    check_package_version(source, staged)
    entries = {source.name: _entry(source, staged, commit, match, origin, request, **extra)}
    for name in source.submodules:
        entries[name] = fill_submodule(ctx, catalogue.sources[name], staged, links[name])
    return entries


def provide_source(ctx: Context, catalogue: SetupCatalogue,
                   source: Source) -> dict[str, dict[str, Any]]:
    """Lock entries for `source` and its submodules, acquiring whatever is needed."""
    request = ctx.options.sources.get(source.name)
    if request is not None and not request.rev and not gitsrc.is_bare(request.path):
        return use_in_place(ctx, catalogue, source, request)
    return materialize(ctx, catalogue, source, request)
