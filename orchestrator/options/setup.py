"""The options of `invoke setup` as the user gives them (flags or library call). The setup
stage merges them with the environment and the config file (orchestrator.setup.options)."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import names_or_all, option, strings, switch, text


@dataclass(frozen=True)
class SetupFlags:
    """What to set up and where from; None / empty = not given (environment, config file,
    then the default decide)."""

    only: str | None = option(None, "what to set up: toolchain, fvp, sources, or artifact/source "
                              "names (comma-separated; default: everything)", parse=text,
                              matrix=False)
    targets: str | None = option(None, "set up only what these targets need (comma-separated "
                                 "target names)", parse=text, matrix=False)
    models: str | None = option(None, "install the pretrained weights of these models "
                                "(comma-separated names, invoke models lists them); alone it "
                                "installs only those weights", parse=text, matrix=False)
    toolsets: str | None = option(None, "install these toolsets' environments under "
                                  "scratch/toolsets (comma-separated names or requirements "
                                  "like executorch==1.5.1; invoke toolsets lists them); alone "
                                  "it installs only those", parse=text, matrix=False)
    force: str | bool | None = option(None, "reinstall: bare --force = everything selected, or "
                                      "--force=NAME[,NAME]", parse=names_or_all, bare=True,
                                      matrix=False)
    offline: bool = option(False, "use only the download cache, user archives and local "
                           "sources", parse=switch, matrix=False)
    mirror: str | None = option(None, "base URL serving the pinned file names (env "
                                "ETHOSU_ORCH_MIRROR)", parse=text, matrix=False)
    cache_dir: str | None = option(None, "shared download cache (env ETHOSU_ORCH_DOWNLOAD_CACHE;"
                                   " default scratch/downloads)", parse=text, matrix=False)
    archive: tuple[str, ...] = option((), "NAME=FILE: use this local archive for an artifact "
                                      "(repeatable)", parse=strings, repeatable=True,
                                      matrix=False)
    source: tuple[str, ...] = option((), "NAME=DIR (used in place) or NAME=REPO[@REV] (exported "
                                     "into scratch/src); repeatable; env ETHOSU_ORCH_SRC_<NAME>",
                                     parse=strings, repeatable=True, matrix=False)
    fvp_dir: tuple[str, ...] = option((), "NAME=DIR: FVPs installed elsewhere (e.g. "
                                      "FVPs-on-Mac), used in place", parse=strings,
                                      repeatable=True, matrix=False)
    accept_eula: bool = option(False, "accept Arm's FVP EULA (or ARM_FVP_INSTALL_I_AGREE_TO_THE_"
                               "CONTAINED_EULA=True)", parse=switch, matrix=False)
    toolchain_provider: str | None = option(None, "auto (system arm-none-eabi-gcc if new enough, "
                                            "else download), system, or arm", parse=text,
                                            matrix=False)
    toolchain_dir: str | None = option(None, "bin folder of an arm-none-eabi toolchain to adopt",
                                       parse=text, matrix=False)
    allow_dirty: bool = option(False, "accept user source directories with uncommitted changes",
                               parse=switch, matrix=False)
    allow_unpinned: str | bool | None = option(None, "accept sources at other revisions: bare = "
                                               "all, or =NAME[,NAME]", parse=names_or_all,
                                               bare=True, matrix=False)
    config: str | None = option(None, "TOML file with the same settings (env "
                                "ETHOSU_ORCH_SETUP_CONFIG)", parse=text, matrix=False)
