"""The run plan: `place` is the one answer to "can this target run on this simulator, and with
which NPU executor" (read from the catalogue, so a family another branch adds to [npu_models]
follows); a plan carries the binary, the limits, the simulator options as one object and the
versions it fixes; each kind of simulator is one module implementing the interface."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.results.model import NPU_MODEL_VERSION
from orchestrator.sim.kinds import SimOptions, SimulatorKind, kind_of
from orchestrator.sim.plan import place, plan_placed
from orchestrator.targets import load_catalogue
from orchestrator.targets.model import EXECUTOR_FVP, EXECUTOR_MODEL

CATALOGUE = load_catalogue()
PAIRS = [(target, simulator) for target in sorted(CATALOGUE.targets)
         for simulator in sorted(CATALOGUE.simulators)]


@pytest.mark.parametrize("target_name, simulator_name", PAIRS)
def test_place_answers_every_target_on_every_simulator(target_name, simulator_name):
    target, simulator = CATALOGUE.target(target_name), CATALOGUE.simulators[simulator_name]
    model = target.npu_model_on(simulator) if target.has_npu else None
    runs_natively = simulator in target.simulators
    try:
        placement = place(target, simulator_name)
    except OrchestratorError as error:
        assert not (runs_natively and (simulator.capabilities.npu or not target.has_npu))
        assert model is None or model.platform not in simulator.platforms
        assert error.cause and error.next_step
        return
    # `--sim qemu` places a Cortex-M target on its own board's QEMU (mps2-an385 for an M3)
    assert placement.simulator == simulator or (
        placement.simulator.kind == simulator.kind and placement.simulator in target.simulators)
    if not target.has_npu:
        # on the simulator of another of its boards (cortex-m33 on mps3-an524) it moves there
        assert placement.npu_executor is None
        assert placement.target.platform == target.board_for(placement.simulator)
        assert (placement.target == target) == (placement.target.platform == target.platform)
    elif simulator.capabilities.npu:
        assert placement.npu_executor == EXECUTOR_FVP and placement.target == target
    else:
        assert model is not None and placement.npu_model == model
        assert placement.npu_executor == EXECUTOR_MODEL
        assert placement.target.platform.name == model.platform
        assert placement.target.macs == target.macs


def test_an_upstream_elf_is_never_placed_on_a_npu_model():
    target = next(t for t in CATALOGUE.targets.values()
                  if t.npu_model_on(CATALOGUE.simulator("qemu")) is not None)
    assert place(target, "qemu").npu_executor == EXECUTOR_MODEL
    with pytest.raises(OrchestratorError, match="has no Ethos-U NPU"):
        place(target, "qemu", npu_model=False)


def test_every_simulator_kind_in_the_catalogue_has_one_implementation():
    for simulator in CATALOGUE.simulators.values():
        kind = kind_of(simulator)
        assert isinstance(kind, SimulatorKind)


def test_a_kind_without_a_module_is_one_sentence():
    from dataclasses import replace

    renode = replace(CATALOGUE.simulator("qemu"), name="renode", kind="renode")
    with pytest.raises(OrchestratorError) as caught:
        kind_of(renode)
    assert "add orchestrator/sim/renode.py" in caught.value.message


def test_plan_carries_options_limits_and_the_model_version(tmp_path):
    target = next(t for t in CATALOGUE.targets.values()
                  if t.npu_model_on(CATALOGUE.simulator("qemu")) is not None)
    binary = Path("/nonexistent/qemu-system-arm")
    plan = plan_placed(None, place(target, "qemu"),
                       SimOptions(timeout_s=12.0, idle_timeout_s=0.0), binary=binary)
    assert plan.binary == binary and plan.target.platform.name == "mps3-an547"
    assert plan.limits.deadline_s == 12.0 and plan.limits.idle_s is None
    assert plan.options.macs == target.macs
    assert plan.versions.simulator == "qemu-system-arm"
    assert plan.versions.extra[NPU_MODEL_VERSION].startswith("npu_model ")
    command = plan.kind.command(plan.invocation(tmp_path / "x.elf", tmp_path))
    assert command[0] == str(binary) and "mps3-an547" in command
