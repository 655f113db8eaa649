"""The compile stage's plan: one lowering per (model, NPU family), then one Vela run per
configuration. A regress compile request resolves to the library's request (no torch);
requests with one lowering key share a lowering, which the first of them makes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.lanes.stages import CompileJob
from orchestrator.regress.plan.cell_options import compile_choices
from orchestrator.runner.model_run import model_choices

if TYPE_CHECKING:
    from orchestrator.aot.key import CompileRequest as LibraryRequest


def library_request(request: CompileJob) -> LibraryRequest:
    """The compile library's request for a regress one (raises its one-line error)."""
    from orchestrator.aot.api import request_for

    return request_for(request.model_spec, request.target,
                       model_choices(compile_choices(dict(request.options))))


def lowering_of(request: CompileJob) -> str | None:
    """The lowering key `request`'s compile makes or configures (None: the request does not
    resolve; its own compile says why)."""
    try:
        return library_request(request).lowering_key()
    except OrchestratorError:
        return None


def lowering_leaders(requests: Iterable[CompileJob]
                     ) -> dict[CompileJob, CompileJob | None]:
    """For every request, the earlier request whose compile lowers the model for it (None:
    it lowers itself)."""
    leaders: dict[str, CompileJob] = {}
    plan: dict[CompileJob, CompileJob | None] = {}
    for request in requests:
        key = lowering_of(request)
        leader = leaders.get(key) if key is not None else None
        plan[request] = leader
        if key is not None and leader is None:
            leaders[key] = request
    return plan
