"""Firmware builds that run an NPU target on the NPU model (firmware/npu_model
behind the driver API in firmware/ethosu_shim): which targets do, the CMake definitions that
configure the model for the target (arch, MACs, cores: from the catalogue), and the model's
version as the result records it."""

from __future__ import annotations

from orchestrator.foundation.hosttools import python_interpreter
from orchestrator.npu_model.version import model_version
from orchestrator.targets.model import EXECUTOR_FVP, EXECUTOR_MODEL, NpuModel, Target

__all__ = ["EXECUTOR_FVP", "EXECUTOR_MODEL", "model_version"]


def placed_model(target: Target) -> NpuModel | None:
    """The NPU model an NPU target uses when its platform has no such NPU (it was
    placed on a model's simulator: sim.select.placed_on); None for real/FVP NPU builds."""
    if target.npu is None or target.npu.name in target.platform.npu_families:
        return None
    return next((model for model in target.npu_models
                 if model.platform == target.platform.name
                 and target.npu.name in model.families), None)


def arch_of(target: Target) -> int:
    """55, 65 or 85: the Ethos-U generation number of the target's family."""
    assert target.npu is not None
    return int(target.npu.name.rsplit("-u", 1)[1])


def model_definitions(target: Target) -> dict[str, str]:
    """CMake definitions configuring the shim for `target` (empty unless it runs on a model);
    the Vela sdist the tables are generated from is fetched here, in this process, on first
    need (never inside the build)."""
    if placed_model(target) is None:
        return {}
    from orchestrator.npu_model.regor_source import vela_sdist  # NPU-model builds only

    assert target.macs is not None
    cores = target.npu_cores or 1
    return {"EOR_NPU_MODEL_ARCH": str(arch_of(target)),
            # per core, as npu_model_npu.macs (ethos-u65-512: 2 cores x 256; a U85 is
            # one NPU named by its total MACs, whatever its weight decoders)
            "EOR_NPU_MODEL_MACS": str(target.macs // cores),
            "EOR_NPU_MODEL_CORES": str(cores),
            "EOR_NPU_MODEL_VERSION": model_version(),
            "NPU_MODEL_PYTHON": python_interpreter(),   # generates the tables from its Vela
            "NPU_MODEL_REGOR_SDIST": str(vela_sdist())}
