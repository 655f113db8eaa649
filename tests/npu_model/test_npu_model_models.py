"""Built-in models and real architectures bit-exact on the NPU model (vs TOSA), every
command decoded as Vela lists it; the full set on every U55/U65 configuration with -m sweep."""

from __future__ import annotations

import pytest
from npu_model_archs import ARCHITECTURES
from npu_model_support import (
    U55_U65_TARGETS,
    check_case,
)

from orchestrator.aot.models.sources import BUILTINS

BUILTINS_CI = ("add", "convnet", "softmax")


@pytest.mark.slow
@pytest.mark.parametrize("model", BUILTINS_CI)
def test_builtin_model_is_exact(model: str) -> None:
    check_case(model, "ethos-u55-128")


@pytest.mark.sweep
@pytest.mark.parametrize("model", BUILTINS)
@pytest.mark.parametrize("target", U55_U65_TARGETS)
def test_builtin_model_is_exact_everywhere(model: str, target: str) -> None:
    check_case(model, target)


@pytest.mark.sweep
@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("target", U55_U65_TARGETS)
def test_architecture_is_exact(architecture: str, target: str) -> None:
    check_case(f"npu_model_archs:{architecture}", target)
