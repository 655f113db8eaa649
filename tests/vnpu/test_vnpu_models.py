"""Built-in models and real architectures bit-exact on the host NPU model (vs TOSA)."""

from __future__ import annotations

import pytest
from vnpu_archs import ARCHITECTURES
from vnpu_support import (
    assert_exact,
    assert_listing_matches_vela,
    compiled,
    needs_toolchain,
    verified,
)

BUILTINS_CI = ("add", "convnet", "softmax")


@pytest.mark.slow
@pytest.mark.parametrize("model", BUILTINS_CI)
def test_builtin_model_is_exact(model: str) -> None:
    needs_toolchain()
    assert_exact(verified(model, "ethos-u55-128"))
    assert_listing_matches_vela(compiled(model, "ethos-u55-128"))


@pytest.mark.sweep
@pytest.mark.parametrize("target", ("ethos-u55-128", "ethos-u65-512"))
def test_mv2_is_exact(target: str) -> None:
    needs_toolchain()
    assert_exact(verified("mv2", target))


@pytest.mark.sweep
@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("target", ("ethos-u55-128", "ethos-u65-512"))
def test_architecture_is_exact(architecture: str, target: str) -> None:
    needs_toolchain()
    assert_exact(verified(f"vnpu_archs:{architecture}", target))
