"""Hand-built command streams for the NPU-model tests (unique module name).

Commands are encoded by name and field from Vela's own register description
(`ethosu.vela.ethos_u55_regs`), so no opcode or bit position is typed here. Used where no
Vela compile reaches a behaviour (rounding modes Vela never emits for U55/U65).
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orchestrator.vnpu.execute import Npu
from orchestrator.vnpu.hostlib import NpuConfig, Status, load_library

COP1 = 0x31504F43
OPTIMIZER_CONFIG = 1
COMMAND_STREAM = 2
CMD1_FLAG = 0x4000        # cmd1: 64-bit command (control bits 14-15 = 1)
U55_128_CONFIG = 7        # config_r: macs_per_cc = log2(128), product 0 (U55)
U55_128 = Npu(55, 128, 1)
FEATURE_MAP_REGION = 1


def regs() -> Any:
    from ethosu.vela.ethos_u55_regs import ethos_u55_regs

    return ethos_u55_regs


def _param(name: str, fields: dict[str, int]) -> int:
    """The 16-bit param of a cmd0 (or the 16-bit `shift`-style param of a cmd1) from fields."""
    layout = getattr(regs(), f"{name.lower()}_t")._fields_
    offset, param = 0, 0
    for entry in layout:
        fname, width = str(entry[0]), int(entry[2])
        if fname in fields:
            value = fields[fname]
            assert 0 <= value < (1 << width), (name, fname, value)
            assert offset >= 16, (name, fname, "field outside the param")
            param |= value << (offset - 16)
        offset += width
    return param


@dataclass
class Stream:
    """A command stream under construction (register writes and operations)."""

    words: list[int] = field(default_factory=list)

    def cmd0(self, name: str, value: int | None = None, **fields: int) -> Stream:
        code = getattr(regs().cmd0, name).value
        param = value if value is not None else _param(name, fields)
        self.words.append(code | (param & 0xFFFF) << 16)
        return self

    def cmd1(self, name: str, data: int, **fields: int) -> Stream:
        code = getattr(regs().cmd1, name).value
        self.words += [code | CMD1_FLAG | _param(name, fields) << 16, data & 0xFFFFFFFF]
        return self

    def feature_map(self, which: str, offset: int, shape: tuple[int, int, int],
                    element: int) -> Stream:
        """Region, the four tile bases, tile sizes and NHWC strides of IFM/IFM2/OFM."""
        height, width, depth = shape
        self.cmd0(f"NPU_SET_{which}_REGION", FEATURE_MAP_REGION)
        for tile in range(4):
            self.cmd1(f"NPU_SET_{which}_BASE{tile}", offset)
        self.cmd0(f"NPU_SET_{which}_HEIGHT0_M1", height - 1)
        self.cmd0(f"NPU_SET_{which}_HEIGHT1_M1", height - 1)
        self.cmd0(f"NPU_SET_{which}_WIDTH0_M1", width - 1)
        self.cmd1(f"NPU_SET_{which}_STRIDE_C", element)
        self.cmd1(f"NPU_SET_{which}_STRIDE_X", element * depth)
        self.cmd1(f"NPU_SET_{which}_STRIDE_Y", element * depth * width)
        return self

    def payload(self, config: int = U55_128_CONFIG) -> bytes:
        words = [COP1, OPTIMIZER_CONFIG, config, 0, COMMAND_STREAM | (len(self.words) + 1) << 16,
                 *self.words, regs().cmd0.NPU_OP_STOP.value | 0xFFFF << 16]
        return struct.pack(f"<{len(words)}I", *words)


def run(payload: bytes, scratch: np.ndarray[Any, Any], npu: Npu = U55_128
        ) -> tuple[int, str]:
    """Runs a payload with region 1 = `scratch` (modified in place); (status code, message)."""
    weights = np.zeros(16, dtype=np.uint8)
    regions = [weights, scratch]
    bases = (ctypes.c_uint64 * 2)(*(r.ctypes.data for r in regions))
    sizes = (ctypes.c_size_t * 2)(*(r.nbytes for r in regions))
    status = Status()
    config = NpuConfig(npu.arch, npu.macs, npu.cores)
    code = load_library().ethosu_model_invoke(ctypes.byref(config), payload, len(payload), bases,
                                              sizes, 2, ctypes.byref(status))
    return code, status.message.decode()
