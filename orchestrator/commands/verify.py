"""`invoke verify`: compile (cached), run every NPU partition on the host NPU model and on
the TOSA reference model, print the verdict; exit 0 only when every output is exact."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Any

from orchestrator.aot.api import compile_request, request_for
from orchestrator.aot.key import CompileRequest
from orchestrator.cli import print_json
from orchestrator.command_line import invoke_line
from orchestrator.errors import OrchestratorError
from orchestrator.options.inspect import VerifyTask
from orchestrator.paths import scratch
from orchestrator.targets.selection import expand_targets
from orchestrator.tosa.shared_reference import TosaReferences
from orchestrator.vnpu import coverage as npu_coverage
from orchestrator.vnpu.execute import Npu
from orchestrator.vnpu.locate import describe_departure
from orchestrator.vnpu.verify import verify_product

if TYPE_CHECKING:
    from orchestrator.aot.products import Product
    from orchestrator.aot.tensors import TensorFile

EXIT_NOT_EXACT = 1


def coverage_command(json: bool) -> int:
    """The coverage table: a summary, then one row per command, field and value."""
    if json:
        print_json([dataclasses.asdict(entry) for entry in npu_coverage.entries()])
    else:
        print("\n".join([*npu_coverage.summary(), "", *npu_coverage.listing()]))
    return 0


def render(document: dict[str, Any]) -> str:
    """The verdict and one line per output check."""
    verdict = "exact" if document["exact"] else "NOT exact"
    flags = " ".join(document["compile_options"].get("vela_flags", []))
    chosen = f"{document['quantize']}, Vela {flags}" if flags else document["quantize"]
    versions = document.get("versions", {})
    lines = [f"{document['model']} ({chosen}) on {document['npu']['config']} "
             f"(functional model) vs TOSA "
             f"reference: {verdict}",
             f"  compiled by executorch {versions.get('executorch')}, Vela "
             f"{versions.get('ethos-u-vela')} (toolset {document.get('toolset', 'pinned')})"]
    for check in document["checks"]:
        state = "exact" if check["exact"] else (
            f"{check['differing']}/{check['elements']} differ, max {check['max_difference']}")
        lines.append(f"  partition {check['partition']} output {check['output']} "
                     f"({check['inputs']} inputs): {state}")
    for departure in document.get("departures", []):
        where = (describe_departure(departure) if departure["operation"] is not None
                 else f"no departing operation named: {departure['note']}")
        lines.append(f"  partition {departure['partition']} ({departure['inputs']} inputs): "
                     f"{where}")
    if document.get("observation_refused"):
        lines.append(f"  not checked: {document['observation_refused']}")
    findings = document.get("write_findings", [])
    if findings:   # one sentence: the first write over a live tensor, the rest counted
        more = f" ({len(findings) - 1} more writes over live tensors in the JSON)" \
            if len(findings) > 1 else ""
        lines.append(f"  partition {findings[0]['partition']}: {findings[0]['sentence']}{more}")
    seconds = document["seconds"]
    lines.append("  seconds: " + ", ".join(f"{k} {v}" for k, v in seconds.items()))
    return "\n".join(lines)


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
    from orchestrator.toolsets.compile import compile_under

    found = {}
    for compiled in compile_under(find_toolset(task.toolset), task.model, tuple(targets),
                                  task.choices, scratch()):
        if compiled.error is not None:
            raise compiled.error
        assert compiled.product is not None
        found[compiled.target] = compiled.product
    return found


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


def verify_command(task: VerifyTask, json: bool = False, coverage: bool = False) -> int:
    """Verify every target the task names (the TOSA reference runs once per lowering: the
    configurations of one share its graphs); exit 0 only when every output is exact.
    `coverage`: print the NPU model's coverage table instead (nothing is compiled)."""
    if coverage:
        return coverage_command(json)
    references = TosaReferences()
    targets = expand_targets(task.target)
    for target in targets:   # a target without an NPU, or choices leaving nothing to check
        Npu.for_target_name(target)
        npu_request(task, target)
    compiled = toolset_products(task, targets) if task.toolset else {}
    documents = [verify_one(task, target, references, compiled.get(target))
                 for target in targets]
    if json:
        print_json(documents[0] if len(documents) == 1 else documents)
    else:
        print("\n".join(render(document) for document in documents))
    return 0 if all(document["exact"] for document in documents) else EXIT_NOT_EXACT
