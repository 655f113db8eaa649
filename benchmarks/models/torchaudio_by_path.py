"""Benchmark helper only (the tool itself needs ordinary installs): torchaudio from the
registry is a CUDA build whose C extension cannot load with the CPU torch this project pins,
but its model files (torchaudio/models/<name>.py) import only torch, so they are loaded by path
instead of through `import torchaudio`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def torchaudio_model_module(name: str) -> ModuleType:
    """torchaudio/models/<name>.py, found and loaded without importing torchaudio."""
    spec = importlib.util.find_spec("torchaudio")
    if spec is None or spec.origin is None:
        raise RuntimeError("torchaudio is not installed (pip install --no-deps torchaudio)")
    path = Path(spec.origin).parent / "models" / f"{name}.py"
    module_name = f"_torchaudio_{name}_by_path"
    loaded = importlib.util.spec_from_file_location(module_name, path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    sys.modules[module_name] = module   # torch.export resolves the classes by module name
    loaded.loader.exec_module(module)
    return module
