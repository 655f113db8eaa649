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

from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.hostlib import ModelStatus, NpuConfig, load_library

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

    def dma_to_shram(self, source: int, destination: int, length: int) -> Stream:
        """A 1-D DMA from region 0 (weights) into SHRAM (how Vela loads a LUT)."""
        self.cmd0("NPU_SET_DMA0_SRC_REGION", region=0).cmd1("NPU_SET_DMA0_SRC", source)
        self.cmd0("NPU_SET_DMA0_DST_REGION", internal=1).cmd1("NPU_SET_DMA0_DST", destination)
        return self.cmd1("NPU_SET_DMA0_LEN", length).cmd0("NPU_OP_DMA_START", 0)

    def payload(self, config: int = U55_128_CONFIG) -> bytes:
        words = [COP1, OPTIMIZER_CONFIG, config, 0, COMMAND_STREAM | (len(self.words) + 1) << 16,
                 *self.words, regs().cmd0.NPU_OP_STOP.value | 0xFFFF << 16]
        return struct.pack(f"<{len(words)}I", *words)


@dataclass(frozen=True)
class Elementwise:
    """One ELEMENTWISE over 1 x 1 x `depth` NHWC values at offset 0 (IFM) and `ofm_offset`:
    IFM2 is the scalar `scalar`, or the IFM itself when `scalar` is None."""

    mode: str
    depth: int
    ifm: str = "S8"                  # ifm_precision member
    ofm: str = "S8"                  # ofm_precision member
    scalar: int | None = None
    scale: int = 1
    shift: int = 0
    rounding: str | int = "TFL"      # rounding member, or a raw field value
    activation: int = 0              # NPU_SET_ACTIVATION type
    clip: int = 0                    # NPU_SET_ACTIVATION act_clip_range
    act_range: tuple[int, int] | None = None   # ACTIVATION_MIN/MAX (default: the OFM type)
    ofm_offset: int = 64
    ofm_stride_c: int | None = None  # overrides the NHWC element size

    def stream(self) -> Stream:
        r = regs()
        ifm_bytes = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "S32": 4}[self.ifm]
        ofm_bytes = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "S32": 4}[self.ofm]
        shape = (1, 1, self.depth)
        low, high = self.act_range or ((-1 << (8 * min(ofm_bytes, 2) - 1)),
                                       (1 << (8 * min(ofm_bytes, 2) - 1)) - 1)
        stream = Stream().feature_map("IFM", 0, shape, ifm_bytes)
        stream.cmd0("NPU_SET_IFM_DEPTH_M1", self.depth - 1).cmd0("NPU_SET_IFM_ZERO_POINT", 0)
        stream.cmd0("NPU_SET_IFM_PRECISION", precision=r.ifm_precision[self.ifm].value)
        if self.scalar is None:
            stream.feature_map("IFM2", 0, shape, ifm_bytes).cmd0("NPU_SET_IFM2_BROADCAST", 0)
        else:
            stream.cmd0("NPU_SET_IFM2_BROADCAST", broadcast_scalar=1)
            stream.cmd0("NPU_SET_IFM2_SCALAR", self.scalar & 0xFFFF)
        stream.cmd0("NPU_SET_IFM2_PRECISION", precision=r.ifm_precision[self.ifm].value)
        stream.cmd0("NPU_SET_IFM2_ZERO_POINT", 0)
        stream.feature_map("OFM", self.ofm_offset, shape, ofm_bytes)
        if self.ofm_stride_c is not None:
            stream.cmd1("NPU_SET_OFM_STRIDE_C", self.ofm_stride_c)
        stream.cmd0("NPU_SET_OFM_HEIGHT_M1", 0).cmd0("NPU_SET_OFM_WIDTH_M1", 0)
        stream.cmd0("NPU_SET_OFM_DEPTH_M1", self.depth - 1).cmd0("NPU_SET_OFM_ZERO_POINT", 0)
        stream.cmd0("NPU_SET_OFM_PRECISION", precision=r.ofm_precision[self.ofm].value,
                    scaling=1, rounding=self.rounding if isinstance(self.rounding, int)
                    else r.rounding[self.rounding].value)
        stream.cmd0("NPU_SET_ACTIVATION", type=self.activation, act_clip_range=self.clip)
        stream.cmd0("NPU_SET_ACTIVATION_MIN", low & 0xFFFF)
        stream.cmd0("NPU_SET_ACTIVATION_MAX", high & 0xFFFF)
        stream.cmd1("NPU_SET_OFM_SCALE", self.scale, shift=self.shift)
        return stream.cmd0("NPU_OP_ELEMENTWISE", r.elementwise_mode[self.mode].value)


def run(payload: bytes, scratch: np.ndarray[Any, Any], npu: Npu = U55_128,
        weights: np.ndarray[Any, Any] | None = None) -> tuple[int, str]:
    """Runs a payload with region 0 = `weights` and region 1 = `scratch` (modified in place);
    (status code, message)."""
    weights = np.zeros(16, dtype=np.uint8) if weights is None else weights
    regions = [weights, scratch]
    bases = (ctypes.c_uint64 * 2)(*(r.ctypes.data for r in regions))
    sizes = (ctypes.c_size_t * 2)(*(r.nbytes for r in regions))
    status = ModelStatus()
    config = NpuConfig(npu.arch, npu.macs, npu.cores)
    code = load_library().npu_model_invoke(ctypes.byref(config), payload, len(payload), bases,
                                              sizes, 2, ctypes.byref(status))
    return code, status.message.decode()
