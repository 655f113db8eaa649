"""Before building a runner: does the compiled model fit the board at all? A Cortex-M board's
areas and pools are fixed by its RAM (targets.toml layout / pools); a model that needs more is
refused naming the board's region and the boards whose RAM holds it (mv2 on the M3 board)."""

from __future__ import annotations

from orchestrator.firmware.build.config import firmware_data
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.runner.config import Pools, pools_for
from orchestrator.runner.precheck import Need, needs_for, program_facts_of
from orchestrator.targets import Platform, Target, load_catalogue


def _capacity(board: Platform) -> tuple[Pools, int, int]:
    """(pools, model area, input area) a CPU runner gets on `board`."""
    sizes = {**firmware_data()["layout"], **dict(board.layout)}
    return pools_for("cpu", board=board), sizes["model_area_size"], sizes["input_area_size"]


def _misfits(board: Platform, facts: dict[str, object], pte_bytes: int,
             input_bytes: int) -> list[Need]:
    pools, model_area, input_area = _capacity(board)
    return [need for need in needs_for(facts, pte_bytes, input_bytes, pools, model_area,
                                       input_area) if not need.fits]


def _ram_region(board: Platform) -> str:
    """The board's largest RAM region, where the areas and pools live ('PSRAM 16 MiB')."""
    region = max(board.regions, key=lambda r: r.length)
    return f"{region.name} ({region.length // (1024 * 1024)} MiB at 0x{region.origin:08x})"


def check_board_fits(target: Target, manifest: dict[str, object], pte_bytes: int,
                     input_bytes: int) -> None:
    """Refuse a CPU target's model its board cannot hold, before any firmware is built."""
    if target.cpu_spec is None or not target.platform.layout:
        return   # NPU targets and the Corstone maps: the run-time precheck names the option
    facts = dict(program_facts_of(manifest))
    misfit = _misfits(target.platform, facts, pte_bytes, input_bytes)
    if not misfit:
        return
    need = misfit[0]
    boards = sorted({t.name for t in load_catalogue() if t.cpu_spec is not None
                     and not _misfits(t.platform, facts, pte_bytes, input_bytes)})
    raise OrchestratorError(
        f"{need.what} needs {need.needs} B but {target.name}'s board {target.platform.name} "
        f"has {need.has} B for it in {_ram_region(target.platform)}",
        f"invoke run --target {boards[0]} (targets whose board fits it: "
        f"{', '.join(boards)})" if boards else "use a smaller model: no Cortex-M board here "
        "holds it")
