"""A data set for evaluation: the files, the input sets they hold, their labels, and the
split from calibration (imports torch only to read .pt files or run a preprocess hook)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from orchestrator.aot.models.nesting import INPUTS_ROOT, named_leaves
from orchestrator.aot.models.sources import TENSOR_SUFFIXES, ModelRef
from orchestrator.foundation.errors import OrchestratorError

ARRAY_SUFFIXES = TENSOR_SUFFIXES
PREPROCESS_ATTRIBUTE = "preprocess"
LABEL_FILE_NAMES = ("labels.txt", "labels.csv", "labels.npy")


@dataclass(frozen=True)
class InputShape:
    """What one model input takes: numpy dtype name and logical shape."""

    dtype: str
    shape: tuple[int, ...]
    name: str = ""    # the leaf's path in the model's inputs (`inputs[1][0]`)

    def describe(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


def data_files(spec: str, labels: Path | None = None) -> tuple[Path, ...]:
    """A file, or every file under a directory (sorted; label files and hidden files left
    out): one input set each."""
    path = Path(spec).expanduser().resolve()
    if path.is_file():
        return (path,)
    if not path.is_dir():
        raise OrchestratorError(f"data set {spec} does not exist", "check the --data path")
    skip = {labels.resolve()} if labels else set()
    files = tuple(sorted(p for p in path.rglob("*") if p.is_file() and p not in skip
                         and p.name not in LABEL_FILE_NAMES
                         and not any(part.startswith(".") for part in p.relative_to(path).parts)))
    if not files:
        raise OrchestratorError(f"data set directory {spec} holds no files",
                                "put one .npy/.npz/.pt input set per file there")
    return files


def preprocess_hook(model: ModelRef) -> Callable[[Path], Any] | None:
    """The model file's `preprocess(path)` (images, audio -> tensors), if it defines one."""
    if model.kind != "file":
        return None
    from orchestrator.aot.models.loading import import_model_file

    hook = getattr(import_model_file(Path(model.location)), PREPROCESS_ATTRIBUTE, None)
    return hook if callable(hook) else None


def _arrays(value: Any, path: Path) -> tuple[Any, ...]:
    """A tensor / array, or a nesting of tuples, lists and dicts of them -> numpy arrays,
    flattened in the program's order (one per model input leaf)."""
    import numpy as np

    arrays = []
    for name, item in named_leaves(value, INPUTS_ROOT):
        if hasattr(item, "detach"):
            item = item.detach().cpu().numpy()
        if not isinstance(item, np.ndarray):
            raise OrchestratorError(f"{path.name}: {name} is a {type(item).__name__}, not a "
                                    "tensor", "save one input set per file: a tensor, or a "
                                    "tuple (nested tuples/lists/dicts allowed) of tensors")
        arrays.append(np.ascontiguousarray(item))
    return tuple(arrays)


def _npz_arrays(archive: Any, names: Sequence[str]) -> list[Any]:
    """An .npz's arrays: by leaf path when its keys are the model's input names
    (`inputs[1][0]`), else in the archive's order."""
    keys = list(archive.files)
    if names and sorted(keys) == sorted(names):
        return [archive[name] for name in names]
    return [archive[key] for key in keys]


def read_input_set(path: Path, hook: Callable[[Path], Any] | None,
                   names: Sequence[str] = ()) -> tuple[Any, ...]:
    """One input set from `path`, flattened: .npy (one input), .npz (arrays keyed by the
    inputs' leaf paths, or in order), .pt/.pth (torch.save of a tensor or of a nested tuple),
    anything else through the model's preprocess hook."""
    import numpy as np

    try:
        if path.suffix == ".npy":
            return _arrays(np.load(path, allow_pickle=False), path)
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as archive:
                return _arrays(_npz_arrays(archive, names), path)
        if path.suffix in (".pt", ".pth"):
            import torch

            return _arrays(torch.load(path, weights_only=True), path)
    except OrchestratorError:
        raise
    except Exception as error:  # noqa: BLE001 - any loader failure is the user's file
        raise OrchestratorError(f"cannot read input set {path}: {error}",
                                "save it with numpy.save/savez or torch.save") from None
    if hook is None:
        raise OrchestratorError(f"{path.name} is not a tensor file (.npy/.npz/.pt) and the "
                                "model defines no preprocess(path)",
                                "add `def preprocess(path): return tensor` to the model file, "
                                "or convert the data set to .npy")
    try:
        return _arrays(hook(path), path)
    except OrchestratorError:
        raise
    except Exception as error:  # noqa: BLE001 - user code
        raise OrchestratorError(f"preprocess({path.name}) failed: {type(error).__name__}: "
                                f"{error}", "fix the model file's preprocess hook") from None


