"""`invoke evaluate` names what it needs before anything runs: a target, unless --pte gives
the file's."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.evaluate.evaluate import evaluate
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.options.evaluate import EvaluateRequest


def test_evaluate_without_target_or_pte_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OrchestratorError, match="needs --target") as error:
        evaluate(EvaluateRequest(data=str(tmp_path)), scratch(tmp_path))
    assert error.value.next_step is not None and "--pte" not in error.value.next_step
