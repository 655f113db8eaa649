"""Nested inputs and outputs: flattened in the exported program's order, leaves named by path."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from orchestrator.aot.models.loading import as_tuple, load_calibration, load_tensors
from orchestrator.aot.models.nesting import (
    input_names,
    leaves,
    map_leaves,
    output_names,
    rebuild,
    structure,
)
from orchestrator.foundation.errors import OrchestratorError


class Nested(torch.nn.Module):
    """(x, (h, lengths)) in, {"y": ..., "pair": (a, b)} out."""

    def forward(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]
                ) -> dict[str, Any]:
        h, lengths = state
        return {"y": x + h, "pair": (x * 2, lengths + 1)}


def _example() -> tuple[Any, ...]:
    return (torch.ones(2, 3), (torch.zeros(2, 3), torch.tensor([3, 1], dtype=torch.int32)))


def test_input_names_follow_the_nesting() -> None:
    assert input_names(_example()) == ["inputs[0]", "inputs[1][0]", "inputs[1][1]"]


def test_output_names_name_dict_keys_and_positions() -> None:
    outputs = Nested()(*_example())
    assert output_names(outputs) == ["output['y']", "output['pair'][0]", "output['pair'][1]"]
    assert output_names(torch.ones(1)) == ["output"]
    assert output_names((torch.ones(1),)) == ["output[0]"]


def test_flatten_order_is_the_exported_programs() -> None:
    example = _example()
    exported = torch.export.export(Nested(), example, strict=True)
    # the program's user inputs, in order, are the leaves of our flattening
    user_inputs = [spec.arg.name for spec in exported.graph_signature.input_specs]
    assert len(user_inputs) == len(leaves(example))
    flat, _ = torch.utils._pytree.tree_flatten(example)
    assert all(a is b for a, b in zip(flat, leaves(example), strict=True))
    outputs = exported.module()(*example)
    program_outputs = [n for n in exported.graph.nodes if n.op == "output"][0].args[0]
    assert len(program_outputs) == len(leaves(outputs))
    torch_flat, _ = torch.utils._pytree.tree_flatten(outputs)
    assert all(torch.equal(a, b) for a, b in zip(torch_flat, leaves(outputs), strict=True))


def test_structure_round_trips_through_json() -> None:
    import json

    value = {"a": [1, (2, 3)], 5: 4}
    record = json.loads(json.dumps(structure(value)))
    assert rebuild(record, leaves(value)) == {"a": [1, (2, 3)], 5: 4}
    assert map_leaves(lambda leaf: leaf * 10, ((1,), [2])) == ((10,), [20])


def test_as_tuple_accepts_nesting_and_numpy_leaves() -> None:
    import numpy as np

    args = as_tuple((np.ones((1, 2), np.float32), [torch.ones(1), {"n": torch.zeros(2)}]),
                    "inputs of m")
    assert [type(leaf) for leaf in leaves(args)] == [torch.Tensor] * 3
    assert isinstance(args[1], list) and isinstance(args[1][1], dict)


def test_a_leaf_that_is_not_a_tensor_is_named_by_its_path() -> None:
    with pytest.raises(OrchestratorError, match=r"inputs of m: inputs\[1\]\[1\] is a int"):
        as_tuple((torch.ones(1), (torch.ones(1), 3)), "inputs of m")


def test_calibration_must_nest_as_the_example(tmp_path: Any) -> None:
    example = _example()
    good, bad = tmp_path / "good.pt", tmp_path / "bad.pt"
    torch.save(example, good)
    torch.save((example[0], example[1][0]), bad)
    assert len(leaves(load_tensors(good, "calibration"))) == 3
    assert load_calibration((good,), example)[0][1][1].dtype == torch.int32
    with pytest.raises(OrchestratorError, match=r"bad.pt holds inputs\[0\] \[2, 3\], "
                                                r"inputs\[1\] \[2, 3\]; the model takes"):
        load_calibration((bad,), example)


def test_npz_keys_naming_leaf_paths_nest_the_inputs(tmp_path: Any) -> None:
    import numpy as np

    from orchestrator.aot.models.nesting import from_paths

    assert from_paths({"inputs[1][0]": 2, "inputs[0]": 1, "inputs[1][1]": 3}) == (1, (2, 3))
    assert from_paths({"inputs[0]['h']": 1}) == ({"h": 1},)
    assert from_paths({"x": 1}) is None and from_paths({"inputs[1]": 1}) is None
    path = tmp_path / "set.npz"
    np.savez(path, **{"inputs[1][1]": np.array([4], np.int32), "inputs[0]": np.ones(2),
                      "inputs[1][0]": np.zeros(3)})
    x, (h, lengths) = load_tensors(path, "input")
    assert (x.shape, h.shape, lengths.dtype) == ((2,), (3,), torch.int32)
    np.savez(path, a=np.ones(2), b=np.zeros(3))          # other keys: the archive's order
    assert [t.shape for t in load_tensors(path, "input")] == [(2,), (3,)]
