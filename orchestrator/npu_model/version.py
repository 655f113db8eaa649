"""The NPU model's version as results record it: its declared NPU_MODEL_VERSION
and a digest of the C sources (model and driver shim) that make it."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from orchestrator import __version__
from orchestrator.foundation.derived_cache import cached_table, stat_digest
from orchestrator.foundation.paths import repo_root

FIRMWARE_DIR = repo_root() / "firmware"
MODEL_TREES = ("npu_model", "ethosu_shim")   # the sources a model build compiles


@lru_cache(maxsize=1)
def model_version() -> str:
    """'npu_model <its NPU_MODEL_VERSION>+<digest of the model and shim sources>', read
    once per content of those sources (orchestrator.foundation.derived_cache)."""
    files = sorted(p for tree in MODEL_TREES for p in (FIRMWARE_DIR / tree).rglob("*")
                   if p.is_file())
    return str(cached_table("npu-model-version", stat_digest(files, "model-version-1"),
                            _model_version))


def _model_version() -> str:
    """model_version read from the sources."""
    header = (FIRMWARE_DIR / "npu_model" / "include" / "npu_model.h").read_text()
    declared = re.search(r'#define NPU_MODEL_VERSION "([^"]+)"', header)
    digest = hashlib.sha256()
    for tree in MODEL_TREES:
        root = FIRMWARE_DIR / tree
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(FIRMWARE_DIR)).encode() + b"\0")
            digest.update(path.read_bytes())
    version = declared.group(1) if declared else f"(tool {__version__})"
    return f"npu_model {version}+{digest.hexdigest()[:12]}"
