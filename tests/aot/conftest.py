"""Session-wide real compiles (one process, one tmp scratch) shared by the slow AOT tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from aot_cases import MODEL_FILES, REAL_CASES, needs_executorch

from orchestrator.aot import Product, compile_many, request_for
from orchestrator.foundation.paths import Scratch, scratch


@pytest.fixture(scope="session")
def aot_scratch(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    """A private scratch tree for this test session."""
    return scratch(tmp_path_factory.mktemp("aot-scratch")).ensure()


@pytest.fixture(scope="session")
def compiled(aot_scratch: Scratch) -> dict[tuple[str, str], Product]:
    """add and convnet for two NPU targets and cortex-m55, compiled once in this process."""
    needs_executorch()
    requests = [request_for(model, target) for model, target in REAL_CASES]
    items = compile_many(requests, aot_scratch, keep_going=False)
    return {(item.request.model.name, item.request.options.target): item.product
            for item in items}


@pytest.fixture
def model_file() -> Callable[[str], Path]:
    """Path of a test model file under tests/aot/models/."""
    return lambda name: MODEL_FILES / name
