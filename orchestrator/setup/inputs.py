"""Pinned build inputs (pins.toml [inputs.*]): files a build reads as they are, such as the Vela
sdist whose regor header gives the NPU model its U85 tables.

`invoke setup` installs one into the download cache (digest-checked, through the mirror when
one is set) and records its path in the setup lock. The tool's own process does the same on
first need, with its own environment (mirror, CA bundle, ETHOSU_ORCH_SCRATCH, the setup
config), then hands the build the verified path: nothing downloads inside a build, whose
environment has none of those."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.setup.build_input import BuildInput, pinned_input
from orchestrator.setup.digests import digest_mismatches
from orchestrator.setup.lock import read_lock, write_lock_entry

if TYPE_CHECKING:
    from orchestrator.setup.context import Context
    from orchestrator.setup.state import ItemState

# A warm run only reads its input's pin and the lock and checks the recorded file
# (input_file's first lines): the setup catalogue and the download, install and setup-option
# machinery are imported where an input is fetched or its state shown.


def fetch_hint(item: BuildInput) -> str:
    """The next command when an input cannot be obtained or fails its check."""
    return (f"invoke setup --only {item.name} (or --mirror <base URL>, or --archive "
            f"{item.name}=<{item.filename}>)")


def provide_input(ctx: Context, item: BuildInput) -> dict[str, Any]:
    """Setup's provider: the verified file (a user-named one, the cache, or a download)."""
    from orchestrator.setup.download import (
        Request,
        cached_file,
        mirrored_url,
        verify_local_archive,
    )

    local = ctx.options.archives.get(item.name)
    if local is not None:
        path = verify_local_archive(local, item.digests, fetch_hint(item))
    else:
        request = Request(url=mirrored_url(item.url, ctx.options.mirror), filename=item.filename,
                          digests=item.digests, hint=fetch_hint(item))
        path = cached_file(ctx.options.download_cache(ctx.scratch), request,
                           offline=ctx.options.offline, policy=ctx.options.policy)
    return {"kind": "input", "path": str(path), "url": item.url,
            "provider": "user" if local is not None else "download",
            "verified": dict(item.digests), "digest_note": item.digest_note}


def input_state(item: BuildInput, entry: dict[str, Any] | None) -> ItemState:
    """Cheap check (no hashing): the recorded file exists and was verified against these pins."""
    from orchestrator.foundation.doctor_model import State
    from orchestrator.setup.state import ItemState

    problem = _recorded_problem(item, entry)
    if problem is None:
        return ItemState(State.OK, str(entry["path"]) if entry else "")
    state = State.WRONG_VERSION if problem == WRONG_PINS else State.MISSING
    return ItemState(state, str(entry.get("path", "")) if entry else "", detail=problem)


GONE = "recorded file is gone"
WRONG_PINS = "verified against other pins"


def _recorded_problem(item: BuildInput, entry: dict[str, Any] | None) -> str | None:
    """Why the lock's entry cannot be used as it is ("" when there is none), None when it can."""
    if not entry:
        return ""
    if not Path(str(entry.get("path", ""))).is_file():
        return GONE
    if entry.get("verified") != item.digests:
        return WRONG_PINS
    return None


def input_file(name: str, root: Scratch | None = None) -> Path:
    """The verified path of input `name`: the one setup recorded, else fetched now (first need)
    with this process's environment, recorded in the setup lock for the next process."""
    item = pinned_input(name)
    root = root or scratch()
    recorded = _verified(item, read_lock(root).get(name))
    if recorded is not None:
        return recorded
    return _fetch_input(name, item, root)


def _fetch_input(name: str, item: BuildInput, root: Scratch) -> Path:
    """input_file's first need: fetched with this process's environment, recorded in the lock."""
    from orchestrator.setup.catalogue import host_key
    from orchestrator.setup.context import Context
    from orchestrator.setup.install import install_lock
    from orchestrator.setup.options import build_options

    ctx = Context(root.ensure(), build_options(), host_key())
    with install_lock(root):
        recorded = _verified(item, read_lock(root).get(name))   # another process may have
        if recorded is not None:
            return recorded
        entry = provide_input(ctx, item)
        write_lock_entry(root, name, entry)
    return Path(entry["path"])


def _verified(item: BuildInput, entry: dict[str, Any] | None) -> Path | None:
    """The recorded file when it is there and still matches its digest (hashed once per file
    state: a build must never be handed a changed file, and a write moves the stat)."""
    if _recorded_problem(item, entry) is not None:
        return None
    assert entry is not None
    path = Path(entry["path"])
    return None if digest_mismatches(path, item.digests, settled=True) else path


def checked_input(name: str, path: Path) -> Path:
    """A path handed to a build step: it must be the pinned file (refused otherwise)."""
    from orchestrator.setup.download import verify_local_archive

    item = pinned_input(name)
    try:
        return verify_local_archive(path, item.digests, fetch_hint(item))
    except OrchestratorError as error:
        raise OrchestratorError(f"build input {name}: {error.cause}", error.next_step) from None
