"""Write checks on the NPU-model lane (`invoke run --sim qemu` of an NPU target): the
firmware's NPU executor is the NPU model, so the product's command streams are run
through the host build of the same model with `invoke verify`'s write checks, and every write
over a live tensor is recorded in the RunResult (a finding about the compiled program)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from orchestrator.foundation.derived_cache import cached_table, stat_digest
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model import MODEL_NAME
from orchestrator.npu_model.version import model_version
from orchestrator.results import RunResult, WriteChecks
from orchestrator.targets.model import EXECUTOR_MODEL

if TYPE_CHECKING:
    from orchestrator.aot.products import Product

WHERE_CHECKED = ("checked on the host build of the NPU model (the C model the "
                 "firmware's NPU executor runs) over the same command streams the device ran, "
                 "not observed on the device")
INPUTS = "the model's own inputs where a partition reads them, else seeded random (seed 0)"
FINDINGS_FORMAT = "write-checks-1"   # bump when the findings' derivation changes


def write_checks(product: Product, model: str, target: str,
                 seconds: dict[str, float] | None = None) -> WriteChecks:
    """Every NPU partition of `product` run once, observed, on the NPU model (`seconds`
    gets the stages' times: the NPU model's build, once per process, apart). The findings
    are kept by the product's content, the target and the NPU model's version
    (orchestrator.foundation.derived_cache): a rerun of an unchanged product reads them back."""
    seconds = {} if seconds is None else seconds
    started = time.perf_counter()
    findings = cached_table("write-checks", findings_key(product, target),
                            lambda: _findings(product, model, target, seconds))
    seconds.setdefault("write_checks", time.perf_counter() - started)
    return WriteChecks(executor=f"{MODEL_NAME} {model_version()} (host)", note=WHERE_CHECKED,
                       inputs=INPUTS, seconds=round(seconds.get("write_checks", 0.0), 4),
                       findings=findings)


def findings_key(product: Product, target: str) -> str:
    """The content the findings derive from: every file of the product (not its dot files:
    the cache's lease), the target and the NPU model's version."""
    files = sorted(path for path in product.directory.rglob("*")
                   if path.is_file() and not path.name.startswith("."))
    return stat_digest(files, f"{FINDINGS_FORMAT}\0{target}\0{model_version()}")


def _findings(product: Product, model: str, target: str, seconds: dict[str, float]
              ) -> list[dict[str, Any]]:
    from orchestrator.npu_model.execute import Npu
    from orchestrator.npu_model.verify import product_write_findings

    return product_write_findings(product, Npu.for_target_name(target), model, target, seconds)


def attach_write_checks(result: RunResult, product: Product, model: str, target: str
                        ) -> RunResult:
    """Record the write checks of a run whose NPU was the NPU model (nothing for a
    CPU target or an FVP's NPU); a check that cannot run is noted, never fails the run."""
    if result.npu is None or result.npu.executor != EXECUTOR_MODEL \
            or not product.manifest.get("partitions"):
        return result
    seconds: dict[str, float] = {}
    try:
        result.write_checks = write_checks(product, model, target, seconds)
    except OrchestratorError as error:
        result.classification.details["write_checks_not_run"] = str(error)
        return result
    result.timings_s["write_checks"] = result.write_checks.seconds
    result.timings_s["host_model_build"] = round(seconds.get("model_build", 0.0), 4)
    return result


def likely_cause(result: RunResult) -> str | None:
    """The first write finding as the likely cause of outputs departing from the exact
    reference, with its next step (None: no finding)."""
    if result.write_checks is None or not result.write_checks.findings:
        return None
    first = result.write_checks.findings[0]
    finding, _, step = str(first["sentence"]).partition("; next: ")
    more = len(result.write_checks.findings) - 1
    also = f", {more} more in write_checks" if more else ""
    return (f"likely cause: {finding} (partition {first['partition']}, found on the host NPU "
            f"model over the same command stream{also}): {step}")
