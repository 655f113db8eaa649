"""Load a model and its tensors (imports torch; only called when compiling)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from orchestrator.aot.sources import ModelRef, sha256_file
from orchestrator.errors import OrchestratorError

MODEL_ATTRIBUTE = "ModelUnderTest"
INPUTS_ATTRIBUTE = "ModelInputs"


def as_tuple(sample: Any, what: str) -> tuple[Any, ...]:
    """A tensor, list or tuple of tensors -> tuple of torch tensors."""
    import numpy as np
    import torch

    items = sample if isinstance(sample, (tuple, list)) else (sample,)
    converted = []
    for item in items:
        if isinstance(item, np.ndarray):
            item = torch.from_numpy(np.ascontiguousarray(item))
        if not isinstance(item, torch.Tensor):
            raise OrchestratorError(f"{what} holds a {type(item).__name__}, not tensors",
                                    f"save {what} as a tensor or a tuple of tensors")
        converted.append(item)
    return tuple(converted)


def load_tensors(path: Path, what: str) -> tuple[Any, ...]:
    """A .pt/.pth (torch.save) or .npy file -> tuple of tensors."""
    import numpy as np
    import torch

    try:
        if path.suffix == ".npy":
            return as_tuple(np.load(path, allow_pickle=False), what)
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
        from orchestrator.aot.zoo import load_builtin

        return load_builtin(ref.location, torchvision=torchvision)
    if ref.kind == "upstream":
        from orchestrator.aot.upstream_loading import load_upstream

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
        example = tuple(t for path in inputs for t in load_tensors(path, "input"))
    if example is None:
        raise OrchestratorError(f"model {ref.name} comes without example inputs",
                                "pass --inputs <file.pt|file.npy>")
    model.eval()
    model.requires_grad_(False)
    return model, as_tuple(example, f"inputs of {ref.name}")


def load_calibration(paths: tuple[Path, ...], example: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Calibration samples (one per file), checked against the example inputs' shapes."""
    samples = []
    for path in paths:
        sample = load_tensors(path, "calibration")
        shapes = [tuple(t.shape) for t in sample]
        expected = [tuple(t.shape) for t in example]
        if shapes != expected:
            raise OrchestratorError(f"calibration file {path.name} has shapes {shapes}, the "
                                    f"model takes {expected}",
                                    "save calibration samples with the input shapes")
        samples.append(sample)
    return samples or [example]
