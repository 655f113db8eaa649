"""Result documents from real runs: real transcripts parsed by the project's log parser, and
one built from a transcript fragment's numbers (sources in fixtures/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.results import (
    Classification,
    Kind,
    MemoryUse,
    PoolUse,
    RunResult,
    Status,
    TargetInfo,
    VelaEstimate,
    Versions,
)

TRANSCRIPTS = Path(__file__).parents[1] / "fixtures" / "transcripts"
FVP_VERSIONS = Versions(executorch="0.5.0", simulator="FVP_Corstone_SSE-320_Ethos-U85")


def _ok(model: str, target: str, simulator: str) -> RunResult:
    return RunResult(status=Status.PASS, reason="ran to completion",
                     classification=Classification(Kind.SUCCESS, "completed", "none"),
                     model=model, target=TargetInfo(target, simulator), versions=FVP_VERSIONS)


def parsed(name: str, model: str, target: str, simulator: str) -> RunResult:
    """A real transcript from tests/fixtures/transcripts parsed by `invoke parse`'s parser."""
    from orchestrator.parse.result import parse_log

    result = parse_log(TRANSCRIPTS / name)
    result.model, result.target = model, TargetInfo(target, simulator)
    return result


def mv2_u85_128() -> RunResult:
    """et-docs-v0.5.0-1.log: MV2 on Corstone-320 U85 with the PMU and memory blocks (pass)."""
    return parsed("et-docs-v0.5.0-1.log", "mv2", "ethos-u85-128", "fvp-corstone-320")


def add_u85_128() -> RunResult:
    """bujset-intro-zephyr-1.log: add on Corstone-320 U85 via run.sh (pass, no metrics)."""
    return parsed("bujset-intro-zephyr-1.log", "add", "ethos-u85-128", "fvp-corstone-320")


def add_u55_128() -> RunResult:
    """et-issue-9356-1.log: add on Corstone-300 U55, cut after cntr0 (an incomplete run)."""
    return parsed("et-issue-9356-1.log", "add", "ethos-u55-128", "fvp-corstone-300-u55")


def failed(model: str, target: str) -> RunResult:
    """et-issue-7177-3.log: a method load failure from an allocation that did not fit."""
    return parsed("et-issue-7177-3.log", model, target, "qemu")


def conv_m55() -> RunResult:
    """et-pr-16580-1.log: cortex_m conv2d_x3 on Corstone-300 Cortex-M55 (memory block)."""
    result = _ok("conv", "cortex-m55", "qemu")
    result.memory = MemoryUse(pte_size=10208, pools={
        "input_file_allocator": PoolUse(10976, 62914560),
        "method_allocator": PoolUse(5433, 62914560)}, allocations={"planned": 2560})
    return result


def vela_mv2_u85_128() -> VelaEstimate:
    """lp-visualizing-ethosu-1.log: Vela's summary for MV2 on Ethos_U85_128, as the compile
    stage parses it and the regression wiring maps it."""
    from orchestrator.aot.vela.report import parse_vela_output
    from orchestrator.regress.lanes.real_stages import vela_estimate

    text = (TRANSCRIPTS / "lp-visualizing-ethosu-1.log").read_text()
    estimate = vela_estimate(parse_vela_output(text)["totals"])
    assert estimate is not None
    return estimate
