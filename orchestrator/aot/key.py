"""The content key of a compiled product: model, tensors, options and tool versions."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from orchestrator.aot.options import CompileOptions
from orchestrator.aot.sources import ModelRef, files_digest, sha256_file

# Bump when the product layout or the compile recipe changes (invalidates old products).
RECIPE_VERSION = 7
VERSIONED_PACKAGES = ("torch", "executorch", "ethos-u-vela", "tosa-tools", "torchao")


@lru_cache(maxsize=1)
def tool_versions() -> dict[str, str]:
    """Installed versions of the packages that shape a product (read without importing them)."""
    versions = {}
    for package in VERSIONED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "missing"
    return versions


def version_mismatches() -> list[str]:
    """Installed packages that differ from pins.toml (local tags like +cpu ignored)."""
    from orchestrator.pins import load_pins

    pins = load_pins().get("python", {})
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

    def key(self) -> str:
        """'<model>_<target>_<q>_<digest12>': readable and unique per identity."""
        canonical = json.dumps(self.identity(), sort_keys=True).encode()
        digest = hashlib.sha256(canonical).hexdigest()[:16]
        scheme = self.options.quantize or "fp32"
        mode = "npu" if self.options.delegate else "cpu"
        name = re.sub(r"[^A-Za-z0-9.-]+", "-", self.model.name)[:40]
        return f"{name}_{self.options.target}_{scheme}_{mode}_{digest}"
