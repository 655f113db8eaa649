"""The runner's exit codes: the C enum and the Python table agree; every code is named."""

from __future__ import annotations

import re

from orchestrator.foundation.paths import repo_root
from orchestrator.parse.exit_codes import NEXT_STEP, RESULT_KIND, RUNNER_EXIT, classify_exit
from orchestrator.results import Kind

HEADER = repo_root() / "firmware" / "apps" / "runner" / "runner_exit.h"


def test_c_enum_matches_python_table():
    found = {int(code): name.lower() for name, code in
             re.findall(r"RUNNER_EXIT_(\w+)\s*=\s*(\d+)", HEADER.read_text())}
    assert set(found) == set(RUNNER_EXIT)
    aliases = {"alloc": "allocation", "exec": "execution"}
    for code, name in found.items():
        assert RUNNER_EXIT[code][0] == aliases.get(name, name)


def test_every_runner_failure_has_a_kind_and_next_step():
    for kind, _ in RUNNER_EXIT.values():
        assert Kind(RESULT_KIND[kind])
        assert NEXT_STEP[kind]


def test_classify_exit_covers_platform_runner_and_faults():
    assert classify_exit(0).kind == "pass"
    assert classify_exit(12).kind == "allocation"
    assert classify_exit(66).text == "the CPU took a bus fault"
    assert classify_exit(None).kind == "no_exit"
    assert classify_exit(200).kind == "unknown"
