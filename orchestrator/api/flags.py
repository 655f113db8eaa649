"""Keyword arguments as the flags are: `compile(model="add", target="ethos-u85-128")` builds
the same option group `invoke compile --model add --target ethos-u85-128` does (through
orchestrator.options.fields.from_cli), so a script and the command line cannot drift."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from orchestrator.foundation.paths import SCRATCH_ENV
from orchestrator.options.fields import cli_specs, from_cli, unknown_option_error

Group = TypeVar("Group")


def flag_names(group: type) -> list[str]:
    """The keyword arguments a group takes: its flags' parameters and their off switches."""
    specs = cli_specs(group)
    return [spec.parameter for spec in specs] + [spec.info.off[0] for spec in specs
                                                 if spec.info.off]


def request_from(group: type[Group], flags: Mapping[str, Any], command: str) -> Group:
    """The group `invoke <command>` would build from these flags; an unknown keyword is the
    one-line error naming the known ones. A yes/no switch also takes False for its off flag
    (`delegate=False` is `no_delegate=True`)."""
    known = flag_names(group)
    unknown = [name for name in flags if name not in known]
    if unknown:
        raise unknown_option_error(f"{command}():", unknown, known,
                                   f"invoke {command} --help lists them")
    values = dict(flags)
    for spec in cli_specs(group):
        if spec.info.off and values.get(spec.parameter) is False:
            values[spec.parameter] = None
            values[spec.info.off[0]] = True
    return from_cli(group, values, command)


@contextmanager
def scratch_root(root: str | os.PathLike[str] | None) -> Iterator[None]:
    """Within the block every stage uses `root` as scratch/ (None: as configured)."""
    if root is None:
        yield
        return
    before = os.environ.get(SCRATCH_ENV)
    os.environ[SCRATCH_ENV] = str(Path(root).expanduser().resolve())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SCRATCH_ENV, None)
        else:
            os.environ[SCRATCH_ENV] = before
