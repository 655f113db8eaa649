"""`python -m orchestrator run` (orchestrator.commands.direct) takes `invoke run`'s flags:
the same command line gives the same RunRequest and presentation flags through either parser,
an unknown flag or task is a one-line error (exit 2), and the entry's import pulls in no
invoke."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from invoke import Collection
from invoke.parser import Parser, ParserContext

import tasks
from orchestrator.commands.direct import parse_words, usage
from orchestrator.commands.task_spec import RUN
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import repo_root
from orchestrator.options import RunRequest
from orchestrator.options.fields import cli_specs, from_cli

COMMAND_LINES = [
    ["--target", "ethos-u85-128", "--model", "convnet", "--sim", "qemu", "--json", "--quiet"],
    ["--target=cortex-m55", "--model=add", "--sim=qemu", "--isa", "dsp", "--no-delegate"],
    ["--target", "ethos-u55-128", "--model", "kws.py", "--option", "a=1", "--option", "b=2",
     "--timeout", "30", "--idle-timeout", "0", "--top1", "--no-strict", "--vela-flags",
     "--optimise Size", "--delegate", "--min-snr", "30"],
    ["--target", "ethos-u65-256", "--app", "selftest", "--data", "x.bin@0x10",
     "--data", "y.bin@0x20", "--fast", "--profile"],
]


def _split(values: dict[str, Any]) -> tuple[RunRequest, dict[str, Any]]:
    shown = {key: values.pop(key, default) for key, (default, _) in RUN.flags.items()}
    return replace(from_cli(RunRequest, values, "run"), run_id="fixed"), shown  # run_id: random


def invoke_parsed(words: list[str]) -> tuple[RunRequest, dict[str, Any]]:
    task = Collection.from_module(tasks)["run"]
    context = ParserContext(name="run", args=task.get_arguments())
    return _split(dict(Parser(contexts=[context]).parse_argv(["run", *words])[0].as_kwargs))


@pytest.mark.parametrize("words", COMMAND_LINES)
def test_a_command_line_means_the_same_to_both_entries(words: list[str]) -> None:
    assert _split(parse_words(RUN, words)) == invoke_parsed(words)


def test_the_run_task_is_made_from_the_shared_spec() -> None:
    assert tasks.run_.__doc__ == RUN.doc
    assert tasks.run_.body.option_group is RunRequest


def test_an_unknown_or_incomplete_flag_is_one_line() -> None:
    with pytest.raises(OrchestratorError, match=r"--bogus is not an option .*--help"):
        parse_words(RUN, ["--target", "ethos-u85-128", "--bogus"])
    with pytest.raises(OrchestratorError, match="--model needs a value"):
        parse_words(RUN, ["--model"])


def test_help_lists_every_flag() -> None:
    text = usage(RUN)
    assert all(spec.flag in text for spec in cli_specs(RunRequest))
    assert "--no-delegate" in text and "--json" in text and RUN.doc in text


def _entry(*words: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(repo_root())}
    return subprocess.run([sys.executable, "-m", "orchestrator", *words], capture_output=True,
                          text=True, env=env, timeout=120, check=False)


def test_the_entry_refuses_other_tasks_and_bad_flags_with_exit_2() -> None:
    other = _entry("compile", "--model", "add")
    assert other.returncode == 2
    assert other.stderr.strip() == ("error: python -m orchestrator runs only run (compile "
                                    "given); next: invoke compile")
    bad = _entry("run", "--bogus")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert bad.stderr.startswith("error: python -m orchestrator run: --bogus is not an option")
    shown = _entry("run", "--help")
    assert shown.returncode == 0 and "--target=VALUE" in shown.stdout
