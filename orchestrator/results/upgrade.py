"""Reading result files of an older schema. Schema 1.7.0 gave the NPU model one name: before
it, a result named the model OLD_EXECUTOR (npu.executor, and the classification's npu_executor
detail) and OLD_VERSION_KEY (its version in versions.extra), and it kept an FVP's Ethos-U
banner under OLD_FVP_KEY (another model: Arm's, in the FVP). A renamed field is a breaking
change, so schema 2.0.0 records it as one (1.7.0 wrote today's names under a minor version).
A file written before 1.7.0 is read with today's names, everything else as written; a file of
a major version newer than this reader's is refused, not guessed at."""

from __future__ import annotations

from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.results.model import FVP_ETHOS_U_VERSION, NPU_MODEL_VERSION, SCHEMA_VERSION
from orchestrator.targets.model import EXECUTOR_MODEL

RENAMED_IN = (1, 7, 0)              # the schema version that named the NPU model once
READS_MAJOR = int(SCHEMA_VERSION.split(".")[0])   # the newest major this reader knows
# The old names, spelled in parts so that the rename (issue 42's npu_name.py) leaves them.
OLD_EXECUTOR = "-".join(("functional", "model"))     # npu.executor, details.npu_executor
OLD_VERSION_KEY = "_".join(("functional", "model"))  # versions.extra's key of its version
OLD_FVP_KEY = "_".join(("ethosu", "model"))   # versions.extra's key of an FVP's Ethos-U banner
RENAMED_KEYS = {OLD_VERSION_KEY: NPU_MODEL_VERSION, OLD_FVP_KEY: FVP_ETHOS_U_VERSION}


def schema_tuple(version: str) -> tuple[int, ...]:
    """'1.6.0' -> (1, 6, 0); a version that is not numbers reads as (0,)."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return (0,)


def upgrade(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with the NPU model's old names read as today's (a copy; a document of
    schema 1.7.0 or later is returned as it is). Raises OrchestratorError for a document of a
    newer major schema version."""
    version = schema_tuple(str(document.get("schema_version", "0")))
    if version[0] > READS_MAJOR:
        raise OrchestratorError(
            f"this result has schema {document['schema_version']}, newer than the "
            f"{SCHEMA_VERSION} this orchestrator reads",
            "update the orchestrator (git pull) and read it again")
    if version >= RENAMED_IN:
        return document
    upgraded = dict(document)
    npu = upgraded.get("npu")
    if isinstance(npu, dict) and npu.get("executor") == OLD_EXECUTOR:
        upgraded["npu"] = {**npu, "executor": EXECUTOR_MODEL}
    versions = upgraded.get("versions")
    if isinstance(versions, dict) and set(RENAMED_KEYS) & set(versions.get("extra") or {}):
        extra = {RENAMED_KEYS.get(key, key): value for key, value in versions["extra"].items()}
        upgraded["versions"] = {**versions, "extra": extra}
    classification = upgraded.get("classification")
    if not isinstance(classification, dict):
        return upgraded
    details = classification.get("details")
    if isinstance(details, dict) and details.get("npu_executor") == OLD_EXECUTOR:
        upgraded["classification"] = {**classification,
                                      "details": {**details, "npu_executor": EXECUTOR_MODEL}}
    return upgraded
