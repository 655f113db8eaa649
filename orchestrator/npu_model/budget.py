"""Whether checking one partition fits in this machine's memory, said before it runs.

An observed run holds the regions (weights, scratch, fast scratch) a few times over (the run
itself, the copy before each operation, an int32 owner per byte for the write checks);
localisation holds every intermediate tensor of the TOSA graph twice (the reference model's and
each OFM read back), and the reference model its own copy while it runs. The host library keeps
its weight decodes (a copy of the streams, int16 weights twice: firmware/npu_model/CMakeLists.txt
bounds the store at 256 MiB). Available memory is
the kernel's MemAvailable, or less under an address-space limit (ulimit -v)."""

from __future__ import annotations

import resource
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import FAST_SCRATCH_BYTES
from orchestrator.tosa.graph import tensor_bytes
from orchestrator.tosa.intermediates import intermediate_names

REGION_COPIES = 7          # observed: run + before-copy (1 byte each) + int32 owner (4) + 1
INTERMEDIATE_COPIES = 3    # the reference's, the OFMs read back, the reference model's own
RUN_COPIES = 2             # outputs only: the run and its inputs/outputs
DECODE_COPIES = 5          # the kept stream (1 byte a weight or less) + two int16 copies
DECODE_STORE_BYTES = 256 << 20   # the host library's weight buffers at most

MEMINFO = Path("/proc/meminfo")
GIB = 1 << 30


def needed_bytes(program: VelaProgram, tosa: bytes, locate: bool = True) -> int:
    """Estimated peak of checking one partition (with `locate`: localisation and write
    checks too; the TOSA reference model holds every intermediate tensor either way)."""
    sizes = tensor_bytes(tosa)
    intermediates = sum(sizes.get(name, 0) for name in intermediate_names(tosa))
    regions = program.scratch_size + FAST_SCRATCH_BYTES
    decodes = min(DECODE_COPIES * len(program.weight_data), DECODE_STORE_BYTES)
    return len(program.weight_data) + decodes + \
        (REGION_COPIES if locate else RUN_COPIES) * regions + \
        (INTERMEDIATE_COPIES if locate else 1) * intermediates


def available_bytes() -> int | None:
    """What this process may still allocate (None when the system does not say)."""
    found = []
    if MEMINFO.is_file():
        for line in MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    limit, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if limit != resource.RLIM_INFINITY:
        used = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
        found.append(limit - used)
    return min(found) if found else None


def ensure_fits(program: VelaProgram, tosa: bytes, partition: int, locate: bool = True
                ) -> None:
    """A one-line refusal when checking `partition` would not fit in memory."""
    needed, available = needed_bytes(program, tosa, locate), available_bytes()
    if available is not None and needed > available:
        smaller = ("; invoke verify --no-locate compares the outputs only, in less memory"
                   if locate else "")
        raise OrchestratorError(
            f"checking NPU partition {partition} {'with localisation ' if locate else ''}needs "
            f"about {needed / GIB:.1f} GiB (its scratch is {program.scratch_size / GIB:.2f} "
            f"GiB) and {available / GIB:.1f} GiB is available",
            f"free memory or run it on a larger machine{smaller}")
