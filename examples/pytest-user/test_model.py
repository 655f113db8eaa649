"""The model's tests, as a user's repository writes them with the ethosu-orchestrator pytest
plugin (enabled by pytest.ini beside this file): each runs on ethos-u55-128 and
ethos-u85-128. `verify` needs nothing but the Python packages; `run` needs `invoke setup`
(it is skipped, naming what is missing, until then)."""

from __future__ import annotations

from pathlib import Path

import pytest

MODEL = str(Path(__file__).with_name("model.py"))
TARGETS = ["ethos-u55-128", "ethos-u85-128"]


@pytest.mark.ethosu(targets=TARGETS)
def test_npu_partitions_are_bit_exact(ethosu, ethosu_target):
    """The Vela command streams on the NPU model equal the TOSA reference."""
    ethosu.expect(ethosu.verify(model=MODEL, target=ethosu_target))


@pytest.mark.ethosu(targets=TARGETS)
def test_runs_on_qemu_bit_exact(ethosu, ethosu_target):
    """The .pte through the ExecuTorch runtime on QEMU (the NPU: the NPU model)."""
    ethosu.skip_unless_ready(ethosu_target, sim="qemu")
    report = ethosu.expect(ethosu.run(model=MODEL, target=ethosu_target, sim="qemu"))
    assert report.result.comparison is not None and report.result.comparison.exact
