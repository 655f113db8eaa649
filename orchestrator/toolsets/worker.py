"""A toolset's compile worker: `<toolset python> -m orchestrator.toolsets.worker REQUEST
RESULT`. Runs inside the toolset's environment, so the executorch it imports is the
toolset's; compiles every job's targets in this one process (one torch import; a family's
lowering is reused by its other configurations) and writes a WorkerResult."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orchestrator.aot.key import tool_versions
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.toolsets.compile import compile_here
from orchestrator.toolsets.protocol import WorkerRequest, WorkerResult


def serve(request_path: Path, result_path: Path) -> int:
    request = WorkerRequest.from_json(json.loads(request_path.read_text()))
    outcomes = compile_here(request.jobs, request.scratch)
    write_json_atomic(result_path, WorkerResult(outcomes, tool_versions()).to_json())
    return 0


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), Path(sys.argv[2])))
