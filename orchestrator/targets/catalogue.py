"""Load and validate the target catalogue (orchestrator/data/targets.toml)."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, Layout, load_data
from orchestrator.targets.model import (
    Capabilities,
    CpuSpec,
    Limits,
    NpuFamily,
    NpuModel,
    Platform,
    Region,
    Simulator,
    Target,
)

CATALOGUE_PATH = DATA_DIR / "targets.toml"
SCHEMA_VERSION = 1

# Required keys and their types per section; optional keys follow with their types.
_PLATFORM_KEYS = {"description": str, "cpu": str, "gcc_cpu": str, "uart0": int,
                  "regions": list, "npu_families": list}
_PLATFORM_OPTIONAL = {"npu_base": int, "npu_irq": int, "layout": dict, "pools": dict}
_PLATFORM_LAYOUT_KEYS = ("stack_size", "heap_size", "model_area_size", "input_area_size")
_PLATFORM_POOL_KEYS = ("method_pool_size", "temp_pool_size")
_CPU_KEYS = {"arch": str, "gcc_cpu": str, "fpu": str, "float_abi": str, "cmsis_nn": str,
             "cmsis_nn_allowed": list}
_CPU_OPTIONAL = {"isa_gcc_cpu": dict}
CMSIS_NN_BACKENDS = ("scalar", "dsp", "mve")   # SCALAR < DSP < MVE (upstream's order)
_FLOAT_ABIS = ("soft", "softfp", "hard")
_SIMULATOR_KEYS = {"kind": str, "binary": str, "platforms": list, "capabilities": dict,
                   "limits": dict}
_SIMULATOR_OPTIONAL = {"machine": str, "npu_prefix": str, "board_prefix": str,
                       "cpu_prefix": str, "extra_params": list}
_LIMIT_KEYS = {"deadline_s": int, "idle_s": int}
_LIMIT_OPTIONAL = {"host_grace_s": int}
_CAPABILITY_KEYS = {"npu": bool, "semihosting": bool, "data_loading": bool}
_FAMILY_KEYS = {"macs": list, "platform": str, "simulator": str, "tosa_spec": str,
                "system_config": str,
                "memory_mode": str, "system_configs": list, "memory_modes": list,
                "quantization": list, "pmu_counters": int, "pmu_events": list}
_FAMILY_OPTIONAL = {"cores": dict}
_NPU_MODEL_KEYS = {"description": str, "library": str, "simulators": list, "platform": str,
                   "families": list}
_NPU_MODEL_OPTIONAL = {"refused": dict}
_CPU_TARGET_KEYS = {"platform": str, "simulators": list, "quantization": list}
_CPU_TARGET_OPTIONAL = {"boards": list}
_REGION_KEYS = {"name": str, "origin": int, "length": int}
_SIMULATOR_KINDS = ("qemu", "fvp")
# The file's sections (each entry's keys are checked with its types by _check_keys).
CATALOGUE_LAYOUT: dict[str, Layout] = {section: ANY for section in (
    "schema", "platforms", "simulators", "npu_families", "npu_models", "cpus", "cpu_targets")}


class CatalogueError(OrchestratorError):
    """The catalogue data is invalid; the message names the entry and the rule."""


def _check_keys(entry: str, table: Mapping[str, Any], required: Mapping[str, type],
                optional: Mapping[str, type] | None = None) -> None:
    optional = optional or {}
    for key, kind in required.items():
        if key not in table:
            raise CatalogueError(f"catalogue entry {entry}: missing key '{key}'",
                                 f"fix {CATALOGUE_PATH.name}")
        _check_type(entry, key, table[key], kind)
    for key, value in table.items():
        if key in required:
            continue
        if key not in optional:
            raise CatalogueError(f"catalogue entry {entry}: unknown key '{key}'",
                                 f"fix {CATALOGUE_PATH.name}")
        _check_type(entry, key, value, optional[key])


def _check_type(entry: str, key: str, value: Any, kind: type) -> None:
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise CatalogueError(
            f"catalogue entry {entry}: key '{key}' must be {kind.__name__}, "
            f"got {type(value).__name__}", f"fix {CATALOGUE_PATH.name}")


def _require(condition: bool, entry: str, rule: str) -> None:
    if not condition:
        raise CatalogueError(f"catalogue entry {entry}: {rule}", f"fix {CATALOGUE_PATH.name}")


def _parse_platform(name: str, table: Mapping[str, Any]) -> Platform:
    entry = f"platforms.{name}"
    _check_keys(entry, table, _PLATFORM_KEYS, _PLATFORM_OPTIONAL)
    regions = []
    for index, raw in enumerate(table["regions"]):
        _check_keys(f"{entry}.regions[{index}]", raw, _REGION_KEYS)
        regions.append(Region(raw["name"], raw["origin"], raw["length"]))
    names = [region.name for region in regions]
    _require(len(set(names)) == len(names), entry, "duplicate region name")
    ordered = sorted(regions, key=lambda region: region.origin)
    for low, high in zip(ordered, ordered[1:], strict=False):
        _require(low.end <= high.origin, entry, f"regions {low.name} and {high.name} overlap")
    if table["npu_families"]:
        _require("npu_base" in table and "npu_irq" in table, entry,
                 "a platform with NPU families needs npu_base and npu_irq")
    return Platform(name=name, description=table["description"], cpu=table["cpu"],
                    gcc_cpu=table["gcc_cpu"], uart0=table["uart0"], regions=tuple(regions),
                    npu_families=tuple(table["npu_families"]),
                    npu_base=table.get("npu_base"), npu_irq=table.get("npu_irq"),
                    layout=_sizes(f"{entry}.layout", table.get("layout", {}),
                                  _PLATFORM_LAYOUT_KEYS),
                    pools=_sizes(f"{entry}.pools", table.get("pools", {}), _PLATFORM_POOL_KEYS))


def _sizes(entry: str, table: Mapping[str, Any],
           names: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """A platform's size overrides: known names, positive integers, sorted."""
    for key, value in table.items():
        _require(key in names, entry, f"unknown key '{key}' (valid: {', '.join(names)})")
        _require(isinstance(value, int) and not isinstance(value, bool) and value > 0, entry,
                 f"'{key}' must be a positive integer")
    return tuple(sorted(table.items()))


