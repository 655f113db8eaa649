"""A toolset's compile worker: `<toolset python> -m orchestrator.toolsets.worker REQUEST
RESULT`. Runs inside the toolset's environment, so the executorch it imports is the
toolset's; compiles every target of the request in this one process (one torch import; the
family's lowering is reused by its other configurations) and writes a WorkerResult."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orchestrator.aot.api import compile_model
from orchestrator.aot.key import tool_versions
from orchestrator.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices
from orchestrator.toolsets.protocol import (
    WorkerOutcome,
    WorkerRequest,
    WorkerResult,
    write_document,
)


def _compile(request: WorkerRequest, target: str) -> WorkerOutcome:
    try:
        product = compile_model(request.model, target, CompileChoices(**request.choices),
                                scratch_root=request.scratch)
    except OrchestratorError as error:
        return WorkerOutcome(target, cause=error.cause, next_step=error.next_step)
    return WorkerOutcome(target, product=str(product.directory))


def serve(request_path: Path, result_path: Path) -> int:
    request = WorkerRequest.from_json(json.loads(request_path.read_text()))
    outcomes = tuple(_compile(request, target) for target in request.targets)
    write_document(result_path, WorkerResult(outcomes, tool_versions()).to_json())
    return 0


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), Path(sys.argv[2])))
