"""TEST HELPER ONLY (the tool itself needs ordinary installs): torchvision 0.28.0 from the
registry is a CUDA build whose C extension cannot load with this machine's CPU torch; its
model definitions are pure Python. Importing it with `torch.library.register_fake` made a
no-op decorator skips the registration of its C operators' fake kernels (nms, roi_align...),
which the classification models never call, so their Python code imports."""

from __future__ import annotations

import sys
from typing import Any

import pytest


def import_torchvision_models_without_c_ops() -> Any:
    """torchvision.models imported for these tests (skip when torchvision is absent)."""
    import torch

    if "torchvision.models" in sys.modules:
        return sys.modules["torchvision.models"]
    for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
        del sys.modules[name]     # a failed import earlier in the session left halves
    original = torch.library.register_fake
    torch.library.register_fake = lambda *_args, **_kwargs: (lambda function: function)
    try:
        import torchvision.models
    except ImportError:
        pytest.skip("torchvision is not installed (pip install -e '.[models]')")
    finally:
        torch.library.register_fake = original
    return torchvision.models
