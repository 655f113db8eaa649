"""Verifying several configurations of one lowering runs the TOSA reference once per graph
and input set: the configurations share the lowering's TOSA graphs."""

from __future__ import annotations

import pytest
from npu_model_support import compiled, needs_toolchain

from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.verify import verify_product
from orchestrator.tosa.shared_reference import TosaReferences

pytestmark = pytest.mark.slow
CONFIGURATIONS = ("ethos-u85-128", "ethos-u85-512", "ethos-u85-2048")


def test_configurations_of_one_lowering_share_the_tosa_reference_runs() -> None:
    needs_toolchain()
    references = TosaReferences()
    reports = [verify_product(compiled("convnet", target), Npu.for_target_name(target),
                              "convnet", target, locate=False, references=references)
               for target in CONFIGURATIONS]
    assert all(report.exact for report in reports)
    runs_of_one = len({(check.partition, check.inputs) for check in reports[0].checks})
    assert runs_of_one >= 2 and references.runs == runs_of_one
    assert all(len(report.checks) == len(reports[0].checks) for report in reports)
    assert "tosa_reference" in reports[0].seconds
