"""torchvision's MobileNetV3-small with random weights (seeded), for the compile benchmarks.

torchvision's C extension cannot load with the CPU torch this project pins, and its Python
package registers fake kernels for the extension's ops when imported, which then fails.
`torchvision_without_fake_kernels` makes torch.library.register_fake a no-op decorator for
the duration of the import only (no torchvision C op is used by this model)."""

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch


def _no_fake(_op: Any, func: Callable[..., Any] | None = None, /, *_args: Any,
             **_kwargs: Any) -> Any:
    return func if func is not None else (lambda decorated: decorated)


@contextlib.contextmanager
def torchvision_without_fake_kernels() -> Iterator[None]:
    original = torch.library.register_fake
    torch.library.register_fake = _no_fake  # type: ignore[assignment]
    try:
        yield
    finally:
        torch.library.register_fake = original


with torchvision_without_fake_kernels():
    from torchvision.models import mobilenet_v3_small

torch.manual_seed(0)
ModelUnderTest = mobilenet_v3_small(weights=None).eval()
ModelInputs = (torch.randn(1, 3, 224, 224),)
