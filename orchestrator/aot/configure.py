"""One configuration of a lowering: Vela on each kept partition, then the .pte assembled
from the lowering's template (imports executorch; called on a product cache miss whose
lowering is cached).

Vela is called as ExecuTorch's EthosUBackend.preprocess calls it: the partition's TOSA
flatbuffer and a compile spec rebuilt from the list form (_from_list, so Vela's argument
list is a fresh copy) of the EthosUCompileSpec a full compile of this configuration uses.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from orchestrator.aot import products as layout
from orchestrator.aot.assemble import CONFIGURATION_SPECS, assemble
from orchestrator.aot.compiler import (
    captured_output,
    exited,
    write_log,
    write_vela_report,
)
from orchestrator.aot.key import CompileRequest, active_toolset, tool_versions
from orchestrator.aot.lowering import ethosu_compile_spec, lowering_error
from orchestrator.aot.lowerings import Lowering, share
from orchestrator.aot.program_info import program_facts
from orchestrator.errors import OrchestratorError
from orchestrator.tosa.partitions import partitions_from_manifest
from orchestrator.tosa.vela_result import external_block_count, stream_bytes


def _vela(tosa: bytes, spec: Any) -> bytes:
    from executorch.backends.arm.ethosu import EthosUCompileSpec
    from executorch.backends.arm.ethosu.backend import EthosUBackend

    fresh = EthosUCompileSpec._from_list(spec._to_list())
    result = EthosUBackend._compile_tosa_flatbuffer(tosa, fresh)
    if external_block_count(result):
        raise OrchestratorError(
            "Vela placed payloads outside the delegate stream, which a configuration "
            "assembled from a lowering cannot carry", "compile this target on its own")
    return stream_bytes(result)


def _configuration(spec: Any) -> dict[str, bytes]:
    """The compile-spec entries a delegate carries for this configuration."""
    return {entry.key: bytes(entry.value) for entry in spec._to_list()
            if entry.key in CONFIGURATION_SPECS}


def _compile_partitions(request: CompileRequest, lowering: Lowering
                        ) -> tuple[list[bytes], dict[str, bytes]]:
    """Vela on every partition; (binaries, configuration specs)."""
    template = lowering.template_manifest
    partitions = partitions_from_manifest(template, lowering.directory)
    if not partitions:
        return [], {}
    spec = ethosu_compile_spec(request.options, None)
    try:
        binaries = [_vela(partition.tosa, spec) for partition in partitions]
    except SystemExit as stop:
        raise exited(request, stop) from None
    except OrchestratorError:
        raise
    except Exception as error:  # noqa: BLE001 - Vela failures, one line
        raise lowering_error(request.options, request.model.name, error,
                             "check the Vela options (--vela-flags, --memory-mode, "
                             "--system-config)") from None
    return binaries, _configuration(spec)


def configured_manifest(request: CompileRequest, template: dict[str, Any], program: Any,
                        vela: dict[str, Any] | None, pte_bytes: int, seconds: float
                        ) -> dict[str, Any]:
    """The template's manifest with what a configuration changes."""
    manifest = dict(template)
    manifest.update({
        "key": request.key(), "target": request.options.target,
        "options": request.options.to_json(), "identity": request.identity(),
        "versions": tool_versions(), "toolset": active_toolset()["name"],
        "pte_bytes": pte_bytes, "program": program_facts(program),
        "vela": vela["totals"] if vela else None, "compile_seconds": round(seconds, 3),
        "lowering": {**template["lowering"], "configured_seconds": round(seconds, 3)},
    })
    return manifest


def configure_product(request: CompileRequest, lowering: Lowering,
                      staging: Path) -> dict[str, Any]:
    """Build `request`'s product in `staging` from `lowering`; return its manifest."""
    started = time.perf_counter()
    template = lowering.template_manifest
    # Vela's output and every warning (importing and serializing with executorch warn too)
    # go to the compile log, not the console
    with captured_output() as (captured, caught):
        try:
            binaries, configuration = _compile_partitions(request, lowering)
            pte, program = assemble(lowering.template_pte.read_bytes(),
                                    lowering.delegate_partitions, binaries, configuration)
        finally:
            write_log(staging, captured.getvalue(), caught)
    printed = captured.getvalue()
    (staging / layout.PTE).write_bytes(pte)
    share(lowering.directory, staging)
    vela = write_vela_report(printed, staging) if binaries else None
    return configured_manifest(request, template, program, vela, len(pte),
                               time.perf_counter() - started)
