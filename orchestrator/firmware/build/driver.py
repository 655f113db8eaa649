"""Build one firmware config into scratch/build/<key>/ and describe the image it produced."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.firmware.build.cmake import compile_firmware, configure
from orchestrator.firmware.build.config import BuildConfig
from orchestrator.firmware.build.image_tables import image_tables
from orchestrator.firmware.build.memory import RegionUse, SectionUse
from orchestrator.firmware.build.tools import resolve_tools
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.setup.filelock import exclusive_lock

MANIFEST = "eor-build.json"
LAYOUT_SYMBOLS = ("model_area", "input_area", "heap", "stack")


@dataclass(frozen=True)
class BuildResult:
    """The product of a build: ELF, map, build id, section and region use."""

    config: BuildConfig
    build_dir: Path
    elf: Path
    map_file: Path
    build_id: str
    sections: tuple[SectionUse, ...]
    regions: tuple[RegionUse, ...]
    layout: dict[str, tuple[int, int]]
    configured: bool
    rebuilt: bool
    toolchain_version: str
    seconds: dict[str, float]

    @property
    def key(self) -> str:
        return self.config.key

    def area(self, name: str) -> tuple[int, int]:
        """(address, size) of a layout area: model_area, input_area, heap or stack."""
        return self.layout[name]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (the build manifest)."""
        return {
            "key": self.key, "app": self.config.app, "platform": self.config.platform.name,
            "npu_config": self.config.npu_config, "build_type": self.config.build_type,
            "options": dict(self.config.options), "elf": str(self.elf),
            "map": str(self.map_file), "build_id": self.build_id,
            "toolchain_version": self.toolchain_version,
            "configured": self.configured, "rebuilt": self.rebuilt, "seconds": self.seconds,
            "layout": {name: {"address": address, "size": size}
                       for name, (address, size) in self.layout.items()},
            "sections": [vars(section) for section in self.sections],
            "regions": [{**vars(region), "free": region.free} for region in self.regions],
        }


def _layout(symbols: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Layout areas from the linker symbols __eor_<name>_start/_end (or limit/top)."""
    areas = {}
    for name in LAYOUT_SYMBOLS:
        start = symbols.get(f"__eor_{name}_start", symbols.get(f"__eor_{name}_limit"))
        end = symbols.get(f"__eor_{name}_end", symbols.get(f"__eor_{name}_top"))
        if start is not None and end is not None:
            areas[name] = (start, end - start)
    return areas


def build_dir_for(scratch: Scratch, config: BuildConfig) -> Path:
    """Where `config` is built."""
    return scratch.build / config.key


def build_firmware(scratch: Scratch, config: BuildConfig, jobs: int = 2,
                   manifest_extra: dict[str, Any] | None = None) -> BuildResult:
    """Configure if needed, build incrementally, then read the ELF and map file (once per
    content: orchestrator.firmware.build.image_tables); the manifest (eor-build.json) also
    gets `manifest_extra` (e.g. the runner's kernel set)."""
    tools = resolve_tools(scratch)
    build_dir = build_dir_for(scratch, config)
    lock = scratch.build / f".{config.key}.lock"
    with exclusive_lock(lock, f"waiting for another build of {config.key} to finish"):
        started = time.perf_counter()
        configured = configure(config, tools, build_dir)
        configured_at = time.perf_counter()
        outcome = compile_firmware(config, tools, build_dir, jobs=jobs)
        built_at = time.perf_counter()
    app_dir = build_dir / "apps" / config.app
    elf, map_file = app_dir / f"{config.app}.elf", app_dir / f"{config.app}.map"
    if not elf.is_file() or not map_file.is_file():
        raise OrchestratorError(f"the build of {config.key} produced no {elf.name}",
                                f"read {build_dir / 'build.log'}")
    image = image_tables(elf, map_file)
    result = BuildResult(
        config=config, build_dir=build_dir, elf=elf, map_file=map_file,
        build_id=image.build_id, sections=image.sections, regions=image.regions,
        layout=_layout(image.symbols),
        configured=configured, rebuilt=outcome.rebuilt,
        toolchain_version=tools.toolchain_version,
        seconds={"configure": round(configured_at - started, 3),
                 "build": round(built_at - configured_at, 3)})
    manifest = {**result.to_json(), **(manifest_extra or {})}
    (build_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str))
    return result
