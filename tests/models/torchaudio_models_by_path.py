"""TEST HELPER ONLY (the tool itself needs ordinary installs): torchaudio 2.11.0 from the
registry is a CUDA build whose C extension cannot load with this machine's CPU torch, so
`import torchaudio` fails; its model files import only torch. Upstream's examples/models
loaders say `from torchaudio import models`: this puts a stand-in `torchaudio` package in
sys.modules (for the calling test only: monkeypatch undoes it) whose `models` holds the
model files loaded by path, so upstream's loaders run unchanged."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

# torchaudio/models/<file>.py -> the class upstream's loaders take from torchaudio.models
MODEL_CLASSES = {"wav2letter": "Wav2Letter", "conformer": "Conformer"}


def _package(name: str) -> ModuleType:
    module = ModuleType(name)
    module.__path__ = []
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    return module


def _by_path(name: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)   # torch.export finds classes by module
    spec.loader.exec_module(module)
    return module


def install_torchaudio_models_by_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """`torchaudio.models.Wav2Letter` / `.Conformer` importable for this test (skip when
    torchaudio is not installed)."""
    found = importlib.util.find_spec("torchaudio")
    if found is None or not found.submodule_search_locations:
        pytest.skip("torchaudio is not installed (pip install -e '.[models]')")
    folder = Path(next(iter(found.submodule_search_locations))) / "models"
    package, models = _package("torchaudio"), _package("torchaudio.models")
    package.models = models  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torchaudio", package)
    monkeypatch.setitem(sys.modules, "torchaudio.models", models)
    for file, name in MODEL_CLASSES.items():
        module = _by_path(f"torchaudio.models.{file}", folder / f"{file}.py", monkeypatch)
        setattr(models, name, getattr(module, name))
