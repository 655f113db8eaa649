"""invoke tasks made from option groups: parameters, help, iterable and switch flags are read
off the group's fields (orchestrator.options.fields), so tasks.py lists no option twice. A
group named by reference ('module:Class') is read from task_flags.json and imported only when
its task runs."""

from __future__ import annotations

import inspect
from typing import Any

from invoke.context import Context
from invoke.tasks import Task

from orchestrator.commands.task_flags import flag_rows, group_of, group_reference, kept_rows
from orchestrator.commands.task_spec import TaskSpec, run_with_options


def _parameter(row: dict[str, Any]) -> inspect.Parameter:
    """Switches default False (a flag); everything else None (a string invoke leaves to our
    parsers, so a bad value is our one-line error, not a traceback). A positional option
    has no default: invoke fills it from a bare word and refuses a missing one itself; any
    other missing required option is from_cli's one-line error."""
    default: Any = None
    if row["switch"]:
        default = row["default"] if isinstance(row["default"], bool) else False
    if row["positional"]:
        return inspect.Parameter(row["parameter"], inspect.Parameter.KEYWORD_ONLY)
    return inspect.Parameter(row["parameter"], inspect.Parameter.KEYWORD_ONLY, default=default)


def option_group(task: Task[Any]) -> type:
    """The option group `task` is made from (imported now if tasks.py named it)."""
    return group_of(task.body.group_reference)  # type: ignore[attr-defined]


def options_task(reference: str, group: type | str, *, name: str, doc: str,
                 flags: dict[str, tuple[Any, str]] | None = None,
                 short_flags: bool = False) -> Task[Any]:
    """An invoke task whose flags are `group`'s CLI options plus `flags` (name -> (default,
    help): presentation only, e.g. json), calling `reference` with the built group.
    `group`: the class, or its 'module:Class' reference (flags from task_flags.json, the
    class imported when the task runs). `short_flags`: invoke's -x letters too (assigned in
    field order, then `flags`)."""
    rows = kept_rows(group) if isinstance(group, str) else flag_rows(group)
    extra = flags or {}

    def body(c: Context, **values: Any) -> None:
        shown = {key: values.pop(key) for key in extra}
        built = group_of(group) if isinstance(group, str) else group
        run_with_options(reference, built, values, name.replace("_", "-"), **shown)

    parameters = [inspect.Parameter("c", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [_parameter(row) for row in rows]
    offs = {row["off"][0]: row["off"][1] for row in rows if row["off"]}
    parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=False)
                   for name in offs]
    parameters += [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default)
                   for key, (default, _) in extra.items()]
    body.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    body.group_reference = (  # type: ignore[attr-defined]  # read by option_group
        group if isinstance(group, str) else group_reference(group))
    body.flags_kept = isinstance(group, str)  # type: ignore[attr-defined]  # in the table
    body.__doc__ = doc
    body.__name__ = name
    helps = {row["parameter"]: row["help"] for row in rows}
    helps.update(offs)
    helps.update({key: text for key, (_, text) in extra.items()})
    return Task(body, name=name, help=helps, auto_shortflags=short_flags,
                positional=[row["parameter"] for row in rows if row["positional"]],
                iterable=[row["parameter"] for row in rows if row["repeatable"]],
                optional=[row["parameter"] for row in rows if row["bare"]])


def spec_task(spec: TaskSpec) -> Task[Any]:
    """The invoke task of a task defined as data (orchestrator.commands.task_spec)."""
    return options_task(spec.reference, spec.group, name=spec.name, doc=spec.doc,
                        flags=dict(spec.flags))
