"""The setup lock file: exactly what `invoke setup` installed, read by every later stage.

Later stages resolve tools through this file (absolute paths), never through PATH order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.foundation.paths import Scratch

LOCK_NAME = "setup.lock.json"
LOCK_SCHEMA = 1


def lock_path(scratch: Scratch) -> Path:
    """Where the lock file lives."""
    return scratch.root / LOCK_NAME


def read_lock(scratch: Scratch) -> dict[str, dict[str, Any]]:
    """Installed artifacts by name ({} when setup never ran)."""
    path = lock_path(scratch)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    return dict(data.get("artifacts", {}))


def write_lock_entry(scratch: Scratch, name: str, entry: dict[str, Any]) -> None:
    """Record (or replace) one artifact atomically: write a temp file, then rename."""
    artifacts = read_lock(scratch)
    artifacts[name] = entry
    _write_artifacts(scratch, artifacts)


def _write_artifacts(scratch: Scratch, artifacts: dict[str, dict[str, Any]]) -> None:
    """Atomically replace the lock file with `artifacts`."""
    document = {"schema": LOCK_SCHEMA, "artifacts": dict(sorted(artifacts.items()))}
    write_json_atomic(lock_path(scratch), document)


def installed_binary(scratch: Scratch, artifact: str, binary: str,
                     setup_hint: str | None = None) -> Path:
    """Absolute path of `binary` recorded for `artifact`, or an error naming the setup command."""
    hint = setup_hint or f"invoke setup --only {artifact}"
    entry = read_lock(scratch).get(artifact)
    if entry is None:
        raise OrchestratorError(f"{artifact} is not set up in {scratch.root}", hint)
    path = entry.get("binaries", {}).get(binary)
    if not path or not Path(path).is_file():
        raise OrchestratorError(f"{binary} recorded by setup for {artifact} is missing ({path})",
                                f"{hint} --force")
    return Path(path)


def source_tree(scratch: Scratch, name: str, setup_hint: str | None = None) -> Path:
    """Absolute path of the upstream source tree `name` (e.g. 'executorch', 'cmsis-nn')."""
    hint = setup_hint or "invoke setup --only sources"
    entry = read_lock(scratch).get(name)
    if entry is None or entry.get("kind") != "source":
        raise OrchestratorError(f"source {name} is not set up in {scratch.root}", hint)
    path = Path(entry["path"])
    if not path.is_dir():
        raise OrchestratorError(f"source {name} recorded by setup is missing ({path})",
                                f"{hint} --force")
    return path


def runtime_env(scratch: Scratch, artifact: str) -> dict[str, str]:
    """Environment variables an installed artifact's binaries need (e.g. Corstone-320's python)."""
    return dict((read_lock(scratch).get(artifact) or {}).get("env", {}))


def artifact_of_binary(scratch: Scratch, binary: Path) -> str | None:
    """The artifact whose recorded (usable) binaries include `binary`, else None."""
    wanted = binary.resolve()
    for name, entry in read_lock(scratch).items():
        if any(Path(path).resolve() == wanted for path in entry.get("binaries", {}).values()):
            return name
    return None
