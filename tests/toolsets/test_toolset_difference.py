"""Where two programs of one cell part ways: two real compiles of a small CNN whose second
convolution's weights differ (what a toolset that changed a lowering's numerics would give)
run the same inputs; the exact outputs differ, and the first TOSA operator whose output
differs is the one reading the changed weights, located on the TOSA reference model."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolset_helpers import needs_aot

from orchestrator.aot.api import compile_model
from orchestrator.foundation.paths import scratch
from orchestrator.toolsets.difference import (
    delegation_changes,
    first_tosa_difference,
    outputs_agree,
)

pytestmark = pytest.mark.slow
MODEL = """import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.second = torch.nn.Conv2d(8, 8, 3, padding=1)
        with torch.no_grad():
            self.second.weight.mul_({scale})

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


ModelUnderTest = Net().eval()
ModelInputs = (torch.linspace(-1, 1, 3 * 8 * 8).reshape(1, 3, 8, 8),)
"""


def _compiled(tmp_path: Path, name: str, scale: str):
    path = tmp_path / f"{name}.py"
    path.write_text(MODEL.replace("{scale}", scale))
    return compile_model(str(path), "ethos-u85-128", scratch_root=tmp_path / "scratch")


def test_the_first_differing_tosa_operator_is_located(tmp_path):
    needs_aot()
    same = _compiled(tmp_path, "net_a", "1.0")
    changed = _compiled(tmp_path, "net_b", "-1.0")
    assert outputs_agree(same, same) == {"agree": True, "outputs": 1}
    agreement = outputs_agree(same, changed)
    assert agreement["agree"] is False and agreement["differing_elements"][0] > 0
    found = first_tosa_difference(same, changed)
    assert found is not None and found["partition"] == 0
    assert found["why"] == "same operator, same inputs, different output"
    assert found["a"] == found["b"] == "CONV2D" and found["operator"] > 0
    assert 0 < found["differing"] <= found["elements"]
    assert first_tosa_difference(same, same) is None
    assert delegation_changes(same, changed) == []
    assert scratch(tmp_path / "scratch").models.is_dir()
