"""One configuration of a lowering: Vela on each kept partition, then the .pte assembled
from the lowering's template (called on a product cache miss whose lowering is cached).

Without torch or executorch (the default): Vela called as ExecuTorch's EthosUBackend calls
it and the .pte packed as executorch packs it (orchestrator.aot.vela_direct,
orchestrator.aot.pte_program), when the template proves both reproduce it (its bytes packed
again, its compile specs rebuilt from its options). Otherwise through executorch: Vela as
EthosUBackend.preprocess calls it (the partition's TOSA flatbuffer and a compile spec rebuilt
from the list form, _from_list, so Vela's argument list is a fresh copy, of the
EthosUCompileSpec a full compile of this configuration uses), the .pte by
orchestrator.aot.assembly.assemble.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orchestrator.aot import products as layout
from orchestrator.aot.assembly.assemble import CONFIGURATION_SPECS, assemble
from orchestrator.aot.assembly.program_info import delegate_record, program_facts, with_delegates
from orchestrator.aot.compiler import (
    captured_output,
    exited,
    write_log,
    write_vela_report,
)
from orchestrator.aot.key import CompileRequest, active_toolset, tool_versions
from orchestrator.aot.lower.lowering import ethosu_compile_spec, lowering_error
from orchestrator.aot.lower.store import Lowering, share
from orchestrator.aot.options import CompileOptions
from orchestrator.aot.pte_program import (
    PteFile,
    PteFormatError,
    compile_specs,
    configure_pte,
    delegate_records,
    read_pte,
    write_pte,
)
from orchestrator.aot.vela_direct import checked_release, configuration_specs, vela_stream
from orchestrator.foundation.errors import OrchestratorError
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
    """Vela on every partition through executorch; (binaries, configuration specs)."""
    spec = ethosu_compile_spec(request.options, None)
    return (_vela_on_partitions(request, lowering, lambda tosa: _vela(tosa, spec)),
            _configuration(spec))


def _vela_on_partitions(request: CompileRequest, lowering: Lowering,
                        vela: Callable[[bytes], bytes]) -> list[bytes]:
    """`vela` on every partition of the lowering, its failures as one line."""
    partitions = partitions_from_manifest(lowering.template_manifest, lowering.directory)
    try:
        return [vela(partition.tosa) for partition in partitions]
    except SystemExit as stop:
        raise exited(request, stop) from None
    except OrchestratorError:
        raise
    except Exception as error:  # noqa: BLE001 - Vela failures, one line
        raise lowering_error(request.options, request.model.name, error,
                             "check the Vela options (--vela-flags, --memory-mode, "
                             "--system-config)") from None


def _template_options(template: dict[str, Any]) -> CompileOptions:
    return CompileOptions(**{**template["options"],
                             "vela_flags": tuple(template["options"]["vela_flags"])})


def reproducible_template(lowering: Lowering) -> PteFile | None:
    """The template read without executorch when the installed executorch is a release
    vela_direct was checked against, packing the template again gives its bytes and its
    Ethos-U delegates carry the compile specs vela_direct makes for its options."""
    if not checked_release():
        return None
    data = lowering.template_pte.read_bytes()
    try:
        if write_pte(read_pte(data)) != data:
            return None
        template = read_pte(data)
    except (PteFormatError, KeyError, IndexError, ValueError, struct.error):
        return None
    expected = configuration_specs(_template_options(lowering.template_manifest))
    for plan, delegate, _partition in lowering.delegate_partitions:
        specs = compile_specs(template, plan, delegate)
        if {key: specs.get(key) for key in expected} != expected:
            return None
    return template


def _assembled_without_executorch(request: CompileRequest, lowering: Lowering,
                                  template: PteFile) -> tuple[bytes, dict[str, Any], int]:
    """(the .pte, its program facts, how many partitions Vela compiled)."""
    configuration = configuration_specs(request.options)
    binaries = _vela_on_partitions(
        request, lowering, lambda tosa: vela_stream(tosa, configuration["compile_flags"]))
    configure_pte(template, lowering.delegate_partitions, binaries, configuration)
    delegates = [delegate_record(*record) for record in delegate_records(template)]
    facts = with_delegates(lowering.template_manifest["program"], delegates)
    return write_pte(template), facts, len(binaries)


def _assembled_with_executorch(request: CompileRequest, lowering: Lowering
                               ) -> tuple[bytes, dict[str, Any], int]:
    binaries, configuration = _compile_partitions(request, lowering)
    pte, program = assemble(lowering.template_pte.read_bytes(),
                            lowering.delegate_partitions, binaries, configuration)
    return pte, program_facts(program), len(binaries)


def configured_manifest(request: CompileRequest, template: dict[str, Any],
                        program: dict[str, Any], vela: dict[str, Any] | None, pte_bytes: int,
                        seconds: float) -> dict[str, Any]:
    """The template's manifest with what a configuration changes."""
    manifest = dict(template)
    manifest.update({
        "key": request.key(), "target": request.options.target,
        "options": request.options.to_json(), "identity": request.identity(),
        "versions": tool_versions(), "toolset": active_toolset()["name"],
        "pte_bytes": pte_bytes, "program": program,
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
            reproducible = reproducible_template(lowering)
            pte, program, compiled = (
                _assembled_without_executorch(request, lowering, reproducible)
                if reproducible is not None else _assembled_with_executorch(request, lowering))
        finally:
            write_log(staging, captured.getvalue(), caught)
    printed = captured.getvalue()
    (staging / layout.PTE).write_bytes(pte)
    share(lowering.directory, staging)
    vela = write_vela_report(printed, staging) if compiled else None
    return configured_manifest(request, template, program, vela, len(pte),
                               time.perf_counter() - started)