def misfit(arrays: Sequence[Any], wanted: Sequence[InputShape]) -> str | None:
    """Why an input set does not fit the model's inputs (None: it fits)."""
    if len(arrays) != len(wanted):
        return f"holds {len(arrays)} tensor(s), the model takes {len(wanted)}"
    for position, (array, want) in enumerate(zip(arrays, wanted, strict=True)):
        got = InputShape(array.dtype.name, tuple(array.shape))
        if got != replace(want, name=""):
            return (f"input {want.name or position} is {got.describe()}, the model takes "
                    f"{want.describe()}")
    return None


def load_input_sets(files: Sequence[Path], wanted: Sequence[InputShape],
                    hook: Callable[[Path], Any] | None, rerun: str) -> list[tuple[Any, ...]]:
    """Every file's input set, each checked against the model's inputs before anything runs:
    the first that does not fit is refused in one line."""
    sets = []
    for position, path in enumerate(files):
        arrays = read_input_set(path, hook, [want.name for want in wanted if want.name])
        reason = misfit(arrays, wanted)
        if reason:
            raise OrchestratorError(f"input set {position} ({path.name}) {reason}",
                                    f"convert it to the model's inputs, then {rerun}")
        sets.append(arrays)
    return sets


def read_labels(path: Path, files: Sequence[Path]) -> list[int]:
    """One integer label per data file: a .npy array in file order, or text lines of
    `label` (file order) or `name label` / `name,label` (any order, by file name)."""
    import numpy as np

    if path.suffix == ".npy":
        values = [int(v) for v in np.load(path, allow_pickle=False).reshape(-1)]
        return _labels_in_order(values, files, path)
    lines = [line.replace(",", " ").split() for line in path.read_text().splitlines()]
    lines = [fields for fields in lines if fields and not fields[0].startswith("#")]
    try:
        if all(len(fields) == 1 for fields in lines):
            return _labels_in_order([int(fields[0]) for fields in lines], files, path)
        by_name = {fields[0]: int(fields[-1]) for fields in lines}
    except ValueError:
        raise OrchestratorError(f"labels file {path.name} has a label that is not an integer",
                                "write one integer class per line") from None
    missing = [f.name for f in files if f.name not in by_name and f.stem not in by_name]
    if missing:
        raise OrchestratorError(f"labels file {path.name} has no label for {missing[0]}"
                                f"{f' and {len(missing) - 1} more' if len(missing) > 1 else ''}",
                                "add a `name label` line for every data file")
    return [by_name.get(f.name, by_name.get(f.stem, -1)) for f in files]


def _labels_in_order(values: list[int], files: Sequence[Path], path: Path) -> list[int]:
    if len(values) < len(files):
        raise OrchestratorError(f"labels file {path.name} has {len(values)} labels for "
                                f"{len(files)} data files", "give one label per data file")
    return values[:len(files)]


def calibration_files(calibration: Sequence[Path], evaluation: Sequence[Path],
                      overlap: bool) -> tuple[Path, ...]:
    """The calibration files without the evaluated ones (unless `overlap`): a data set used
    for both never calibrates on what it is then scored on."""
    if overlap:
        return tuple(calibration)
    evaluated = {path.resolve() for path in evaluation}
    kept = tuple(path for path in calibration if path.resolve() not in evaluated)
    if calibration and not kept:
        raise OrchestratorError("every calibration file is also evaluated, so nothing is left "
                                "to calibrate on", "lower --limit, calibrate on other files, "
                                "or allow it with --calibration-overlap")
    return kept
