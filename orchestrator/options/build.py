"""The options of `invoke build`: which firmware app, for which target, how."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import option, strings, text
from orchestrator.targets.runner_data import default_build_type


@dataclass(frozen=True)
class BuildTask:
    """`invoke build`: a firmware app for a catalogue target (the runner takes its own two)."""

    target: str = option(help="catalogue target (invoke targets), e.g. cortex-m55 or "
                         "ethos-u55-128", parse=text, matrix=False, positional=True)
    app: str = option("selftest", "firmware app under firmware/apps/", parse=text,
                      matrix=False)
    build_type: str = option(help="release or debug (default: runner.toml defaults.build_type)",
                             parse=text, matrix=False, default_factory=default_build_type)
    options: tuple[str, ...] = option((), "NAME=value build option, repeatable (e.g. "
                                      "EOR_STACK_SIZE=0x10000)", parse=strings, flag="option",
                                      repeatable=True, matrix=False)
    kernel_set: str | None = option(None, "runner: portable kernels (model, all or a named set: "
                                    "orchestrator/data/runner.toml)", parse=text, matrix=False)
    memory_mode: str | None = option(None, "runner: Ethos-U memory mode (default: the target's)",
                                     parse=text, matrix=False)
