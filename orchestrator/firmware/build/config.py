"""What one firmware build is: app, platform, NPU config, build type, options -> its key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data
from orchestrator.targets import Platform, Target, load_catalogue
from orchestrator.targets.catalogue import unknown_name_error
from orchestrator.targets.runner_data import default_build_type

FIRMWARE_DATA = DATA_DIR / "firmware.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
FIRMWARE_LAYOUT: dict[str, Layout] = {
    "schema": ANY,
    "layout": {"stack_size": ANY, "heap_size": ANY, "model_area_size": ANY, "input_area_size": ANY},
    "apps": {EACH: {"description": ANY, "options": ANY}},
    "build_types": {"release": ANY, "debug": ANY},
}

LAYOUT_OPTIONS = {"stack_size": "EOR_STACK_SIZE", "heap_size": "EOR_HEAP_SIZE",
                  "model_area_size": "EOR_MODEL_AREA_SIZE",
                  "input_area_size": "EOR_INPUT_AREA_SIZE"}


@lru_cache(maxsize=1)
def firmware_data() -> dict[str, Any]:
    """The parsed orchestrator/data/firmware.toml."""
    return load_data(FIRMWARE_DATA, FIRMWARE_LAYOUT)


def app_names() -> list[str]:
    """Apps the firmware project can build."""
    return list(firmware_data()["apps"])


@dataclass(frozen=True)
class BuildConfig:
    """One configured build of the firmware project."""

    app: str
    platform: Platform
    build_type: str = field(default_factory=default_build_type)
    npu_config: str | None = None
    options: tuple[tuple[str, str], ...] = field(default=())
    # Source trees outside the checkout it compiles (name, dir): prefix-mapped to their name.
    trees: tuple[tuple[str, str], ...] = field(default=())

    @property
    def key(self) -> str:
        """Directory name under scratch/build/: readable parts plus a hash of the options."""
        parts = [self.app, self.platform.name, self.npu_config or "cpu", self.build_type]
        if self.platform.variant:   # another core's build on this board (cortex-m0 on M3)
            parts.insert(2, self.platform.variant.replace("+", "-"))
        if self.options:
            digest = hashlib.sha256(repr(self.options).encode()).hexdigest()[:10]
            parts.append(digest)
        return "-".join(parts)

    def definitions(self) -> dict[str, str]:
        """CMake cache definitions: catalogue regions, layout sizes, then user options."""
        layout = firmware_data()["layout"]
        regions = ";".join(f"{r.name}:0x{r.origin:08x}:0x{r.length:x}"
                           for r in self.platform.regions)
        values = {
            "EOR_APP": self.app,
            "EOR_PLATFORM": self.platform.name,
            "EOR_CPU": self.platform.gcc_cpu,
            "EOR_UART0_BASE": f"0x{self.platform.uart0:08x}",
            "EOR_MEMORY_REGIONS": regions,
            "EOR_NPU_CONFIG": self.npu_config or "none",
            "CMAKE_BUILD_TYPE": firmware_data()["build_types"][self.build_type],
        }
        sizes = {**layout, **dict(self.platform.layout)}   # a smaller board's own sizes
        values.update({cmake: f"0x{sizes[name]:x}" for name, cmake in LAYOUT_OPTIONS.items()})
        values.update(dict(self.options))
        return values


def allowed_options(app: str) -> list[str]:
    """Option names `--option` accepts for `app`."""
    return sorted([*LAYOUT_OPTIONS.values(), *firmware_data()["apps"][app].get("options", [])])


def parse_options(app: str, options: list[str] | None) -> tuple[tuple[str, str], ...]:
    """['NAME=value', ...] -> sorted pairs; unknown names get one line naming the valid ones."""
    valid = allowed_options(app)
    pairs = {}
    for option in options or []:
        name, sep, value = option.partition("=")
        if not sep or not value:
            raise OrchestratorError(f"option '{option}' is not NAME=value",
                                    f"e.g. --option {valid[0]}=<value>")
        if name not in valid:
            raise unknown_name_error(f"{app} build option", name, valid, "invoke build --help")
        pairs[name] = value
    return tuple(sorted(pairs.items()))


def config_for_target(target: str | Target, app: str = "selftest", build_type: str | None = None,
                      options: list[str] | None = None,
                      extra: tuple[tuple[str, str], ...] = ()) -> BuildConfig:
    """The build of `app` for a catalogue target (its platform and NPU configuration); a
    Target may come placed on a simulator's platform (sim.select.placed_on). `extra` are
    definitions the tool itself adds (not user options)."""
    if app not in app_names():
        raise unknown_name_error("app", app, app_names(), "invoke build --help")
    build_type = build_type or default_build_type()
    if build_type not in firmware_data()["build_types"]:
        raise unknown_name_error("build type", build_type, list(firmware_data()["build_types"]),
                                 "invoke build --help")
    resolved = load_catalogue().target(target) if isinstance(target, str) else target
    return BuildConfig(app=app, platform=resolved.platform, build_type=build_type,
                       npu_config=resolved.name if resolved.has_npu else None,
                       options=tuple(sorted({**dict(parse_options(app, options)),
                                             **dict(extra)}.items())))
