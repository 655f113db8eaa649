"""A product's host programs for new inputs come from its lowering (the edge program kept in
the ETRecord), not from lowering the model again; without an ETRecord they are lowered
again. Either way the program is checked against the product's exact reference."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from aot_cases import needs_executorch

from orchestrator.aot import request_for
from orchestrator.aot.host_reference import HostPrograms
from orchestrator.aot.lower import lowering as lowering_module
from orchestrator.aot.products import load_product
from orchestrator.aot.tensors import load_array

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


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


REFERENCES_AGAIN = """
import json, sys
from pathlib import Path
import numpy as np
from orchestrator.aot import request_for
from orchestrator.aot.products import load_product
from orchestrator.aot.tensors import load_array
from orchestrator.evaluate.host_references import host_references
product = load_product(Path(sys.argv[1]))
arrays = [load_array(t) for t in product.inputs]
((exact, floating),) = host_references(request_for("convnet", "ethos-u85-128"), product,
                                       [arrays], Path(sys.argv[2]))
print(json.dumps([sorted({m.split(".")[0] for m in sys.modules} & {"torch", "executorch"}),
                  [a.tobytes().hex() for a in exact + floating]]))
"""


def test_host_references_are_kept_by_input_content(compiled, monkeypatch, tmp_path) -> None:
    needs_executorch()
    from orchestrator.aot import host_reference
    from orchestrator.evaluate.host_references import host_references

    product = compiled[("convnet", "ethos-u85-128")]
    request = request_for("convnet", "ethos-u85-128")
    arrays = [load_array(t) for t in product.inputs]
    ((exact, floating),) = host_references(request, product, [arrays], tmp_path)
    assert exact is not None
    for got, want in zip(exact, product.reference_exact, strict=True):
        assert got.tobytes() == load_array(want).tobytes()
    done = subprocess.run([sys.executable, "-c", REFERENCES_AGAIN, str(product.directory),
                           str(tmp_path)], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    heavy, kept = json.loads(done.stdout.strip().splitlines()[-1])
    assert heavy == [] and kept == [a.tobytes().hex() for a in exact + floating]
    monkeypatch.setattr(host_reference, "HostPrograms", _refuse)
    with pytest.raises(AssertionError, match="kept program"):   # new content: computed
        host_references(request, product, [[np.roll(a, 1) for a in arrays]], tmp_path)
