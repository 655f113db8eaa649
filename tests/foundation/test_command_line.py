"""The next-step commands are written by one function: what a message prints is what a shell
splits back into the same arguments (a regress cell key with spaces and globs, a data path
with a space), placeholders stay for the user to fill in, unset flags are left out."""

from __future__ import annotations

import shlex

from orchestrator.foundation.command_line import invoke_line


def test_a_printed_command_splits_back_into_its_arguments() -> None:
    key = "mv2 int8 ethos-u85-128,*u85*"
    line = invoke_line("regress", filter=key)
    assert shlex.split(line) == ["invoke", "regress", "--filter", key]
    data = "/data sets/digits"
    assert shlex.split(invoke_line("evaluate", model="add", target="ethos-u85-128",
                                   data=data))[-2:] == ["--data", data]


def test_plain_values_stay_plain_and_placeholders_stay_unquoted() -> None:
    assert invoke_line("run", target="cortex-m55", model="mv2") == \
        "invoke run --target cortex-m55 --model mv2"
    assert invoke_line("run", target="ethos-u55-128", elf="<ELF>") == \
        "invoke run --target ethos-u55-128 --elf <ELF>"


def test_unset_flags_are_left_out_and_switches_are_bare() -> None:
    assert invoke_line("run", target="cortex-m55", model=None, inputs=None,
                       intermediates=True, profile=False) == \
        "invoke run --target cortex-m55 --intermediates"
