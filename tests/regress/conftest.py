"""Fixtures for the regression tests: a tmp scratch, matrix files and replay stages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from documents import (  # noqa: E402
    add_u55_128,
    add_u85_128,
    conv_m55,
    failed,
    mv2_u85_128,
    vela_mv2_u85_128,
)
from replay import ReplayStages  # noqa: E402

UNIT_MATRIX = """
schema = 1
name = "unit"
description = "engine tests: CPU cells, NPU cells on the FVP, compile-only NPU cells"

[options]
fast = { fast = true }

[tolerances]
"cpu.cycles" = { rel = 0.01, abs = 0 }

[[lanes]]
name = "cpu"
models = ["conv", "add"]
targets = ["cortex-m55"]
sim = "qemu"

[[lanes]]
name = "npu"
mode = "run"
models = ["mv2", "add"]
targets = ["ethos-u85-128", "ethos-u55-128"]
sim = "fvp"

[[lanes]]
name = "npu-compile"
mode = "compile"
models = ["mv2"]
targets = ["ethos-u85-128"]
options = ["fast"]

[[expect]]
models = ["add"]
targets = ["cortex-m55"]
status = "xfail"
reason = "allocation too small (known)"

[[expect]]
models = ["mv2"]
targets = ["ethos-u55-*"]
status = "skip"
reason = "mv2 is too big for U55 SRAM in this matrix"
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A private scratch root for the test."""
    root = tmp_path / "scratch"
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(root))
    return root


@pytest.fixture
def unit_matrix(tmp_path) -> Path:
    """The engine-test matrix written to a file."""
    path = tmp_path / "unit.toml"
    path.write_text(UNIT_MATRIX)
    return path


def replay_stages(**overrides) -> ReplayStages:
    """Replay stages answering for every cell of UNIT_MATRIX."""
    results = {
        "conv@cortex-m55": conv_m55(),
        "add@cortex-m55": failed("add", "cortex-m55"),
        "mv2@ethos-u85-128": mv2_u85_128(),
        "add@ethos-u55-128": add_u55_128(),
        "add@ethos-u85-128": add_u85_128(),
    }
    return ReplayStages(results=results, vela={"mv2@ethos-u85-128": vela_mv2_u85_128()},
                        **overrides)


@pytest.fixture
def stages() -> ReplayStages:
    return replay_stages()
