"""Run one Ethos-U delegate (a VelaProgram) on the host build of the NPU model."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import VelaIO, VelaProgram
from orchestrator.npu_model.coverage import place_stop
from orchestrator.npu_model.hostlib import OBSERVER, ModelStatus, NpuConfig, Operation, load_library
from orchestrator.targets import load_catalogue

# Sees each NPU operation just run and the regions (weights, scratch, fast scratch) after it.
OperationObserver = Callable[[Operation, list[np.ndarray[Any, Any]]], None]

SCRATCH_REGION = 1
FAST_SCRATCH_REGION = 2
FAST_SCRATCH_BYTES = 4 << 20   # region 2 (Dedicated_Sram's fast scratch); zero-filled
U65 = "ethos-u65"
U85 = "ethos-u85"
MODELLED = ("ethos-u55", U65, U85)
U65_DUAL_CORE_MACS = 512       # regor ethos_u65.cpp s_EthosU65Configs: 512 = 2 cores x 256


@dataclass(frozen=True)
class Npu:
    """The NPU configuration a payload must have been compiled for."""

    arch: int
    macs: int
    cores: int

    @classmethod
    def for_target(cls, family: str, macs: int) -> Npu:
        """U65-512 is two 256-MAC cores; a U85 is named by its total MACs (its COP1 config
        word's MAC count), its weight decoders are the model's business."""
        if family == U65 and macs == U65_DUAL_CORE_MACS:
            return cls(arch=65, macs=macs // 2, cores=2)
        return cls(arch=int(family.rsplit("-u", 1)[1]), macs=macs, cores=1)

    @classmethod
    def for_target_name(cls, name: str) -> Npu:
        """The NPU of a catalogue target; a one-line error for targets the model lacks."""
        target = load_catalogue().target(name)
        if target.npu is None or target.macs is None or target.npu.name not in MODELLED:
            raise OrchestratorError(
                f"target {name} has no Ethos-U55/U65/U85 NPU for the NPU model",
                "pick an ethos-u55-*, ethos-u65-* or ethos-u85-* target (invoke targets)")
        return cls.for_target(target.npu.name, target.macs)

    def label(self) -> str:
        return f"Ethos-U{self.arch}-{self.macs * self.cores}"


def _place(scratch: np.ndarray[Any, Any], io: VelaIO, array: np.ndarray[Any, Any],
           index: int) -> None:
    data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    if io.region != SCRATCH_REGION or data.size != io.nbytes:
        raise OrchestratorError(
            f"delegate input {index} does not fit its slot (region {io.region}, "
            f"{io.nbytes} bytes; got {data.size} bytes)",
            "recompile the model: invoke compile --model <model> --target <target>")
    scratch[io.offset:io.offset + io.nbytes] = data


# The host library keeps its working buffers, weight cache and observer in static storage
# (the same C runs in the firmware, without malloc), and ctypes releases the GIL during a
# call: two threads in it at once (regress cells' write checks side by side) corrupt each
# other. One call at a time per process.
_ONE_CALL_AT_A_TIME = threading.RLock()


def _invoke(library: Any, config: NpuConfig, command: np.ndarray[Any, Any],
            regions: list[np.ndarray[Any, Any]], status: ModelStatus,
            observe: OperationObserver | None) -> int:
    with _ONE_CALL_AT_A_TIME:
        return _invoke_alone(library, config, command, regions, status, observe)


def _invoke_alone(library: Any, config: NpuConfig, command: np.ndarray[Any, Any],
                  regions: list[np.ndarray[Any, Any]], status: ModelStatus,
                  observe: OperationObserver | None) -> int:
    bases = (ctypes.c_uint64 * 3)(*(r.ctypes.data for r in regions))
    sizes = (ctypes.c_size_t * 3)(*(r.size for r in regions))

    def seen(operation: Any, _user: Any) -> int:
        if observe is not None:
            observe(operation.contents, regions)
        return 0

    callback = OBSERVER(seen)
    library.npu_model_observe(callback if observe is not None else OBSERVER(), None)
    try:
        code: int = library.npu_model_invoke(
            ctypes.byref(config), command.ctypes.data, command.size, bases, sizes, 3,
            ctypes.byref(status))
    finally:
        library.npu_model_observe(OBSERVER(), None)
    return code


def run_program(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]],
                observe: OperationObserver | None = None,
                on_start: Callable[[np.ndarray[Any, Any]], None] | None = None,
                library: ctypes.CDLL | None = None) -> list[bytes]:
    """Raw bytes of each output after running the command stream on `inputs` (`observe`
    sees every NPU operation as it completes, `on_start` the scratch with the inputs placed;
    `library`: another build of the core than the host library, hostlib.bind-typed)."""
    if len(inputs) != len(program.inputs):
        raise OrchestratorError(f"the delegate takes {len(program.inputs)} inputs, "
                                f"got {len(inputs)}", "check the partition's interface")
    scratch = np.zeros(max(program.scratch_size, 16), dtype=np.uint8)
    for index, (io, array) in enumerate(zip(program.inputs, inputs, strict=True)):
        _place(scratch, io, array, index)
    if on_start is not None:
        on_start(scratch)
    weights = np.frombuffer(program.weight_data or b"\0", dtype=np.uint8).copy()
    fast = np.zeros(FAST_SCRATCH_BYTES, dtype=np.uint8)
    command = np.frombuffer(program.cmd_data, dtype=np.uint8).copy()
    status = ModelStatus()
    config = NpuConfig(npu.arch, npu.macs, npu.cores)
    code = _invoke(library or load_library(), config, command, [weights, scratch, fast], status,
                   observe)
    if code != 0:
        message = status.message.decode("utf-8", "replace")
        placed = place_stop(npu.arch, message)
        message += f" ({placed})" if placed else ""
        raise OrchestratorError(f"the NPU model stopped on {npu.label()}: {message}",
                                "the model does not implement this; run it on an FVP "
                                "(invoke run --sim fvp) or file it with this message")
    return [scratch[io.offset:io.offset + io.nbytes].tobytes() for io in program.outputs]
