"""The host refuses a model that does not fit, naming the option that fixes it."""

from __future__ import annotations

import pytest

from orchestrator.firmware.build.config import firmware_data
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.runner.config import pools_for, runner_data
from orchestrator.runner.precheck import METHOD_OVERHEAD, check_fits, needs_for, program_facts_of
from orchestrator.targets import load_catalogue

MANIFEST = {"program": {"methods": {"forward": {"planned_bytes": 3 * 1024 * 1024}},
                        "max_vela_scratch_bytes": 2 * 1024 * 1024}}


def test_facts_are_found_in_a_compile_manifest():
    assert program_facts_of(MANIFEST)["max_vela_scratch_bytes"] == 2 * 1024 * 1024


def test_fitting_model_passes():
    pools = pools_for("Dedicated_Sram_384KB")
    needs = needs_for(program_facts_of(MANIFEST), 100_000, 4_096, pools, 0x2000000, 0x800000)
    assert all(need.fits for need in needs)
    check_fits(needs, "invoke run --target ethos-u85-128 --model mv2")


def test_temp_pool_too_small_names_the_option():
    pools = pools_for("Shared_Sram", temp_pool=1024 * 1024)
    needs = needs_for(program_facts_of(MANIFEST), 100_000, 4_096, pools, 0x2000000, 0x800000)
    with pytest.raises(OrchestratorError) as error:
        check_fits(needs, "invoke run --target ethos-u55-128 --model mv2")
    message = error.value.message
    assert "temp pool (Ethos-U scratch) needs 2.00 MiB (2097152 B), has 1.00 MiB" in message
    assert "invoke run --target ethos-u55-128 --model mv2 --temp-pool 0x200000" in message


def test_method_pool_counts_planned_memory_plus_overhead():
    pools = pools_for("cpu", method_pool=3 * 1024 * 1024)
    needs = needs_for(program_facts_of(MANIFEST), 1, 1, pools, 0x2000000, 0x800000)
    method = next(n for n in needs if n.option == "--method-pool")
    assert method.needs == 3 * 1024 * 1024 + METHOD_OVERHEAD and not method.fits


def test_model_larger_than_the_area_is_refused():
    needs = needs_for({}, 0x2000000, 16, pools_for("cpu"), 0x2000000, 0x800000)
    with pytest.raises(OrchestratorError, match="--model-area"):
        check_fits(needs, "invoke run")


def test_npu_pools_are_upstreams_and_fit_every_fvp_platform():
    # ExecuTorch v1.4.1: method pool 60 MiB (arm_executor_runner.cpp), temp pool 2 MiB in
    # SRAM, 64 MiB in DDR + 384 KiB fast scratch for Dedicated_Sram (executor_runner
    # CMakeLists.txt 180-193).
    layout, code = firmware_data()["layout"], runner_data().code_size
    for target in (t for t in load_catalogue() if t.has_npu):
        for mode in target.npu.memory_modes:
            pools = pools_for(mode)
            assert pools.method_pool_size == 60 * 1024 * 1024
            dedicated = mode.startswith("Dedicated_Sram")
            assert pools.temp_pool_size == (64 if dedicated else 2) * 1024 * 1024
            fast = pools.fast_scratch_size + (0 if dedicated else pools.temp_pool_size)
            assert fast <= target.platform.region("SRAM").length, (target.name, mode)
            bulk = (layout["model_area_size"] + layout["input_area_size"]
                    + layout["heap_size"] + pools.method_pool_size
                    + (pools.temp_pool_size if dedicated else 0))
            assert bulk + code <= target.platform.region("DDR").length, (target.name, mode)


def test_default_npu_pools_still_refuse_a_scratch_that_cannot_fit():
    manifest = {"program": {"max_vela_scratch_bytes": 3 * 1024 * 1024}}
    needs = needs_for(program_facts_of(manifest), 1, 1, pools_for("Shared_Sram"),
                      0x2000000, 0x800000)
    with pytest.raises(OrchestratorError, match="--temp-pool 0x300000"):
        check_fits(needs, "invoke run --target ethos-u55-128 --model mv2")
