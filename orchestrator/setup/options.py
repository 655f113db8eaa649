"""What the user asked `invoke setup` for: flags, then environment, then a config file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from orchestrator.foundation.cli import split_list
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.tomlfile import ANY, Layout, load_data
from orchestrator.options.setup import SetupFlags
from orchestrator.setup.catalogue import EULA_ENV
from orchestrator.setup.download import DownloadPolicy

GROUPS = ("toolchain", "fvp", "sources", "inputs")
PROVIDERS = ("auto", "system", "arm")
MIRROR_ENV = "ETHOSU_ORCH_MIRROR"
CACHE_ENV = "ETHOSU_ORCH_DOWNLOAD_CACHE"
CONFIG_ENV = "ETHOSU_ORCH_SETUP_CONFIG"
ARCHIVE_ENV_PREFIX = "ETHOSU_ORCH_ARCHIVE_"
SOURCE_ENV_PREFIX = "ETHOSU_ORCH_SRC_"
FVP_DIR_ENV_PREFIX = "ETHOSU_ORCH_FVP_DIR_"
NO_FLAGS = SetupFlags()


@dataclass(frozen=True)
class SourceRequest:
    """A user-supplied source: a directory used in place, or a git repo (+ revision) exported."""

    path: Path
    rev: str = ""


def _covers(value: frozenset[str] | bool, name: str) -> bool:
    """A bare flag (True) covers every name; a set covers its members."""
    return value is True or (isinstance(value, frozenset) and name in value)


@dataclass(frozen=True)
class SetupOptions:
    """Everything that steers one setup run."""

    only: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    toolsets: tuple[str, ...] = ()
    force: frozenset[str] | bool = False
    offline: bool = False
    mirror: str = ""
    cache_dir: Path | None = None
    archives: Mapping[str, Path] = field(default_factory=dict)
    sources: Mapping[str, SourceRequest] = field(default_factory=dict)
    fvp_dirs: Mapping[str, Path] = field(default_factory=dict)
    accept_eula: bool = False
    toolchain_provider: str = "auto"
    toolchain_dir: Path | None = None
    allow_dirty: bool = False
    allow_unpinned: frozenset[str] | bool = False
    policy: DownloadPolicy = DownloadPolicy()

    def forced(self, name: str) -> bool:
        """True when `--force` covers `name` (bare --force covers everything selected)."""
        return _covers(self.force, name)

    def unpinned_ok(self, name: str) -> bool:
        """True when `--allow-unpinned` covers source `name`."""
        return _covers(self.allow_unpinned, name)

    def download_cache(self, scratch: Scratch) -> Path:
        """The shared download cache (default scratch/downloads)."""
        return self.cache_dir or scratch.downloads


def parse_pairs(values: list[str] | tuple[str, ...], flag: str) -> dict[str, str]:
    """['a=1', 'b=2,c=3'] -> {'a': '1', 'b': '2', 'c': '3'}; one-line error on a bad item."""
    pairs = {}
    for value in values:
        for item in split_list(value):
            name, sep, rhs = item.partition("=")
            if not sep or not name.strip() or not rhs.strip():
                raise OrchestratorError(f"{flag} expects NAME=VALUE, got {item!r}",
                                        f"invoke setup {flag} NAME=VALUE")
            pairs[name.strip()] = rhs.strip()
    return pairs


def env_pairs(prefix: str, environ: Mapping[str, str]) -> dict[str, str]:
    """ETHOSU_ORCH_SRC_CMSIS_NN=/x -> {'cmsis-nn': '/x'} (lower case, '_' -> '-')."""
    return {key[len(prefix):].lower().replace("_", "-"): value
            for key, value in environ.items() if key.startswith(prefix) and value}


def source_request(text: str) -> SourceRequest:
    """'/path' or '/path@rev' -> SourceRequest (an '@' inside the path needs a trailing '@')."""
    path, sep, rev = text.rpartition("@")
    if not sep or "/" in rev:
        return SourceRequest(Path(text).expanduser().resolve())
    return SourceRequest(Path(path).expanduser().resolve(), rev)


def mirror_url(text: str) -> str:
    """The mirror base URL, checked: http(s) with a host ('' = no mirror)."""
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OrchestratorError(f"mirror {text!r} is not an http(s) URL",
                                "invoke setup --mirror https://host/path (or unset "
                                f"{MIRROR_ENV})")
    return text

# Every key a setup config file may hold (a misspelt one is refused, not ignored).
CONFIG_LAYOUT: dict[str, Layout] = {key: ANY for key in (
    "archives", "sources", "fvp_dirs", "toolchain_provider", "toolchain_dir", "mirror",
    "cache_dir", "offline", "accept_eula")}


def load_config(path: str | None, environ: Mapping[str, str]) -> dict[str, Any]:
    """The setup config file (--config or $ETHOSU_ORCH_SETUP_CONFIG), {} when none."""
    chosen = path or environ.get(CONFIG_ENV)
    if not chosen:
        return {}
    config = Path(chosen).expanduser()
    if not config.is_file():
        raise OrchestratorError(f"setup config {config} does not exist",
                                "invoke setup --config <existing .toml file>")
    return load_data(config, CONFIG_LAYOUT, str(config))


def _merged(flag: dict[str, str], env: dict[str, str], config: Mapping[str, Any]) -> dict[str, str]:
    """Config < environment < flags, per name."""
    return {**{k: str(v) for k, v in config.items()}, **env, **flag}


def _names_or_all(value: str | bool | None) -> frozenset[str] | bool:
    """A flag given bare (True: everything) or with names (--force a,b)."""
    if value is True:
        return True
    return frozenset(split_list(value)) if value else False


def build_options(flags: SetupFlags = NO_FLAGS, environ: Mapping[str, str] | None = None,
                  policy: DownloadPolicy | None = None) -> SetupOptions:
    """Turn task flags (+ environment + config file) into SetupOptions."""
    environ = os.environ if environ is None else environ
    cfg = load_config(flags.config, environ)
    archives = _merged(parse_pairs(flags.archive, "--archive"),
                       env_pairs(ARCHIVE_ENV_PREFIX, environ), cfg.get("archives", {}))
    sources = _merged(parse_pairs(flags.source, "--source"),
                      env_pairs(SOURCE_ENV_PREFIX, environ), cfg.get("sources", {}))
    fvp_dirs = _merged(parse_pairs(flags.fvp_dir, "--fvp-dir"),
                       env_pairs(FVP_DIR_ENV_PREFIX, environ), cfg.get("fvp_dirs", {}))
    provider = flags.toolchain_provider or cfg.get("toolchain_provider", "auto")
    if provider not in PROVIDERS:
        raise OrchestratorError(f"unknown toolchain provider {provider!r} (choose from "
                                f"{', '.join(PROVIDERS)})",
                                "invoke setup --toolchain-provider auto")
    chosen_dir = flags.toolchain_dir or cfg.get("toolchain_dir")
    mirror = mirror_url(flags.mirror or environ.get(MIRROR_ENV) or cfg.get("mirror", ""))
    cache = flags.cache_dir or environ.get(CACHE_ENV) or cfg.get("cache_dir")
    return SetupOptions(
        only=tuple(split_list(flags.only)), targets=tuple(split_list(flags.targets)),
        models=tuple(split_list(flags.models)),
        toolsets=tuple(split_list(flags.toolsets)),
        force=_names_or_all(flags.force),
        offline=flags.offline or bool(cfg.get("offline", False)),
        mirror=mirror,
        cache_dir=Path(cache).expanduser().resolve() if cache else None,
        archives={k: Path(v).expanduser().resolve() for k, v in archives.items()},
        sources={k: source_request(v) for k, v in sources.items()},
        fvp_dirs={k: Path(v).expanduser().resolve() for k, v in fvp_dirs.items()},
        accept_eula=flags.accept_eula or environ.get(EULA_ENV, "") == "True"
        or bool(cfg.get("accept_eula", False)),
        toolchain_provider=provider,
        toolchain_dir=Path(chosen_dir).expanduser().resolve() if chosen_dir else None,
        allow_dirty=flags.allow_dirty, allow_unpinned=_names_or_all(flags.allow_unpinned),
        policy=policy or DownloadPolicy())
