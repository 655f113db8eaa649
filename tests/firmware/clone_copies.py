"""Copies of this checkout at other paths and the real CLI run from them (helpers of the
build-anywhere tests; a unique module name, importable from any test directory)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from orchestrator.foundation.paths import repo_root

CHECKOUT_PARTS = ("orchestrator", "firmware", "toolchains", "tasks.py", "pyproject.toml")


def copy_checkout(dest: Path) -> Path:
    """The parts of this checkout a build uses, copied to `dest` (a fresh clone's layout)."""
    dest.mkdir(parents=True)
    for part in CHECKOUT_PARTS:
        source = repo_root() / part
        if source.is_dir():
            shutil.copytree(source, dest / part,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, dest / part)
    return dest


def cli(checkout: Path, work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m invoke ARGS` from `checkout` (its orchestrator is the one imported)."""
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(work)}
    env.pop("ETHOSU_ORCH_QUIET", None)
    return subprocess.run([sys.executable, "-m", "invoke", *args], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=1800, check=False)


def built(checkout: Path, work: Path, *args: str) -> dict[str, Any]:
    done = cli(checkout, work, "build", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def sizes(manifest: dict[str, Any]) -> dict[str, int]:
    return {section["name"]: section["size"] for section in manifest["sections"]}
