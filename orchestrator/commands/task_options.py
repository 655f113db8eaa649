"""invoke tasks made from option groups: parameters, help, iterable and switch flags are read
off the group's fields (orchestrator.options.fields), so tasks.py lists no option twice."""

from __future__ import annotations

import inspect
from typing import Any

from invoke.context import Context
from invoke.tasks import Task

from orchestrator.commands.task_spec import TaskSpec, run_with_options
from orchestrator.options.fields import Spec, cli_specs, help_text


def _parameter(spec: Spec) -> inspect.Parameter:
    """Switches default False (a flag); everything else None (a string invoke leaves to our
    parsers, so a bad value is our one-line error, not a traceback). A positional option
    has no default: invoke fills it from a bare word and refuses a missing one itself; any
    other missing required option is from_cli's one-line error."""
    default: Any = None
    if spec.is_bool:
        default = spec.default if isinstance(spec.default, bool) else False
    if spec.info.positional:
        return inspect.Parameter(spec.parameter, inspect.Parameter.KEYWORD_ONLY)
    return inspect.Parameter(spec.parameter, inspect.Parameter.KEYWORD_ONLY, default=default)


def options_task(reference: str, group: type, *, name: str, doc: str,
                 flags: dict[str, tuple[Any, str]] | None = None,
                 short_flags: bool = False) -> Task[Any]:
    """An invoke task whose flags are `group`'s CLI options plus `flags` (name -> (default,
    help): presentation only, e.g. json), calling `reference` with the built group.
    `short_flags`: invoke's -x letters too (assigned in field order, then `flags`)."""
    specs = cli_specs(group)
    extra = flags or {}

    def body(c: Context, **values: Any) -> None:
        shown = {key: values.pop(key) for key in extra}
        run_with_options(reference, group, values, name.replace("_", "-"), **shown)

    parameters = [inspect.Parameter("c", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [_parameter(spec) for spec in specs]
    offs = {spec.info.off[0]: spec.info.off[1] for spec in specs if spec.info.off}
    parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=False)
                   for name in offs]
    parameters += [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default)
                   for key, (default, _) in extra.items()]
    body.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    body.option_group = group  # type: ignore[attr-defined]  # read by the CLI tests
    body.__doc__ = doc
    body.__name__ = name
    helps = {spec.parameter: help_text(spec) for spec in specs}
    helps.update(offs)
    helps.update({key: text for key, (_, text) in extra.items()})
    return Task(body, name=name, help=helps, auto_shortflags=short_flags,
                positional=[spec.parameter for spec in specs if spec.info.positional],
                iterable=[spec.parameter for spec in specs if spec.info.repeatable],
                optional=[spec.parameter for spec in specs if spec.info.bare])


def spec_task(spec: TaskSpec) -> Task[Any]:
    """The invoke task of a task defined as data (orchestrator.commands.task_spec)."""
    return options_task(spec.reference, spec.group, name=spec.name, doc=spec.doc,
                        flags=dict(spec.flags))
