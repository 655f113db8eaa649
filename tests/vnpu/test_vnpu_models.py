"""Built-in models and real architectures bit-exact on the host NPU model (vs TOSA), every
command decoded as Vela lists it; the full set on every U55/U65 configuration with -m sweep."""

from __future__ import annotations

import pytest
from vnpu_archs import ARCHITECTURES
from vnpu_support import (
    U55_U65_TARGETS,
    assert_exact,
    assert_listing_matches_vela,
    compiled,
    needs_toolchain,
    verified,
)

from orchestrator.aot.sources import BUILTINS

BUILTINS_CI = ("add", "convnet", "softmax")


@pytest.mark.slow
@pytest.mark.parametrize("model", BUILTINS_CI)
def test_builtin_model_is_exact(model: str) -> None:
    _check(model, "ethos-u55-128")


def _check(model: str, target: str) -> None:
    needs_toolchain()
    assert_exact(verified(model, target))
    assert_listing_matches_vela(compiled(model, target))


@pytest.mark.sweep
@pytest.mark.parametrize("model", BUILTINS)
@pytest.mark.parametrize("target", U55_U65_TARGETS)
def test_builtin_model_is_exact_everywhere(model: str, target: str) -> None:
    _check(model, target)


@pytest.mark.sweep
@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("target", U55_U65_TARGETS)
def test_architecture_is_exact(architecture: str, target: str) -> None:
    _check(f"vnpu_archs:{architecture}", target)
