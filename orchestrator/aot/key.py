"""The content key of a compiled product: model, tensors, options and tool versions."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from orchestrator.aot.models.sources import ModelRef, files_digest, sha256_file
from orchestrator.aot.options import CompileOptions
from orchestrator.foundation.derived_cache import cached_table, stat_digest
from orchestrator.targets import load_catalogue

# Bump when the product layout or the compile recipe changes (invalidates old products).
RECIPE_VERSION = 8
ACTIVE_TOOLSET_ENV = "ETHOSU_ORCH_TOOLSET"
VERSIONED_PACKAGES = ("torch", "executorch", "ethos-u-vela", "tosa-tools", "torchao")
# The options that reach Vela only (EthosUCompileSpec's compile_flags and target entries, see
# orchestrator/aot/assembly/configure.py): a configuration of a lowering. Every other option, and
# the
# target's TOSA profile, shapes the lowered graphs.
CONFIGURATION_OPTIONS = ("target", "system_config", "memory_mode", "vela_config", "vela_flags")
# Vela runs only in a configuration: a toolset that changes Vela alone (vela-5.2.0 beside the
# pinned stack) reuses the pinned stack's lowering, kept TOSA partitions and all.
CONFIGURATION_PACKAGES = ("ethos-u-vela",)


@lru_cache(maxsize=1)
def tool_versions() -> dict[str, str]:
    """Installed versions of the packages that shape a product (read without importing them),
    looked up once per state of the import path's folders: installing, upgrading or removing
    a package adds or removes its metadata folder, which changes its folder's stat."""
    folders = [Path(entry or ".").resolve() for entry in sys.path]
    key = stat_digest(folders, "tool-versions-1\0" + "\0".join(VERSIONED_PACKAGES))
    return {str(name): str(version)
            for name, version in cached_table("tool-versions", key, _tool_versions).items()}


def _tool_versions() -> dict[str, str]:
    """tool_versions read from the installed packages' metadata (importlib.metadata imported
    here: it pulls in email, zipfile and csv, which a warm run with the table cached skips)."""
    from importlib import metadata

    versions = {}
    for package in VERSIONED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "missing"
    return versions


def active_toolset() -> dict[str, Any]:
    """The toolset this process compiles under: {name, packages} as its worker was told
    (ETHOSU_ORCH_TOOLSET, set by orchestrator/toolsets/compile.py), else the pins."""
    from orchestrator.foundation.pins import load_pins

    told = os.environ.get(ACTIVE_TOOLSET_ENV)
    if told:
        document: dict[str, Any] = json.loads(told)
        return document
    return {"name": "pinned", "packages": dict(load_pins().get("python", {}))}


def version_mismatches() -> list[str]:
    """Installed packages that differ from the active toolset's pins (local tags like +cpu
    ignored)."""
    pins = active_toolset()["packages"]
    return [f"{package} {installed} is installed but {pins[package]} is pinned"
            for package, installed in tool_versions().items()
            if package in pins and installed.split("+")[0] != pins[package]]


@dataclass(frozen=True)
class CompileRequest:
    """One (model, target, options) to compile, with user tensor files."""

    model: ModelRef
    options: CompileOptions
    inputs: tuple[Path, ...] = ()
    calibration: tuple[Path, ...] = ()

    def identity(self) -> dict[str, Any]:
        """Everything the product depends on, as JSON-ready data."""
        vela_config = self.options.vela_config
        return {
            "recipe": RECIPE_VERSION,
            "model": {"kind": self.model.kind, "digest": self.model.digest,
                      "location": self.model.location
                      if self.model.kind in ("builtin", "function", "upstream") else None,
                      **self.model.provenance()},
            "inputs": files_digest(self.inputs) if self.inputs else None,
            "calibration": files_digest(self.calibration) if self.calibration else None,
            "options": self.options.to_json(),
            "vela_config_digest": sha256_file(Path(vela_config)) if vela_config else None,
            "versions": tool_versions(),
        }

    @property
    def lowering_target(self) -> str:
        """What the lowered graphs depend on of the target: an NPU family's TOSA profile
        (targets.toml tosa_spec), or the CPU target itself (CortexMTargetConfig reads it)."""
        npu = load_catalogue().target(self.options.target).npu
        return npu.tosa_spec if npu is not None else self.options.target

    def lowering_identity(self) -> dict[str, Any]:
        """Everything the lowering (export, quantization, partitioning, TOSA, the CPU part of
        the program, the exact references) depends on: the identity without the options and
        the Vela version that only reach Vela, with the target's TOSA profile instead of its
        name."""
        identity = self.identity()
        identity["options"] = {name: value for name, value in identity["options"].items()
                               if name not in CONFIGURATION_OPTIONS}
        identity.pop("vela_config_digest")
        identity["versions"] = {package: version for package, version
                                in identity["versions"].items()
                                if package not in CONFIGURATION_PACKAGES}
        identity["lowering_target"] = self.lowering_target
        return identity

    def lowering_key(self) -> str:
        """'<model>_<profile>_<q>_<mode>_<digest16>': one per lowering, shared by every
        configuration of the same NPU family (TOSA profile)."""
        target = self.lowering_target
        label = f"tosa-{target.rsplit('+', 1)[-1]}" if target.startswith("TOSA") else target
        return self._named(self.lowering_identity(), label)

    def key(self) -> str:
        """'<model>_<target>_<q>_<mode>_<digest16>': readable and unique per identity."""
        return self._named(self.identity(), self.options.target)

    def _named(self, identity: dict[str, Any], target: str) -> str:
        canonical = json.dumps(identity, sort_keys=True).encode()
        digest = hashlib.sha256(canonical).hexdigest()[:16]
        scheme = self.options.quantize or "fp32"
        mode = "npu" if self.options.delegate else "cpu"
        name = re.sub(r"[^A-Za-z0-9.-]+", "-", self.model.name)[:40]
        return f"{name}_{target}_{scheme}_{mode}_{digest}"
