"""Allocator statistics (log_mem_status), allocation failures and ELF section sizes."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import Kind

SIZE = r"(\d+|zu)"
# Upstream CMake cache variable that sizes each runner pool (examples/arm/executor_runner).
POOL_SETTINGS = {
    "method_allocator": "ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE",
    "temp_allocator": "ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE",
    "planned_fast_allocator": "ET_ARM_BAREMETAL_FAST_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE",
}
# Zephyr builds size the same pools with Kconfig (executorch zephyr/Kconfig).
ZEPHYR_POOL_SETTINGS = {
    "method_allocator": "CONFIG_EXECUTORCH_METHOD_ALLOCATOR_POOL_SIZE",
    "temp_allocator": "CONFIG_EXECUTORCH_TEMP_ALLOCATOR_POOL_SIZE",
}
# Names runners print for a pool -> the pool (`peak_temp_allocator: used / size` is the temp pool).
POOL_ALIASES = {"peak_temp_allocator": "temp_allocator", "temp": "temp_allocator"}
ZEPHYR = "zephyr"


def pool_details(pool: str, inferred: bool) -> dict[str, object]:
    """Which pool ran out, whether that was inferred, and the setting that sizes it."""
    details: dict[str, object] = {"pool": pool, "pool_inferred": inferred}
    if pool in POOL_SETTINGS:
        details["pool_setting"] = POOL_SETTINGS[pool]
    return details


def pool_advice(pool: str, platform: str | None) -> str:
    """How to enlarge `pool`: Kconfig on Zephyr, CMake bare-metal, both when the log cannot tell."""
    cmake, kconfig = POOL_SETTINGS.get(pool), ZEPHYR_POOL_SETTINGS.get(pool)
    zephyr = (
        f"Zephyr Kconfig: {kconfig}=<bytes> in prj.conf or `west build ... -- -D{kconfig}=<bytes>`"
    )
    if platform == ZEPHYR and kconfig:
        return zephyr
    options = [f"upstream bare-metal CMake: -D{cmake}=<bytes>"] if cmake else []
    if kconfig:
        options.append(zephyr)
    return "; or ".join(options) or "raise its size where the runner defines it"


def pool_name(printed: str) -> str:
    """The pool a printed allocator name refers to."""
    return POOL_ALIASES.get(printed, printed)


def _size(text: str) -> int | None:
    """A printed size, or None when newlib-nano printed `zu` instead of the number."""
    return int(text) if text.isdigit() else None


@rule(r"^model_pte_(program|loaded)_size:\s*(\d+) bytes")
def _pte(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    memory = facts.memory_use()
    if match[1] == "program":
        memory.pte_size = int(match[2])
    else:
        memory.pte_loaded_size = int(match[2])


@rule(r"^(\w+?)(?:_used)?:\s*(\d+) / (\d+)\s+free:")
def _pool(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    pool = facts.pool(pool_name(match[1]))
    pool.used, pool.size = int(match[2]), int(match[3])


@rule(r"^(method_allocator_(?:planned|loaded|input|executor)|planned_fast_used):\s*(\d+) bytes")
def _allocation(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.memory_use().allocations[match[1]] = int(match[2])


@rule(r"^temp_allocator:\s*(\d+)\s*$")
def _temp_pool_size(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.pool("temp_allocator").size = int(match[1])


@rule(
    rf"^Memory allocation failed: {SIZE}B requested \(adjusted for alignment\), {SIZE}B available"
)
def _allocation_failed(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    pool = "temp_allocator" if "method_loaded" in facts.markers else "method_allocator"
    details = pool_details(pool, inferred=True)
    for key, text in (("requested_bytes", match[1]), ("available_bytes", match[2])):
        if _size(text) is not None:
            details[key] = _size(text)
    summary = (
        f"memory allocation failed in the {pool} pool: {match[1]} B requested, "
        f"{match[2]} B available"
    )
    facts.problem(Kind.ALLOC_FAILURE, summary, line, **details)


@rule(rf"^Failed to allocate scratch buffer of {SIZE} bytes from (\w+)")
def _scratch_failed(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    summary = f"the Ethos-U scratch buffer ({match[1]} B) did not fit in {match[2]}"
    details = pool_details(match[2], inferred=False)
    if _size(match[1]) is not None:
        details["requested_bytes"] = _size(match[1])
    earlier = [p for p in facts.problems if p.kind is Kind.ALLOC_FAILURE]
    if earlier and earlier[-1].details.get("requested_bytes") == details.get("requested_bytes"):
        available = earlier[-1].details.get("available_bytes", "unknown")
        earlier[-1].details.update(details)
        earlier[-1].summary = f"{summary} ({available} B available)"
        return
    facts.problem(Kind.ALLOC_FAILURE, summary, line, **details)


@rule(
    r"^Could not allocate memory for (?:memory )?planned buffer(?: with mem_id=\d+,)? size (\d+)"
    r"(?: in (\S+))?"
)
def _planned_failed(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    summary = f"the planned buffer ({match[1]} B) did not fit"
    details = pool_details(match[2] or "method_allocator", inferred=match[2] is None)
    facts.problem(Kind.ALLOC_FAILURE, summary, line, requested_bytes=int(match[1]), **details)


@rule(r"^(?:Could not allocate memory (?:for )?|Failed to allocate )(.*?)[.!]?$")
def _other_allocation_failed(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    sizes = re.findall(r"\d+", match[1])
    details: dict[str, object] = {"requested_bytes": int(sizes[-1])} if sizes else {}
    details.update(pool_details("method_allocator", inferred=True))
    facts.problem(Kind.ALLOC_FAILURE, f"could not allocate {match[1]}", line, **details)


class AllocatorStats(RuleConsumer):
    """Pool sizes and use, per-purpose allocations and allocation failures."""

    et_only = True
    rules = (
        _pte,
        _allocation,
        _temp_pool_size,
        _pool,
        _allocation_failed,
        _scratch_failed,
        _planned_failed,
        _other_allocation_failed,
    )


@rule(r"^executable_(\w+):\s*(\d+) bytes")
def _section(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.memory_use().image_sections[match[1]] = int(match[2])


class ImageSections(RuleConsumer):
    """`executable_text: N bytes` lines printed by upstream's build scripts."""

    rules = (_section,)
