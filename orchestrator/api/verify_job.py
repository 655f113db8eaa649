"""`verify`: compile the model (cached) for every NPU target the task names and run each NPU
partition on the NPU model and on the TOSA reference model, bit for bit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.api import compile_request, request_for
from orchestrator.aot.key import CompileRequest
from orchestrator.api.reports import VerifyReport
from orchestrator.artifacts.verify import verify_artifact
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.verify import verify_product
from orchestrator.options import RunRequest
from orchestrator.options.inspect import VerifyTask
from orchestrator.targets.selection import expand_targets
from orchestrator.tosa.shared_reference import TosaReferences

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.aot.tensors import TensorFile


def npu_request(task: VerifyTask, target: str) -> CompileRequest:
    """The compile request of the task's choices for `target`; refused when they leave no
    NPU partition to check (a float or CPU-only compile)."""
    request = request_for(task.model, target, task.choices)
    if request.options.delegate and request.options.quantize:
        return request
    chosen = "--no-delegate" if not request.options.delegate else "--quantize none"
    raise OrchestratorError(f"invoke verify checks NPU partitions, and {chosen} compiles "
                            f"{task.model} without any",
                            f"drop {chosen}: "
                            + invoke_line("verify", model=task.model, target=target))


def toolset_products(task: VerifyTask, targets: list[str]) -> dict[str, Product]:
    """Every target compiled under the task's toolset in one process (its environment's
    worker unless this environment holds it)."""
    from orchestrator.toolsets.catalogue import find_toolset
    from orchestrator.toolsets.compile import products_under

    return products_under(find_toolset(task.toolset), task.model, tuple(targets),
                          task.choices, scratch())


def verify_one(task: VerifyTask, target: str, references: TosaReferences,
               product: Product | None = None) -> dict[str, Any]:
    """Compile the task's model for `target` (cached, or a configuration of its cached
    lowering; or take the one compiled under its toolset) and check every NPU partition bit
    for bit."""
    npu = Npu.for_target_name(target)
    started = time.perf_counter()
    request = npu_request(task, target)
    product = product or compile_request(request, scratch())
    compiled = time.perf_counter()
    report = verify_product(product, npu, task.model, target, locate=task.locate,
                            references=references)
    report.seconds["compile"] = compiled - started
    report.seconds["total"] = time.perf_counter() - started
    return {**report.to_json(), "model_source": product.manifest["model"],
            "model_interface": model_interface(product),
            "toolset": product.manifest.get("toolset", "pinned")}


def model_interface(product: Product) -> dict[str, list[dict[str, Any]]]:
    """The compiled model's inputs and outputs as the device takes and gives them (flattened
    in the program's order), each named by its path (`inputs[1][0]`, `output[0]`)."""
    def leaves(records: list[TensorFile], side: str) -> list[dict[str, Any]]:
        return [{"name": record.label(side, index), "dtype": record.dtype,
                 "shape": list(record.shape)} for index, record in enumerate(records)]

    return {"inputs": leaves(product.inputs, "input"),
            "outputs": leaves(product.reference_float, "output")}


def verify_with(task: VerifyTask) -> VerifyReport:
    """Verify every target the task names (the TOSA reference runs once per lowering: the
    configurations of one share its graphs); refused up front for a target without an NPU
    or choices that leave nothing to check. With --pte: the ready artifact on every lane
    (orchestrator.artifacts.verify), nothing compiled."""
    if task.pte:
        return VerifyReport([verify_artifact(Path(task.pte), RunRequest(target=task.target),
                                             scratch())])
    references = TosaReferences()
    targets = expand_targets(task.targets_named)
    for target in targets:
        Npu.for_target_name(target)
        npu_request(task, target)
    compiled = toolset_products(task, targets) if task.toolset else {}
    return VerifyReport([verify_one(task, target, references, compiled.get(target))
                         for target in targets])
