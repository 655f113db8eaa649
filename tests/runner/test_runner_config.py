"""Runner data: pools per memory mode with overrides, kernel sets, sizes from the CLI."""

from __future__ import annotations

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.fields import from_cli
from orchestrator.options.fields import size as parse_size
from orchestrator.options.run import RunnerSettings
from orchestrator.runner.config import kernel_ops, memory_mode_of, pools_for, runner_data
from orchestrator.targets import load_catalogue


def test_every_npu_memory_mode_has_pools():
    catalogue = load_catalogue()
    modes = {mode for family in catalogue.families.values() for mode in family.memory_modes}
    assert modes <= set(runner_data().pools)


def test_memory_mode_defaults_and_validation():
    catalogue = load_catalogue()
    assert memory_mode_of(catalogue.target("cortex-m55"), None) == "cpu"
    assert memory_mode_of(catalogue.target("ethos-u85-128"), None) == "Dedicated_Sram_384KB"
    with pytest.raises(OrchestratorError, match="not supported by ethos-u55-128"):
        memory_mode_of(catalogue.target("ethos-u55-128"), "Dedicated_Sram")


def test_pool_overrides_and_placement():
    base = pools_for("Shared_Sram")
    assert base.temp_pool_region == "FAST" and base.fast_scratch_size == 0
    bigger = pools_for("Shared_Sram", method_pool=64 << 20)
    assert bigger.method_pool_size == 64 << 20 and bigger.temp_pool_size == base.temp_pool_size
    assert pools_for("Dedicated_Sram").fast_scratch_size == 0x60000


def test_kernel_sets():
    assert kernel_ops("all") == "ALL" and kernel_ops("model") == "MODEL"
    assert runner_data().default_kernel_set == "model"
    assert runner_data().regress_kernel_set == "all"
    assert "aten::convolution.out" in kernel_ops("common")
    with pytest.raises(OrchestratorError, match="unknown kernel set tiny"):
        kernel_ops("tiny")


def test_sizes_and_thresholds_from_cli_strings():
    assert parse_size("0x200000", "--temp-pool") == 0x200000
    assert parse_size("512K", "--temp-pool") == 512 * 1024
    assert parse_size("16M", "--method-pool") == 16 << 20
    with pytest.raises(OrchestratorError, match="--temp-pool lots is not a size"):
        parse_size("lots", "--temp-pool")
    request = from_cli(RunnerSettings, {"atol": "0.01", "top1": True, "method_pool": "8M"})
    assert request.thresholds.atol == 0.01 and request.thresholds.require_top1
    assert request.method_pool == 8 << 20 and request.kernel_set == "model"


def test_named_kernel_sets_only_list_kernels_that_exist():
    from orchestrator.aot.lower.kernels import runner_kernels

    known = runner_kernels()
    if not known:
        pytest.skip("the executorch package (its kernel yaml files) is not installed")
    for name, ops in runner_data().kernel_sets.items():
        if ops not in ("ALL", "MODEL"):
            assert [op for op in ops if op not in known] == [], name
