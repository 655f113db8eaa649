"""A product's host programs for new inputs come from its lowering (the edge program kept in
the ETRecord), not from lowering the model again; without an ETRecord they are lowered
again. Either way the program is checked against the product's exact reference."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from aot_cases import needs_executorch

from orchestrator.aot import lowering as lowering_module
from orchestrator.aot import request_for
from orchestrator.aot.host_reference import HostPrograms
from orchestrator.aot.products import load_product
from orchestrator.aot.tensors import load_array

pytestmark = pytest.mark.slow


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the kept program must be used, not a new lowering")


@pytest.mark.parametrize(("model", "target"), [("convnet", "ethos-u85-128"),
                                               ("convnet", "cortex-m55")])
def test_host_programs_read_the_kept_lowered_program(compiled, monkeypatch, model, target):
    needs_executorch()
    product = compiled[(model, target)]
    monkeypatch.setattr(lowering_module, "lower", _refuse)
    host = HostPrograms(request_for(model, target), product)
    assert host.reloaded
    arrays = [load_array(t) for t in product.inputs]
    outputs = host.exact_outputs(arrays)
    assert outputs is not None
    for got, want in zip(outputs, product.reference_exact, strict=True):
        assert got.tobytes() == load_array(want).tobytes()
    shifted = host.exact_outputs([np.roll(a, 1) for a in arrays])
    assert shifted is not None and any(
        s.tobytes() != o.tobytes() for s, o in zip(shifted, outputs, strict=True))


def test_without_an_etrecord_the_model_is_lowered_again(compiled, tmp_path) -> None:
    needs_executorch()
    copy = tmp_path / compiled[("add", "ethos-u55-128")].directory.name
    shutil.copytree(compiled[("add", "ethos-u55-128")].directory, copy)
    (copy / "etrecord.bin").unlink()
    product = load_product(copy)
    assert product is not None and product.etrecord is None
    host = HostPrograms(request_for("add", "ethos-u55-128"), product)
    assert not host.reloaded and host.program is not None
