"""Small git helpers: resolve revisions, check a work tree, fetch shallowly, export a tree.

`export_tree` writes a commit's files without a checkout, so it also works on snapshot
repositories that lack a few large blobs (those paths are skipped and reported).
"""

from __future__ import annotations

import os
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from orchestrator.foundation.errors import OrchestratorError

GIT_TIMEOUT = 900
GITLINK = "160000"
SYMLINK = "120000"


class GitError(OrchestratorError):
    """A git command failed."""


def git(args: list[str], cwd: Path | None = None, stdin: bytes | None = None,
        hint: str = "") -> str:
    """Run git and return stdout (text); GitError with git's last line on failure."""
    done = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True,
                          timeout=GIT_TIMEOUT, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    if done.returncode != 0:
        last = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["failed"]
        raise GitError(f"git {args[0]} in {cwd or '.'} failed: {last[0][:200]}", hint or None)
    return done.stdout.decode(errors="replace")


def is_git(path: Path) -> bool:
    """True for a bare repository or the top of a work tree (not a folder inside one)."""
    if is_bare(path):
        return True
    try:
        top = git(["rev-parse", "--show-toplevel"], cwd=path).strip()
    except (GitError, OSError):
        return False
    return Path(top).resolve() == path.resolve()


def is_bare(path: Path) -> bool:
    """True for a bare repository."""
    try:
        return git(["rev-parse", "--is-bare-repository"], cwd=path).strip() == "true"
    except (GitError, OSError):
        return False


def resolve(repo: Path, rev: str) -> str | None:
    """The commit id `rev` names in `repo`, or None."""
    try:
        return git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=repo).strip()
    except GitError:
        return None


def tag_commit(repo: Path, tag: str) -> str | None:
    """The commit a tag points at, or None when the repository lacks the tag."""
    return resolve(repo, f"refs/tags/{tag}")


def dirty_paths(work_tree: Path) -> list[str]:
    """Tracked files with uncommitted changes (untracked files are ignored)."""
    out = git(["status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all"],
              cwd=work_tree)
    return [line[3:] for line in out.splitlines() if line.strip()]


def gitlink(repo: Path, commit: str, path: str) -> str | None:
    """The commit a submodule path is pinned to in `commit`'s tree, or None."""
    out = git(["ls-tree", commit, "--", path], cwd=repo).strip()
    if not out:
        return None
    mode, _kind, oid = out.split("\t", 1)[0].split()
    return oid if mode == GITLINK else None


def fetch_shallow(url: str, rev: str, dest: Path, hint: str) -> str:
    """`git init` + depth-1 fetch of `rev` (tag or commit) + checkout; returns the commit.

    A tag is fetched as itself (refs/tags/<rev>) so the pin can be checked against it.
    """
    dest.mkdir(parents=True, exist_ok=True)
    git(["init", "-q"], cwd=dest, hint=hint)
    if _looks_like_commit(rev):
        git(["fetch", "-q", "--depth", "1", "--no-tags", url, rev], cwd=dest, hint=hint)
        checkout = "FETCH_HEAD"
    else:
        spec = f"+refs/tags/{rev}:refs/tags/{rev}"
        git(["fetch", "-q", "--depth", "1", "--no-tags", url, spec], cwd=dest, hint=hint)
        checkout = f"refs/tags/{rev}"
    git(["-c", "advice.detachedHead=false", "checkout", "-q", checkout], cwd=dest, hint=hint)
    return git(["rev-parse", "HEAD"], cwd=dest).strip()


def _looks_like_commit(rev: str) -> bool:
    """A full 40-hex commit id."""
    return len(rev) == 40 and all(ch in "0123456789abcdef" for ch in rev.lower())


@dataclass
class ExportResult:
    """What export_tree wrote: submodule pins by path and paths whose blobs were absent."""

    gitlinks: dict[str, str] = field(default_factory=dict)
    omitted: list[str] = field(default_factory=list)


def _entries(repo: Path, commit: str) -> list[tuple[str, str, str]]:
    """(mode, oid, path) for every entry of the commit's tree, recursively."""
    out = git(["ls-tree", "-r", "-z", "--full-tree", commit], cwd=repo)
    entries = []
    for record in filter(None, out.split("\0")):
        meta, path = record.split("\t", 1)
        mode, _kind, oid = meta.split()
        entries.append((mode, oid, path))
    return entries


def _present(repo: Path, oids: list[str]) -> set[str]:
    """The subset of blob ids the repository actually holds."""
    out = git(["cat-file", "--batch-check"], cwd=repo, stdin="\n".join(oids).encode() + b"\n")
    return {line.split()[0] for line in out.splitlines() if not line.endswith("missing")}


def _safe_relative(path: str) -> bool:
    """No absolute paths and no `..` components."""
    pure = PurePosixPath(path)
    return not pure.is_absolute() and ".." not in pure.parts


def export_tree(repo: Path, commit: str, dest: Path) -> ExportResult:
    """Write `commit`'s files into `dest` (empty dirs for submodules); skip absent blobs."""
    result = ExportResult()
    entries = _entries(repo, commit)
    blobs = [(mode, oid, path) for mode, oid, path in entries if mode != GITLINK]
    present = _present(repo, sorted({oid for _m, oid, _p in blobs}))
    for mode, oid, path in entries:
        if not _safe_relative(path):
            raise OrchestratorError(f"{repo} has an unsafe path {path!r} at {commit[:12]}",
                                    "use a trusted repository")
        if mode == GITLINK:
            (dest / path).mkdir(parents=True, exist_ok=True)
            result.gitlinks[path] = oid
        elif oid not in present:
            result.omitted.append(path)
    wanted = [(mode, oid, path) for mode, oid, path in blobs if oid in present]
    _write_blobs(repo, wanted, dest)
    return result


def _write_blobs(repo: Path, wanted: list[tuple[str, str, str]], dest: Path) -> None:
    """Stream blob contents with one `git cat-file --batch` and write them out."""
    request = "\n".join(oid for _m, oid, _p in wanted).encode() + b"\n"
    root = os.path.realpath(dest)
    with subprocess.Popen(["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        writer = threading.Thread(target=_feed, args=(proc.stdin, request), daemon=True)
        writer.start()
        try:
            for mode, _oid, path in wanted:
                size = int(proc.stdout.readline().split()[2])
                data = proc.stdout.read(size)
                proc.stdout.read(1)
                _write_entry(root, mode, path, data)
        finally:
            proc.stdout.close()
            writer.join()


def _feed(pipe: IO[bytes], data: bytes) -> None:
    """Write `data` to a child's stdin from a thread (avoids a full-pipe deadlock)."""
    try:
        with pipe:
            pipe.write(data)
    except BrokenPipeError:
        pass


def _write_entry(root: str, mode: str, path: str, data: bytes) -> None:
    """Write one file or symlink; refuse symlinks that point outside the tree."""
    target = Path(root) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == SYMLINK:
        link = data.decode()
        resolved = os.path.normpath(os.path.join(os.path.dirname(str(target)), link))
        if os.path.isabs(link) or not (resolved == root or resolved.startswith(root + os.sep)):
            raise OrchestratorError(f"symlink {path} -> {link} leaves the source tree",
                                    "use a trusted repository")
        os.symlink(link, target)
        return
    target.write_bytes(data)
    os.chmod(target, 0o755 if mode == "100755" else 0o644)
