"""Glue between invoke tasks and the library: lazy import, one-line errors, exit codes."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from orchestrator.foundation.errors import OrchestratorError

EXIT_USER_ERROR = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader left


def resolve(reference: str) -> Callable[..., Any]:
    """Import 'package.module:function' only when the task runs (keeps `invoke --list` fast);
    a dynamic import is a typing boundary, so the caller states what it expects back."""
    module_name, _, attribute = reference.partition(":")
    command: Callable[..., Any] = getattr(importlib.import_module(module_name), attribute)
    return command


def run(reference: str, silent: bool = False, **kwargs: Any) -> None:
    """Call a stage's command; print OrchestratorError as one line and exit non-zero.
    `silent` (a task's --quiet) switches off step progress on stderr."""
    run_callable(lambda: resolve(reference)(**kwargs), silent)


def run_callable(command: Callable[[], int | None], silent: bool = False) -> None:
    """Run a command; OrchestratorError is one line and exit 2, Ctrl-C exit 130, a bug in
    the tool one line naming its crash report and exit 70. `silent` switches off step
    progress on stderr."""
    from orchestrator.foundation.process_gc import freeze_collector_at_exit
    from orchestrator.foundation.progress import quiet_if

    freeze_collector_at_exit()
    quiet_if(silent)
    try:
        code = command()
    except OrchestratorError as error:
        print(f"error: {error.message}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except BrokenPipeError:
        # The reader of stdout went away (`invoke targets --json | head`): stop quietly, as
        # a Unix tool killed by SIGPIPE would; stdout goes nowhere so the exit flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(EXIT_BROKEN_PIPE) from None
    except Exception as error:  # noqa: BLE001 - the last resort: a bug, never a raw traceback
        from orchestrator.foundation.crash_report import EXIT_BUG, bug_line, write_crash_report

        print(bug_line(error, write_crash_report(error)), file=sys.stderr)
        raise SystemExit(EXIT_BUG) from None
    if code:
        raise SystemExit(code)


def print_json(document: Any) -> None:
    """Print a JSON document for machines (stable key order)."""
    print(json.dumps(document, indent=2, sort_keys=True, default=str))


def console() -> Any:
    """A rich console; wide enough for tables when output is piped to a file or CI log."""
    from rich.console import Console

    probe = Console()
    return probe if probe.is_terminal else Console(width=160)


def split_list(value: str | None) -> list[str]:
    """'a,b, c' -> ['a', 'b', 'c']; None or '' -> []."""
    return [item.strip() for item in (value or "").split(",") if item.strip()]