def _parse_cpu(name: str, table: Mapping[str, Any]) -> CpuSpec:
    entry = f"cpus.{name}"
    _check_keys(entry, table, _CPU_KEYS, _CPU_OPTIONAL)
    allowed = tuple(table["cmsis_nn_allowed"])
    _require(all(b in CMSIS_NN_BACKENDS for b in allowed), entry,
             f"cmsis_nn_allowed must name backends of {', '.join(CMSIS_NN_BACKENDS)}")
    _require(table["cmsis_nn"] in allowed, entry, "the default cmsis_nn is not allowed")
    _require(table["float_abi"] in _FLOAT_ABIS, entry,
             f"float_abi must be one of {', '.join(_FLOAT_ABIS)}")
    overrides = table.get("isa_gcc_cpu", {})
    _require(all(b in allowed and isinstance(v, str) for b, v in overrides.items()), entry,
             "isa_gcc_cpu may only spell allowed backends")
    return CpuSpec(name=name, arch=table["arch"], gcc_cpu=table["gcc_cpu"], fpu=table["fpu"],
                   float_abi=table["float_abi"], cmsis_nn=table["cmsis_nn"],
                   cmsis_nn_allowed=allowed, isa_gcc_cpu=tuple(sorted(overrides.items())))


def _parse_simulator(name: str, table: Mapping[str, Any]) -> Simulator:
    entry = f"simulators.{name}"
    _check_keys(entry, table, _SIMULATOR_KEYS, _SIMULATOR_OPTIONAL)
    _check_keys(f"{entry}.capabilities", table["capabilities"], _CAPABILITY_KEYS)
    _check_keys(f"{entry}.limits", table["limits"], _LIMIT_KEYS, _LIMIT_OPTIONAL)
    _require(table["kind"] in _SIMULATOR_KINDS, entry,
             f"kind must be one of {', '.join(_SIMULATOR_KINDS)}")
    if table["kind"] == "fvp":
        for key in ("npu_prefix", "board_prefix", "cpu_prefix"):
            _require(key in table, entry, f"an FVP needs '{key}'")
    else:
        _require("machine" in table, entry, "a QEMU simulator needs 'machine'")
    return Simulator(name=name, kind=table["kind"], binary=table["binary"],
                     platforms=tuple(table["platforms"]),
                     capabilities=Capabilities(**table["capabilities"]),
                     machine=table.get("machine"), npu_prefix=table.get("npu_prefix"),
                     board_prefix=table.get("board_prefix"), cpu_prefix=table.get("cpu_prefix"),
                     extra_params=tuple(table.get("extra_params", ())),
                     limits=_parse_limits(f"{entry}.limits", table["limits"]))


