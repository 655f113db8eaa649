"""The coverage sweep (-m sweep): every case of the NPU-model case modules, generated from their
CASES tables, compiled for ethos-u55-128 and ethos-u85-128, bit-exact against the TOSA
reference; the register values each case's streams write (orchestrator/npu_model/stream_values.py)
are appended to scratch/coverage/reached.jsonl, which `python -m orchestrator.npu_model.coverage_gen
--reached scratch/coverage/reached.jsonl` folds into the coverage table (the tests that reach
each value). A value a case reaches must be one the table says the model implements; a value
the table says a case reaches must still be reached by it."""

from __future__ import annotations

import importlib
import json

import pytest
from npu_model_support import check_case, family_of, needs_toolchain, written_values
from npu_model_support import test_scratch as support_scratch

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model import coverage

TARGETS = ("ethos-u55-128", "ethos-u85-128")
# case module -> (quantize, targets it is written for)
MODULES = {"npu_model_opcases": ("int8", tuple(TARGETS)),
           "npu_model_cases_activation": ("int8", tuple(TARGETS)),
           "npu_model_cases_ew": ("int8", tuple(TARGETS)),
           "npu_model_cases_geometry": ("int8", tuple(TARGETS)),
           "npu_model_cases_int16": ("a16w8", tuple(TARGETS)),
           "npu_model_cases_u85": ("int8", ("ethos-u85-128",))}
REACHED_FILE = "coverage/reached.jsonl"


def _params() -> list[object]:
    """Every case on its targets; a case module's HARDWARE_DEPARTS (where the NPU departs
    from TOSA and the model follows the NPU) are strict xfails; its VELA_FAULTS (the pinned
    Vela writes a known faulty stream for the family) must stop naming the fault, then xfail."""
    params = []
    for module, (quantize, targets) in MODULES.items():
        cases = importlib.import_module(module)
        departs = getattr(cases, "HARDWARE_DEPARTS", {})
        for case in cases.CASES:
            marks = [pytest.mark.xfail(strict=True, reason=departs[case])] \
                if case in departs else []
            params += [pytest.param(f"{module}:{case}", target, quantize, marks=marks,
                                    id=f"{module}:{case}-{target}-{quantize}")
                       for target in targets]
    return params


def known_vela_fault(model: str, target: str) -> bool:
    """Whether the pinned Vela's stream of `model` has a known fault on `target` (its case
    module's VELA_FAULTS)."""
    module, case = model.split(":")
    family = getattr(importlib.import_module(module), "VELA_FAULTS", {}).get(case)
    return family is not None and target.startswith(f"{family}-")


def _record(test_id: str, family: str, values: set[tuple[str, str, str]]) -> None:
    path = support_scratch().root / REACHED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"test": test_id, "family": family, "values": sorted(values)})
    with path.open("a") as handle:   # one line per test: appends do not interleave
        handle.write(line + "\n")


@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target", "quantize"), _params())
def test_sweep_coverage(model: str, target: str, quantize: str,
                        request: pytest.FixtureRequest) -> None:
    needs_toolchain()
    if known_vela_fault(model, target):
        with pytest.raises(OrchestratorError, match="a known fault of Vela ") as stop:
            check_case(model, target, quantize)
        pytest.xfail(f"{stop.value.cause}; next: {stop.value.next_step}")
    check_case(model, target, quantize)
    family = family_of(target)
    values = written_values(model, target, quantize)
    test_id = f"tests/npu_model/test_npu_model_coverage_sweep.py::{request.node.name}"
    _record(test_id, family, values)
    rows = {(e.command, e.field, e.value): e for e in coverage.entries() if e.family == family}
    unmodelled = [v for v in values if rows[v].model == "refused"]
    assert not unmodelled, f"exact, yet the table says the model refuses {unmodelled}"
    claimed = {k for k, e in rows.items() if test_id in e.tests}
    assert claimed <= values, f"the table says this test reaches {sorted(claimed - values)}"
