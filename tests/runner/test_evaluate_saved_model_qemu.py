"""`invoke evaluate --model saved.pt --data DIR` on QEMU: a model saved whole with torch.save
has no example inputs, so the data set's first input set is its example (no --inputs
needed); every sample equal to the host integer program bit for bit (real compile, runner
build and QEMU session on cortex-m55)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from orchestrator.evaluate.evaluate import evaluate
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.options.fields import from_cli

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]

SAMPLES = 3


def saved_model(folder: Path) -> Path:
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(12, 6), torch.nn.ReLU(), torch.nn.Linear(6, 4))
    path = folder / "saved.pt"
    torch.save(model.eval(), path)
    return path


def data_set(folder: Path) -> Path:
    data = folder / "data"
    data.mkdir()
    generator = np.random.default_rng(8)
    for index in range(SAMPLES):
        np.save(data / f"{index:03}.npy", generator.uniform(-1, 1, (1, 12)).astype(np.float32))
    return data


def test_a_saved_model_takes_the_first_input_set_as_its_example(
        tmp_path, runner_scratch, runtime_sources):
    request = from_cli(EvaluateRequest, {"model": str(saved_model(tmp_path)),
                                         "target": "cortex-m55", "sim": "qemu",
                                         "data": str(data_set(tmp_path))})
    request = replace(request, runner=replace(request.runner, sources=runtime_sources))
    document = evaluate(request, runner_scratch)
    assert document["passed"], document["stopped"] or document["summary"]
    summary = document["summary"]
    assert summary["completed"] == SAMPLES and summary["exact"] == SAMPLES
    assert document["reference"] == "exact"