def _parse_limits(entry: str, table: Mapping[str, Any]) -> Limits:
    """deadline_s > 0; idle_s 0 means no watchdog; host_grace_s >= 0."""
    _require(table["deadline_s"] > 0 and table["idle_s"] >= 0
             and table.get("host_grace_s", 0) >= 0, entry,
             "deadline_s must be > 0, idle_s and host_grace_s >= 0 (idle_s 0: no watchdog)")
    return Limits(deadline_s=float(table["deadline_s"]), idle_s=float(table["idle_s"]) or None,
                  host_grace_s=float(table.get("host_grace_s", 0)))


def _parse_family(name: str, table: Mapping[str, Any]) -> NpuFamily:
    entry = f"npu_families.{name}"
    _check_keys(entry, table, _FAMILY_KEYS, _FAMILY_OPTIONAL)
    _require(bool(table["macs"]), entry, "needs at least one MAC configuration")
    cores = {}
    for macs, count in table.get("cores", {}).items():
        _require(macs.isdigit() and int(macs) in table["macs"], entry,
                 f"cores names MAC configuration '{macs}', which the family does not have")
        _require(isinstance(count, int) and not isinstance(count, bool) and count >= 1, entry,
                 f"cores for {macs} must be a positive integer")
        cores[int(macs)] = count
    _require(len(table["pmu_events"]) <= table["pmu_counters"], entry,
             "more PMU events than counters")
    _require(table["system_config"] in table["system_configs"], entry,
             "default system_config is not in system_configs")
    _require(table["memory_mode"] in table["memory_modes"], entry,
             "default memory_mode is not in memory_modes")
    return NpuFamily(name=name, macs=tuple(table["macs"]), platform=table["platform"],
                     simulator=table["simulator"], tosa_spec=table["tosa_spec"],
                     system_config=table["system_config"],
                     memory_mode=table["memory_mode"],
                     system_configs=tuple(table["system_configs"]),
                     memory_modes=tuple(table["memory_modes"]),
                     quantization=tuple(table["quantization"]),
                     pmu_counters=table["pmu_counters"], pmu_events=tuple(table["pmu_events"]),
                     cores=tuple(sorted(cores.items())))


def _parse_npu_model(name: str, table: Mapping[str, Any], platforms: Mapping[str, Platform],
                     simulators: Mapping[str, Simulator],
                     families: Mapping[str, NpuFamily]) -> NpuModel:
    entry = f"npu_models.{name}"
    _check_keys(entry, table, _NPU_MODEL_KEYS, _NPU_MODEL_OPTIONAL)
    platform = _lookup(entry, platforms, table["platform"], "platform")
    for sim_name in table["simulators"]:
        sim = _lookup(entry, simulators, sim_name, "simulator")
        _require(platform.name in sim.platforms, entry,
                 f"simulator {sim_name} cannot run platform {platform.name}")
        _require(not sim.capabilities.npu, entry,
                 f"simulator {sim_name} has an NPU; a model is only for simulators without one")
    refused = table.get("refused", {})
    for family in (*table["families"], *refused):
        _lookup(entry, families, family, "NPU family")
    _require(not set(refused) & set(table["families"]), entry,
             "a family cannot be both supported and refused")
    _require(all(isinstance(r, str) and r for r in refused.values()), entry,
             "every refusal needs a reason")
    return NpuModel(name=name, description=table["description"], library=table["library"],
                    simulators=tuple(table["simulators"]), platform=platform.name,
                    families=tuple(table["families"]), refused=tuple(sorted(refused.items())))


@dataclass(frozen=True)
class Catalogue:
    """All platforms, simulators and targets, cross-checked."""

    platforms: Mapping[str, Platform]
    simulators: Mapping[str, Simulator]
    families: Mapping[str, NpuFamily]
    targets: Mapping[str, Target]
    npu_models: Mapping[str, NpuModel]
    cpus: Mapping[str, CpuSpec] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Target]:
        return iter(self.targets.values())

    def names(self) -> list[str]:
        """Every target name, in catalogue order."""
        return list(self.targets)

    def target(self, name: str) -> Target:
        """The target called `name`, or one line naming the closest valid names."""
        try:
            return self.targets[name]
        except KeyError:
            raise unknown_name_error("target", name, self.names(), "invoke targets") from None

    def simulator(self, name: str) -> Simulator:
        """The simulator called `name`."""
        try:
            return self.simulators[name]
        except KeyError:
            raise unknown_name_error("simulator", name, list(self.simulators),
                                     "invoke targets") from None


def unknown_name_error(kind: str, name: str, valid: list[str], listing: str) -> OrchestratorError:
    """One line for an unknown name, naming the closest valid ones."""
    close = difflib.get_close_matches(name, valid, n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}?" if close else f"valid: {', '.join(valid)}"
    return OrchestratorError(f"unknown {kind} '{name}' ({hint})", f"{listing} lists them all")


