"""The warm path without invoke: `python -m orchestrator run ...` (or the `orchestrator`
console script) takes the same flags as `invoke run` and calls the same command, but skips
invoke's own start-up (its import pulls in unittest.mock, asyncio, importlib.metadata and
yaml) and the loading of every other task's options. `invoke run` stays the documented
entry; this is its fast path for loops that re-run a cached product."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any

from orchestrator.commands.task_spec import RUN, TaskSpec, run_with_options
from orchestrator.foundation.cli import EXIT_USER_ERROR, run_callable
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.fields import Spec, cli_specs, help_text, unknown_option_error

TASKS = {RUN.name: RUN}
PROGRAM = "python -m orchestrator"


def _flag(parameter: str) -> str:
    return "--" + parameter.replace("_", "-")


def switches(task: TaskSpec) -> dict[str, tuple[str, bool]]:
    """flag -> (parameter, value) of every flag that takes no value, as invoke names them:
    a switch, its off flag (--no-delegate), a default-on switch's --no- inverse
    (--no-strict) and the task's presentation flags (--json)."""
    found: dict[str, tuple[str, bool]] = {}
    for spec in cli_specs(task.group):
        if not spec.is_bool:
            continue
        found[spec.flag] = (spec.parameter, True)
        if spec.info.off is not None:
            found[_flag(spec.info.off[0])] = (spec.info.off[0], True)
        elif spec.default is True:
            found["--no-" + spec.flag[2:]] = (spec.parameter, False)
    found.update({_flag(key): (key, True) for key in task.flags})
    return found


def parse_words(task: TaskSpec, words: Sequence[str]) -> dict[str, Any]:
    """invoke's keyword arguments for `task` from a command line: --flag VALUE, --flag=VALUE,
    switches, repeatable flags (a list), a bare option alone (--force) or with = (--force=x)
    and a positional option's bare word. An unknown or
    incomplete flag is a one-line OrchestratorError."""
    valued = {spec.flag: spec for spec in cli_specs(task.group) if not spec.is_bool}
    positional = [spec for spec in valued.values() if spec.info.positional]
    toggles = switches(task)
    values: dict[str, Any] = {}
    stream: Iterator[str] = iter(words)
    for word in stream:
        flag, equals, inline = word.partition("=")
        if flag in toggles and not equals:
            parameter, value = toggles[flag]
            values[parameter] = value
        elif flag in valued:
            spec = valued[flag]
            given = inline if equals else True if spec.info.bare else _value_after(spec, stream)
            _store(spec, values, given)
        elif positional and not word.startswith("-"):
            values[positional.pop(0).parameter] = word
        else:
            raise unknown_option_error(f"{PROGRAM} {task.name}:", [word],
                                       [*valued, *toggles],
                                       f"{PROGRAM} {task.name} --help lists them")
    return values


def _value_after(spec: Spec, stream: Iterator[str]) -> Any:
    value = next(stream, None)
    if value is None:
        raise OrchestratorError(f"{spec.flag} needs a value", f"give {spec.flag} VALUE")
    return value


def _store(spec: Spec, values: dict[str, Any], value: Any) -> None:
    if spec.info.repeatable:
        values.setdefault(spec.parameter, []).append(value)
    else:
        values[spec.parameter] = value


def usage(task: TaskSpec) -> str:
    """The task's help: its doc and every flag with its help text."""
    rows = [(spec.flag if spec.is_bool else f"{spec.flag}=VALUE", help_text(spec))
            for spec in cli_specs(task.group)]
    rows += [(_flag(spec.info.off[0]), spec.info.off[1])
             for spec in cli_specs(task.group) if spec.info.off is not None]
    rows += [(_flag(key), text) for key, (_, text) in task.flags.items()]
    width = max(len(flag) for flag, _ in rows) + 2
    lines = [f"Usage: {PROGRAM} {task.name} [--options]  (the same flags as invoke "
             f"{task.name})", "", task.doc, "", "Options:"]
    return "\n".join(lines + [f"  {flag.ljust(width)}{text}" for flag, text in sorted(rows)])


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m orchestrator TASK [flags]`: exit codes as `invoke TASK`'s."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] not in TASKS:
        given = words[0] if words else "no task"
        print(f"error: {PROGRAM} runs only {', '.join(TASKS)} ({given} given); next: "
              f"invoke {words[0] if words else '--list'}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR)
    task = TASKS[words[0]]
    if {"--help", "-h"} & set(words[1:]):
        run_callable(lambda: print(usage(task)))
        return
    try:
        values = parse_words(task, words[1:])
    except OrchestratorError as error:
        print(f"error: {error.message}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR) from None
    shown = {key: values.pop(key, default) for key, (default, _) in task.flags.items()}
    run_with_options(task.reference, task.group, values, task.name, **shown)
