"""Benchmark helper only (the tool itself needs ordinary installs): torchvision from the
registry is a CUDA build whose C extension cannot load with the CPU torch this project pins,
and importing it registers fake kernels for the extension's ops, which then fails. Its model
code is pure Python: importing torchvision while torch.library.register_fake is a no-op
decorator skips those registrations (no model here calls a torchvision C op)."""

from collections.abc import Callable
from typing import Any

import torch


def _no_fake(_op: Any, func: Callable[..., Any] | None = None, /, *_args: Any,
             **_kwargs: Any) -> Any:
    return func if func is not None else (lambda decorated: decorated)


def import_torchvision_without_fake_kernels() -> None:
    """Import torchvision once with register_fake switched off (later imports find it)."""
    original = torch.library.register_fake
    torch.library.register_fake = _no_fake  # type: ignore[assignment]
    try:
        import torchvision  # noqa: F401
    finally:
        torch.library.register_fake = original