def _lookup(entry: str, table: Mapping[str, Any], name: str, what: str) -> Any:
    _require(name in table, entry, f"refers to unknown {what} '{name}'")
    return table[name]


def cpu_platform(board: Platform, cpu: CpuSpec) -> Platform:
    """`board` as `cpu`'s firmware is linked for it: the CPU's -mcpu and float ABI; a variant
    name when that is not the board's own core (its builds are kept apart)."""
    variant = "" if cpu.gcc_cpu == board.gcc_cpu and cpu.name in (board.cpu, board.gcc_cpu) \
        else cpu.gcc_cpu
    return replace(board, gcc_cpu=cpu.gcc_cpu, float_abi=cpu.float_abi, variant=variant)


def _build_targets(data: Mapping[str, Any], platforms: Mapping[str, Platform],
                   simulators: Mapping[str, Simulator],
                   families: Mapping[str, NpuFamily],
                   npu_models: Mapping[str, NpuModel],
                   cpus: Mapping[str, CpuSpec]) -> dict[str, Target]:
    targets: dict[str, Target] = {}

    def add(target: Target) -> None:
        _require(target.name not in targets, f"targets.{target.name}", "duplicate target name")
        for sim in target.simulators:
            _require(target.board_for(sim) is not None, f"targets.{target.name}",
                     f"simulator {sim.name} cannot run platform {target.platform.name}")
        targets[target.name] = target

    for name, family in families.items():
        entry = f"npu_families.{name}"
        platform = _lookup(entry, platforms, family.platform, "platform")
        simulator = _lookup(entry, simulators, family.simulator, "simulator")
        _require(name in platform.npu_families, entry,
                 f"platform {platform.name} does not list this family")
        _require(len(set(family.macs)) == len(family.macs), entry, "duplicate MAC configuration")
        models = tuple(model for model in npu_models.values()
                       if name in model.families or model.refusal(name))
        for macs in family.macs:
            add(Target(name=f"{name}-{macs}", cpu=platform.cpu, platform=platform,
                       simulators=(simulator,), quantization=family.quantization,
                       npu=family, macs=macs, npu_models=models))
    for name, table in data.get("cpu_targets", {}).items():
        entry = f"cpu_targets.{name}"
        _check_keys(entry, table, _CPU_TARGET_KEYS, _CPU_TARGET_OPTIONAL)
        platform = _lookup(entry, platforms, table["platform"], "platform")
        sims = tuple(_lookup(entry, simulators, sim, "simulator") for sim in table["simulators"])
        _require(name not in targets, f"targets.{name}", "duplicate target name")
        cpu = _lookup(entry, cpus, name, "CPU (cpus.<name>)")
        boards = tuple(cpu_platform(_lookup(entry, platforms, board, "platform"), cpu)
                       for board in table.get("boards", ()))
        add(Target(name=name, cpu=name, platform=cpu_platform(platform, cpu), simulators=sims,
                   quantization=tuple(table["quantization"]), cpu_spec=cpu, boards=boards))
    return targets


def parse_catalogue(data: Mapping[str, Any]) -> Catalogue:
    """Validate parsed catalogue data and resolve it into typed records."""
    _require(data.get("schema") == SCHEMA_VERSION, "schema",
             f"expected schema = {SCHEMA_VERSION}")
    platforms = {name: _parse_platform(name, t) for name, t in data.get("platforms", {}).items()}
    simulators = {name: _parse_simulator(name, t)
                  for name, t in data.get("simulators", {}).items()}
    for sim in simulators.values():
        for platform in sim.platforms:
            _lookup(f"simulators.{sim.name}", platforms, platform, "platform")
    families = {name: _parse_family(name, t) for name, t in data.get("npu_families", {}).items()}
    npu_models = {name: _parse_npu_model(name, t, platforms, simulators, families)
                  for name, t in data.get("npu_models", {}).items()}
    cpus = {name: _parse_cpu(name, t) for name, t in data.get("cpus", {}).items()}
    targets = _build_targets(data, platforms, simulators, families, npu_models, cpus)
    _require(bool(targets), "targets", "the catalogue defines no targets")
    return Catalogue(platforms=platforms, simulators=simulators, families=families,
                     targets=targets, npu_models=npu_models, cpus=cpus)


_CACHE: dict[Path, Catalogue] = {}


def load_catalogue(path: Path | None = None) -> Catalogue:
    """Load (once per path) and validate the catalogue."""
    path = path or CATALOGUE_PATH
    if path not in _CACHE:
        _CACHE[path] = parse_catalogue(load_data(path, CATALOGUE_LAYOUT, str(path)))
    return _CACHE[path]
