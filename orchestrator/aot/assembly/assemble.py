"""Assemble a configuration's .pte from a lowering's template program (imports executorch).

A lowered program emitted for two configurations of one NPU family differs only in its
Ethos-U delegates: each delegate's Vela binary (program.backend_delegate_data, inline since
products are emitted with extract_delegate_segments=False) and the configuration entries of
its compile specs ('compile_flags' and 'target', EthosUCompileSpec._to_list in ExecuTorch
v1.4.1 backends/arm/ethosu/compile_spec.py; 'tosa_spec' and the pass pipeline entries are
the family's). Memory planning, the CPU operators and constants do not see Vela. So the
template's program is read back (deserialize_pte_binary), those two things replaced, and
serialised again as to_executorch does (serialize_pte_binary with the same defaults);
tests/aot/test_configure.py checks the bytes equal a full compile's.
"""

from __future__ import annotations

import hashlib
from typing import Any

CONFIGURATION_SPECS = ("compile_flags", "target")


def delegate_partitions(program: Any, partition_binaries: list[bytes]
                        ) -> list[tuple[int, int, int]]:
    """(plan, delegate, partition) for every delegate whose blob is a partition's binary."""
    found = []
    for plan_index, plan in enumerate(program.execution_plan):
        for index, delegate in enumerate(plan.delegates):
            blob = bytes(program.backend_delegate_data[delegate.processed.index].data)
            if blob in partition_binaries:
                found.append((plan_index, index, partition_binaries.index(blob)))
    return found


def _configured_specs(specs: list[Any], configuration: dict[str, bytes]) -> list[Any]:
    from executorch.exir.schema import CompileSpec

    return [CompileSpec(spec.key, configuration[spec.key])
            if spec.key in configuration else spec for spec in specs]


def assemble(template: bytes, placement: list[tuple[int, int, int]], binaries: list[bytes],
             configuration: dict[str, bytes]) -> tuple[bytes, Any]:
    """The template program with partition i's delegates carrying `binaries[i]` and the
    configuration compile specs; returns (the .pte bytes, the program). Delegate data is
    laid out as the emitter does: in delegate order, one entry per distinct blob."""
    from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary
    from executorch.exir.schema import BackendDelegateInlineData

    pte = deserialize_pte_binary(template)
    program = pte.program
    blob_of = {(plan, delegate): binaries[partition] for plan, delegate, partition in placement}
    data: list[Any] = []
    index_of: dict[str, int] = {}
    for plan_index, plan in enumerate(program.execution_plan):
        for index, delegate in enumerate(plan.delegates):
            blob = blob_of.get((plan_index, index))
            if blob is None:   # another backend's delegate: kept as it is
                blob = bytes(program.backend_delegate_data[delegate.processed.index].data)
            else:
                delegate.compile_specs = _configured_specs(delegate.compile_specs,
                                                           configuration)
            digest = hashlib.sha256(blob).hexdigest()
            if digest not in index_of:
                index_of[digest] = len(data)
                data.append(BackendDelegateInlineData(data=blob))
            delegate.processed.index = index_of[digest]
    program.backend_delegate_data = data
    return bytes(serialize_pte_binary(pte)), program
