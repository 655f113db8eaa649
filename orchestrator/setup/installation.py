"""`invoke setup`: choose what to install, skip what is current, install the rest under a lock."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestrator.foundation.cli import print_json
from orchestrator.foundation.doctor_model import State
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.progress import step
from orchestrator.setup.build_input import BuildInput
from orchestrator.setup.catalogue import Artifact, SetupCatalogue, Source, host_key
from orchestrator.setup.context import Context
from orchestrator.setup.install import install_lock
from orchestrator.setup.lock import read_lock, write_lock_entry
from orchestrator.setup.needs import needs
from orchestrator.setup.options import GROUPS, SetupOptions
from orchestrator.setup.state import artifact_state, source_state
from orchestrator.targets import Target, load_catalogue

GROUP_OF_KIND = {"toolchain": "toolchain", "fvp": "fvp"}


@dataclass(frozen=True)
class Item:
    """One thing setup can provide: an artifact, or a top-level source with its submodules."""

    name: str
    subject: Artifact | Source | BuildInput
    provide: Callable[[Context], dict[str, dict[str, Any]]]


def _artifact_item(artifact: Artifact) -> Item:
    """Wrap an artifact's provider (imported lazily) as an Item."""
    def provide(ctx: Context) -> dict[str, dict[str, Any]]:
        if artifact.kind == "toolchain":
            from orchestrator.setup.toolchain import provide_toolchain
            return {artifact.name: provide_toolchain(ctx, artifact)}
        from orchestrator.setup.fvp import provide_fvp
        return {artifact.name: provide_fvp(ctx, artifact)}
    return Item(artifact.name, artifact, provide)


def _source_item(catalogue: SetupCatalogue, source: Source) -> Item:
    """Wrap a top-level source's provider as an Item."""
    def provide(ctx: Context) -> dict[str, dict[str, Any]]:
        from orchestrator.setup.sources import provide_source
        return provide_source(ctx, catalogue, source)
    return Item(source.name, source, provide)


def _input_item(build_input: BuildInput) -> Item:
    """Wrap a build input's provider as an Item."""
    def provide(ctx: Context) -> dict[str, dict[str, Any]]:
        from orchestrator.setup.inputs import provide_input
        return {build_input.name: provide_input(ctx, build_input)}
    return Item(build_input.name, build_input, provide)


def _names(catalogue: SetupCatalogue) -> list[str]:
    """Every word --only accepts."""
    return list(dict.fromkeys([*GROUPS, *catalogue.artifacts, *catalogue.sources,
                               *catalogue.inputs]))


def check_names(catalogue: SetupCatalogue, options: SetupOptions) -> None:
    """--archive, --fvp-dir, --source and --force=NAMES name pinned items (a typo is an error,
    not ignored)."""
    fvps = [name for name, item in catalogue.artifacts.items() if item.kind == "fvp"]
    items = [*catalogue.artifacts, *catalogue.sources]
    for flag, given, known, value in (
            ("--archive", options.archives, [*catalogue.artifacts, *catalogue.inputs],
             "=<path>"),
            ("--fvp-dir", options.fvp_dirs, fvps, "=<path>"),
            ("--source", options.sources, list(catalogue.sources), "=<path>"),
            ("--force", _named(options.force), items, "")):
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise OrchestratorError(f"{flag} names {', '.join(unknown)}, which the pins do not "
                                    f"list (known: {', '.join(known)})",
                                    f"invoke setup {flag} {known[0]}{value}" if known else
                                    "invoke setup --help")


def _named(value: frozenset[str] | bool) -> frozenset[str]:
    """The names a NAME[,NAME] flag lists (none when bare or not given)."""
    return value if isinstance(value, frozenset) else frozenset()


def plan(catalogue: SetupCatalogue, options: SetupOptions) -> list[Item]:
    """The items selected by --only and --targets, in install order."""
    check_names(catalogue, options)
    words = set(options.only or GROUPS)
    unknown = sorted(words - set(_names(catalogue)))
    if unknown:
        raise OrchestratorError(f"--only does not know {', '.join(unknown)} (choose from "
                                f"{', '.join(_names(catalogue))})", "invoke setup --only sources")
    parents = {catalogue.sources[w].parent or w for w in words if w in catalogue.sources}
    targets = _targets(options.targets)
    items = [_artifact_item(artifact) for artifact in catalogue.artifacts.values()
             if GROUP_OF_KIND.get(artifact.kind) in words or artifact.name in words]
    items += [_source_item(catalogue, source) for source in catalogue.top_sources()
              if "sources" in words or source.name in parents]
    items += [_input_item(build_input) for build_input in catalogue.inputs.values()
              if "inputs" in words or build_input.name in words]
    if targets:
        items = [item for item in items if any(needs(item.subject, t) for t in targets)]
    return items


def _targets(names: tuple[str, ...]) -> list[Target]:
    """Target records for --targets (unknown names give the catalogue's one-line error)."""
    if not names:
        return []
    catalogue = load_catalogue()
    return [catalogue.target(name) for name in names]


def _same_request(item: Item, entry: dict[str, Any], options: SetupOptions) -> bool:
    """Does the recorded install satisfy what the user asks for now?

    Without an explicit request (--source, --fvp-dir, --toolchain-dir/provider) any healthy
    install is kept, however it was obtained; an explicit request must match the record.
    """
    subject = item.subject
    if isinstance(subject, Source):
        return _same_source_request(subject.name, entry, options)
    if isinstance(subject, BuildInput):
        local = options.archives.get(subject.name)
        return local is None or entry.get("path") == str(local)
    if subject.kind == "toolchain":
        if options.toolchain_dir is not None:
            return entry.get("bin_dir") == str(options.toolchain_dir)
        return options.toolchain_provider in ("auto", entry.get("provider"))
    fvp_dir = options.fvp_dirs.get(subject.name)
    return fvp_dir is None or (entry.get("provider") == "user"
                               and entry.get("install_dir") == str(fvp_dir))


