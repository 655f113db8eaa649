"""ET_LOG prefixes of every generation split into level, file, line, function and message.

The no-bracket, bracket and bracket-function examples are lines of the copied transcripts;
the newlib `zu` and Zephyr examples are the ones quoted in the INDEX.md era table.
"""

from __future__ import annotations

import pytest

from orchestrator.parse.lines import split_line

ERAS = [
    (
        "I executorch:runner.cpp:64] Model PTE file loaded. Size: 960 bytes.",
        ("I", "runner.cpp", 64, None, "Model PTE file loaded. Size: 960 bytes.", "no-bracket"),
    ),
    (
        "I executorch:arm_executor_runner.cpp:60] Model in 0x70000000 $",
        ("I", "arm_executor_runner.cpp", 60, None, "Model in 0x70000000 $", "no-bracket"),
    ),
    (
        "I [executorch:arm_executor_runner.cpp:364] Model in 0x70000000 $",
        ("I", "arm_executor_runner.cpp", 364, None, "Model in 0x70000000 $", "bracket"),
    ),
    (
        "E [executorch:EthosUBackend.cpp:173 execute()] Failed to allocate scratch buffer",
        (
            "E",
            "EthosUBackend.cpp",
            173,
            "execute",
            "Failed to allocate scratch buffer",
            "bracket-function",
        ),
    ),
    (
        "I [executorch:arm_executor_runner.cpp:zu ()] main",
        ("I", "arm_executor_runner.cpp", None, None, "main", "newlib-zu"),
    ),
    (
        "I [executorch:main.cpp] Model executed successfully.",
        ("I", "main.cpp", None, None, "Model executed successfully.", "zephyr-no-line"),
    ),
    (
        "I executorch:arm_executor_runner.cpp:179]",
        ("I", "arm_executor_runner.cpp", 179, None, "", "no-bracket"),
    ),
]


@pytest.mark.parametrize(("raw", "expected"), ERAS)
def test_prefix_generations(raw, expected):
    line = split_line(1, raw + "\r\n")
    got = (line.level, line.source, line.source_line, line.function, line.message, line.format)
    assert got == expected
    assert line.is_et


def test_plain_lines_keep_their_text():
    line = split_line(7, "Output[0][0]: (int) 2\r")
    assert (line.number, line.text, line.message, line.level) == (
        7,
        "Output[0][0]: (int) 2",
        "Output[0][0]: (int) 2",
        None,
    )
    assert not line.is_et


def test_ansi_colour_codes_are_removed():
    line = split_line(1, "\x1b[31mE: NPU config mismatch\x1b[0m")
    assert line.text == "E: NPU config mismatch"
