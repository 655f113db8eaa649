"""Load a model and its tensors (imports torch; only called when compiling)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from orchestrator.aot.models.nesting import INPUTS_ROOT, check_leaves, from_paths, named_leaves
from orchestrator.aot.models.sources import ModelRef, sha256_file
from orchestrator.foundation.errors import OrchestratorError

MODEL_ATTRIBUTE = "ModelUnderTest"
INPUTS_ATTRIBUTE = "ModelInputs"


def _tensor_leaf(item: Any) -> Any:
    """A tensor as is, a numpy array as a tensor; None for anything else."""
    import numpy as np
    import torch

    if isinstance(item, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(item))
    return item if isinstance(item, torch.Tensor) else None


def as_tuple(sample: Any, what: str) -> tuple[Any, ...]:
    """A tensor, or a tuple/list of model inputs each a tensor or a nesting of tuples, lists
    and dicts of tensors -> a tuple of positional inputs (numpy leaves made tensors); a leaf
    that is no tensor is refused by its path (`inputs[1][0]`)."""
    items = tuple(sample) if isinstance(sample, (tuple, list)) else (sample,)
    return tuple(check_leaves(items, INPUTS_ROOT, _tensor_leaf, what,
                              f"save {what} as tensors (a tuple of tensors, nested "
                              "tuples/lists/dicts of tensors allowed)"))


def load_tensors(path: Path, what: str) -> tuple[Any, ...]:
    """A .pt/.pth (torch.save, nesting kept), .npy, or .npz (nested as its keys' leaf paths
    say, `inputs[1][0]`; other keys in order) file -> tuple of positional inputs."""
    import numpy as np
    import torch

    try:
        if path.suffix == ".npy":
            return as_tuple(np.load(path, allow_pickle=False), what)
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as archive:
                arrays = {key: archive[key] for key in archive.files}
            return as_tuple(from_paths(arrays) or list(arrays.values()), what)
        return as_tuple(torch.load(path, weights_only=True), what)
    except OrchestratorError:
        raise
    except Exception as error:  # noqa: BLE001 - any loader failure is the user's file
        raise OrchestratorError(
            f"cannot read {what} file {path}: {error}",
            f"save {what} with torch.save(tuple_of_tensors) or numpy.save") from None


def import_model_file(path: Path) -> Any:
    """The model file imported once per process and content (its module-level code, such
    as training a small model, runs once)."""
    name = f"_orchestrator_model_{sha256_file(path)[:16]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise OrchestratorError(f"cannot import model file {path}", "check it is a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - user code
        sys.modules.pop(name, None)
        raise OrchestratorError(f"model file {path} failed to import: "
                                f"{type(error).__name__}: {error}",
                                f"run python {path} to see the full error") from None
    return module


def _from_file(ref: ModelRef) -> tuple[Any, Any]:
    path = Path(ref.location)
    module = import_model_file(path)
    if not hasattr(module, MODEL_ATTRIBUTE):
        raise OrchestratorError(
            f"model file {path.name} defines no {MODEL_ATTRIBUTE}",
            f"add `{MODEL_ATTRIBUTE} = MyModel()` and `{INPUTS_ATTRIBUTE} = (tensor, ...)` "
            "to it")
    return getattr(module, MODEL_ATTRIBUTE), getattr(module, INPUTS_ATTRIBUTE, None)


def _from_function(ref: ModelRef) -> tuple[Any, Any]:
    module_name, _, function_name = ref.location.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - user code
        raise OrchestratorError(
            f"module {module_name} failed to import: {error}",
            f"python -c 'import {module_name}' shows the full error") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise OrchestratorError(f"module {module_name} has no function {function_name}",
                                "pass module:function where function returns (model, inputs)")
    result = function()
    if not (isinstance(result, tuple) and len(result) == 2):
        raise OrchestratorError(f"{ref.location} must return (model, inputs)",
                                "return a (torch.nn.Module, tuple_of_tensors) pair")
    return result


def _from_serialized(ref: ModelRef) -> tuple[Any, Any]:
    import torch

    try:
        model = torch.load(ref.location, weights_only=False)  # user's own trusted file
    except Exception as error:  # noqa: BLE001 - user file
        raise OrchestratorError(f"cannot load model file {ref.location}: {error}",
                                "save the model with torch.save(model, path)") from None
    return model, None


def _load_model(ref: ModelRef, torchvision: bool) -> tuple[Any, Any]:
    if ref.kind == "builtin":
        from orchestrator.aot.models.zoo import load_builtin

        return load_builtin(ref.location, torchvision=torchvision)
    if ref.kind == "upstream":
        from orchestrator.aot.models.upstream_loading import load_upstream

        return load_upstream(ref)
    loaders = {"file": _from_file, "function": _from_function, "serialized": _from_serialized}
    return loaders[ref.kind](ref)


def load_model(ref: ModelRef, inputs: tuple[Path, ...] = (),
               torchvision: bool = False) -> tuple[Any, tuple[Any, ...]]:
    """(eval-mode model, example inputs); user input files override the model's own."""
    import torch

    model, example = _load_model(ref, torchvision)
    if not isinstance(model, torch.nn.Module):
        raise OrchestratorError(f"model {ref.name} is a {type(model).__name__}, not a "
                                "torch.nn.Module", "make it an nn.Module instance")
    if inputs:
        example = tuple(arg for path in inputs for arg in load_tensors(path, "input"))
    if example is None:
        raise OrchestratorError(f"model {ref.name} comes without example inputs",
                                "pass --inputs <file.pt|file.npy>")
    model.eval()
    model.requires_grad_(False)
    return model, as_tuple(example, f"inputs of {ref.name}")


def _signature(sample: tuple[Any, ...]) -> list[str]:
    return [f"{name} {list(leaf.shape)}" for name, leaf in named_leaves(sample, INPUTS_ROOT)]


def load_calibration(paths: tuple[Path, ...], example: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Calibration samples (one per file, nested like the example inputs), checked against
    the example inputs' nesting and shapes."""
    samples = []
    expected = _signature(example)
    for path in paths:
        sample = load_tensors(path, "calibration")
        got = _signature(sample)
        if got != expected:
            raise OrchestratorError(f"calibration file {path.name} holds {', '.join(got)}; "
                                    f"the model takes {', '.join(expected)}",
                                    "save calibration samples nested as the model's inputs, "
                                    "with their shapes")
        samples.append(sample)
    return samples or [example]