def _same_source_request(name: str, entry: dict[str, Any] | None,
                         options: SetupOptions) -> bool:
    """No --source for `name`, or the same path and revision as recorded."""
    request = options.sources.get(name)
    return request is None or (entry or {}).get("request") == {"path": str(request.path),
                                                               "rev": request.rev}


def is_current(item: Item, lock: dict[str, dict[str, Any]], options: SetupOptions) -> bool:
    """True when the recorded install is healthy, pinned and what the user asked for."""
    entry = lock.get(item.name)
    subject = item.subject
    parts = (item.name, *(subject.submodules if isinstance(subject, Source) else ()))
    if any(options.forced(part) for part in parts) or not entry or not _same_request(
            item, entry, options):
        return False
    if isinstance(subject, Source):
        children = [lock.get(name) for name in subject.submodules]
        same = all(_same_source_request(name, lock.get(name), options)
                   for name in subject.submodules)
        return source_state(subject, entry).state is State.OK and all(children) and same
    if isinstance(subject, BuildInput):
        from orchestrator.setup.inputs import input_state
        return input_state(subject, entry).state is State.OK
    return artifact_state(subject, entry).state is State.OK


def run_setup(root: Scratch, options: SetupOptions, catalogue: SetupCatalogue,
              host: str | None = None, as_json: bool = False) -> int:
    """Install every selected item that is not current; return 0, or raise the first failure."""
    alone = (options.models or options.toolsets) and not options.only
    items = [] if alone else plan(catalogue, options)
    todo = [item for item in items if not is_current(item, read_lock(root), options)]
    failures: dict[str, OrchestratorError] = {}
    if todo:
        ctx = Context(root.ensure(), options, host or host_key())
        with install_lock(root):
            failures = _install(ctx, todo)
    elif items and not as_json:
        print(f"setup: all {len(items)} selected item(s) are installed and current; "
              "nothing to do")
    _report(items, read_lock(root), failures,
            as_json and not options.models and not options.toolsets)
    if failures:
        raise next(iter(failures.values()))
    if options.models:
        _install_weights(root, options, as_json)
    if options.toolsets:
        _install_toolsets(root, options, as_json)
    return 0


def _install_toolsets(root: Scratch, options: SetupOptions, as_json: bool) -> None:
    """`--toolsets`: each toolset's environment, one line (or JSON entry) each."""
    from orchestrator.setup.toolset_install import install_toolset
    from orchestrator.toolsets.catalogue import find_toolset
    from orchestrator.toolsets.environment import runs_in_process

    installed: dict[str, dict[str, Any]] = {}
    with install_lock(root.ensure()):
        for name in options.toolsets:
            toolset = find_toolset(name)
            if runs_in_process(toolset):
                installed[toolset.name] = {"path": sys.executable, "versions": toolset.versions,
                                           "verified": "the tool's own environment"}
                continue
            done = install_toolset(toolset, options, root)
            installed[toolset.name] = {"path": str(done.directory), "versions": done.versions,
                                       "verified": ", ".join(sorted({entry["verified"] for entry
                                                                     in done.state["files"]
                                                                     .values()})) or
                                       "versions checked"}
    if as_json:
        print_json(installed)
        return
    for name, entry in installed.items():
        print(f"  {name:<24} {entry['verified']:<28} {entry['path']}")


def _install_weights(root: Scratch, options: SetupOptions, as_json: bool) -> None:
    """`--models`: the pretrained weights of those models, one line (or JSON entry) each."""
    from orchestrator.setup.weights import install_model_weights

    with install_lock(root.ensure()):
        installed = install_model_weights(options.models, options, root)
    if as_json:
        print_json(installed)
        return
    for name, entry in installed.items():
        print(f"  {name:<40} {entry['verified']:<24} {entry['path']}")


def _install(ctx: Context, todo: list[Item]) -> dict[str, OrchestratorError]:
    """Provide each item (re-checking: a setup we waited for may have done it already)."""
    failures = {}
    for item in todo:
        if is_current(item, read_lock(ctx.scratch), ctx.options):
            continue
        try:
            with step(f"setup: installing {item.name}"):
                entries = item.provide(ctx)
        except OrchestratorError as error:
            failures[item.name] = error
            continue
        for name, entry in entries.items():
            write_lock_entry(ctx.scratch, name, entry)
        unusable = _unusable(item, entries)
        if unusable is not None:
            failures[item.name] = unusable
    return failures


def _unusable(item: Item, entries: dict[str, dict[str, Any]]) -> OrchestratorError | None:
    """An installed FVP that cannot run here is a failure (recorded, never used)."""
    entry = entries.get(item.name, {})
    if entry.get("usable") is False and isinstance(item.subject, Artifact):
        from orchestrator.setup.fvp import unusable_error
        return unusable_error(item.subject, entry)
    return None


def _report(items: list[Item], lock: dict[str, dict[str, Any]],
            failures: dict[str, OrchestratorError], as_json: bool) -> None:
    """Print one line per item (or the lock entries as JSON); extra failures on stderr."""
    if as_json:
        print_json({item.name: lock.get(item.name) for item in items})
        return
    for item in items:
        entry = lock.get(item.name) or {}
        where = entry.get("bin_dir") or entry.get("path") or entry.get("install_dir") or "-"
        state = "FAILED" if item.name in failures else str(
            entry.get("version") or (entry.get("commit") or "-")[:12])
        print(f"  {item.name:<20} {state:<14} {where}")
    for name, error in list(failures.items())[1:]:
        print(f"error: {name}: {error.message}", file=sys.stderr)
