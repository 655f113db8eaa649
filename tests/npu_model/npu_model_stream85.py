"""Hand-built Ethos-U85 command streams for the core's tests (unique module name).

Commands are encoded by name and field from regor's ethos_u85_interface.hpp in the pinned Vela
sdist (the same header the model's tables are generated from, read through gen_regs), so no
opcode or bit position is typed here. Used where a behaviour needs checking on every value
(round modes, transposes, chaining) rather than on what one compile happens to emit.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass, field

import numpy as np
from npu_model_stream import COMMAND_STREAM, COP1, OPTIMIZER_CONFIG, run

from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.gen_regs import header_commands, header_enums
from orchestrator.npu_model.regor_source import U85_INTERFACE, regor_text

U85_128 = Npu(85, 128, 1)
U85_128_CONFIG = 0x20000117      # the COP1 config word Vela writes for U85-128 (issue #22)
CMD1_FLAG = 0x4000
FEATURE_MAP_REGION = 1
ELEMENT = {"S8": (1, "B8", "SIGNED"), "S16": (2, "B16", "SIGNED"), "S32": (4, "B32", "SIGNED"),
           "S64": (8, "B64", "SIGNED"), "U64": (8, "B64", "UNSIGNED")}
SCALE_REGION = 0                 # run() passes `weights` as region 0


@functools.lru_cache(maxsize=1)
def header() -> tuple[dict[str, dict[str, int]], dict[str, list[tuple[str, int, int]]]]:
    text = regor_text(U85_INTERFACE)
    enums = {name: dict(members) for name, members in header_enums(text).items()}
    return enums, header_commands(text)


def enum(name: str, member: str) -> int:
    return header()[0][name][member]


def _encode(struct: str, fields: dict[str, int]) -> int:
    """cmd word (cmd0) or word | data << 32 (cmd1) of the named fields of the command struct."""
    word = 0
    layout = {f: (offset, width) for f, offset, width in header()[1][struct.lower()]}
    for fname, value in fields.items():
        offset, width = layout[fname]
        assert 0 <= value < (1 << width), (struct, fname, value)
        word |= value << offset
    return word


@dataclass
class Stream85:
    """A U85 command stream under construction."""

    words: list[int] = field(default_factory=list)

    def cmd0(self, name: str, **fields: int) -> Stream85:
        self.words.append(header()[0]["cmd0_opcode"][name] | _encode(name, fields))
        return self

    def cmd1(self, name: str, struct: str | None = None, **fields: int) -> Stream85:
        """A cmd1 by opcode name; its fields are those of `struct` where the header names the
        struct otherwise (opcode NPU_SET_RESIZE_X is struct npu_set_resize_x_step_t)."""
        value = header()[0]["cmd1_opcode"][name] | CMD1_FLAG | _encode(struct or name, fields)
        self.words += [value & 0xFFFFFFFF, value >> 32]
        return self

    def precision(self, which: str, element: str, storage: str = "TILE2X2",
                  **extra: int) -> Stream85:
        _, precision, signedness = ELEMENT[element]
        return self.cmd0(f"NPU_SET_{which}_PRECISION",
                         activation_type=enum("activation_type", signedness),
                         activation_precision=enum("activation_precision", precision),
                         activation_storage=enum("activation_storage", storage), **extra)

    def feature_map(self, which: str, offset: int, strides: tuple[int, int, int],
                    tiles: tuple[int, int, int]) -> Stream85:
        """Region, bases, tile sizes (height0, height1, width0) and strides (y, x, c)."""
        self.cmd0(f"NPU_SET_{which}_REGION", region=FEATURE_MAP_REGION)
        for tile in range(4):
            self.cmd1(f"NPU_SET_{which}_BASE{tile}", addr_lo=offset)
        self.cmd0(f"NPU_SET_{which}_HEIGHT0_M1", height_m1=tiles[0] - 1)
        self.cmd0(f"NPU_SET_{which}_HEIGHT1_M1", height_m1=tiles[1] - 1)
        self.cmd0(f"NPU_SET_{which}_WIDTH0_M1", width_m1=tiles[2] - 1)
        for axis, stride in zip("YXC", strides, strict=True):
            self.cmd1(f"NPU_SET_{which}_STRIDE_{axis}", addr_lo=stride)
        return self

    def payload(self, config: int = U85_128_CONFIG) -> bytes:
        stop = header()[0]["cmd0_opcode"]["NPU_OP_STOP"] | 0xFFFF << 16
        words = [COP1, OPTIMIZER_CONFIG, config, 0, COMMAND_STREAM | (len(self.words) + 1) << 16,
                 *self.words, stop]
        return struct.pack(f"<{len(words)}I", *words)


def nhwc_strides(shape: tuple[int, int, int], element: int) -> tuple[int, int, int]:
    height, width, depth = shape
    return width * depth * element, depth * element, element


def nhcwb16_strides(shape: tuple[int, int, int], element: int) -> tuple[int, int, int]:
    """(y, x, c) strides of an NHCWB16 map as regor GetStrides writes them
    (high_level_command_stream_generator.cpp:49-56): a brick of 16 channels of `element` bytes
    per position, a row of bricks per 16 channels, the depth rounded up to 16."""
    height, width, depth = shape
    brick = 16 * element
    return element * width * (-(-depth // 16) * 16), brick, brick * width


def fmap_strides(shape: tuple[int, int, int], element: int,
                 layout: str) -> tuple[int, int, int]:
    return (nhcwb16_strides if layout == "NHCWB16" else nhwc_strides)(shape, element)


@dataclass(frozen=True)
class Elementwise85:
    """One ELEMENTWISE `mode` of an NHWC IFM (offset 0, shape `shape`) and a scalar IFM2 into
    the OFM at `ofm_offset`: OFM_SCALE (scale, shift, round mode), the OFM stored with
    `transpose` (its strides are those of the stored layout), `ofm_storage`/`ifm_storage`
    for chaining (the REGION then names chain buffer 0); IFM_SCALE and IFM2_SCALE (NATURAL)
    and the IFM zero point as given."""

    mode: str
    shape: tuple[int, int, int]
    ifm: str = "S8"
    ofm: str = "S8"
    scalar: int = 0
    scale: int = 1
    shift: int = 0
    round_mode: str = "NATURAL"
    transpose: str = "HWC"
    ofm_offset: int = 1024
    ofm_strides: tuple[int, int, int] | None = None
    ofm_tiles: tuple[int, int, int] | None = None
    ifm_storage: str = "TILE2X2"
    ofm_storage: str = "TILE2X2"
    ifm_scale: tuple[int, int] = (1, 0)      # IFM_SCALE (scale, shift), NATURAL
    ifm2_scale: tuple[int, int] = (1, 0)     # IFM2_SCALE (scale, shift), NATURAL
    ifm_zero_point: int = 0

    def emit(self, stream: Stream85) -> Stream85:
        height, width, depth = self.shape
        ifm_bytes, ofm_bytes = ELEMENT[self.ifm][0], ELEMENT[self.ofm][0]
        stream.precision("IFM", self.ifm, self.ifm_storage)
        if self.ifm_storage == "CHAINED":
            stream.cmd0("NPU_SET_IFM_REGION", region=0)
        else:
            stream.feature_map("IFM", 0, nhwc_strides(self.shape, ifm_bytes),
                               (height, height, width))
        stream.cmd0("NPU_SET_IFM_DEPTH_M1", depth_m1=depth - 1)
        stream.cmd0("NPU_SET_IFM_ZERO_POINT", zero_point=self.ifm_zero_point & 0xFFFF)
        stream.cmd0("NPU_SET_IFM_BROADCAST", broadcast_mode=enum("broadcast_mode", "NONE"))
        stream.precision("IFM2", self.ifm, "NONE")
        stream.cmd1("NPU_SET_OP_SCALAR", scalar=self.scalar & 0xFFFFFFFF)
        stream.cmd0("NPU_SET_IFM2_ZERO_POINT", zero_point=0)
        stream.cmd0("NPU_SET_IFM2_BROADCAST", broadcast_mode=enum("broadcast_mode", "SCALAR"))
        natural = enum("round_mode_ifm", "NATURAL")
        for which, (scale, shift) in (("IFM", self.ifm_scale), ("IFM2", self.ifm2_scale)):
            stream.cmd1(f"NPU_SET_{which}_SCALE", shift=shift, round_mode=natural, scale=scale)
        stream.precision("OFM", self.ofm, self.ofm_storage,
                         scale_mode=enum("ofm_scale_mode", "GLOBAL"),
                         activation_transpose=enum("activation_transpose", self.transpose))
        if self.ofm_storage == "CHAINED":
            stream.cmd0("NPU_SET_OFM_REGION", region=0)
        else:
            stream.feature_map("OFM", self.ofm_offset,
                               self.ofm_strides or nhwc_strides(self.shape, ofm_bytes),
                               self.ofm_tiles or (height, height, width))
        stream.cmd0("NPU_SET_OFM_HEIGHT_M1", height_m1=height - 1)
        stream.cmd0("NPU_SET_OFM_WIDTH_M1", width_m1=width - 1)
        stream.cmd0("NPU_SET_OFM_DEPTH_M1", depth_m1=depth - 1)
        stream.cmd0("NPU_SET_OFM_ZERO_POINT", zero_point=0)
        stream.cmd0("NPU_SET_ACTIVATION",
                    activation_function=enum("activation_function", "LUT_NONE"),
                    activation_clip_range=enum("activation_clip_range", "NONE"))
        stream.cmd1("NPU_SET_OFM_SCALE", scale=self.scale, shift=self.shift,
                    round_mode=enum("round_mode_ofm", self.round_mode))
        stream.cmd0("NPU_SET_ACC_FORMAT", acc_format=enum("acc_format", "I32"))
        return stream.cmd0("NPU_OP_ELEMENTWISE",
                           elementwise_mode=enum("elementwise_mode", self.mode))


def acc48_records(records: list[tuple[int, int, int]]) -> np.ndarray:  # type: ignore[type-arg]
    """Acc48 scale records (bias, scale, shift), 10 bytes each as regor EncodeBias48 writes them
    (ethos_u85_weight_encoder.cpp:112-129): int48 bias, uint15 scale, 6-bit shift, a zero byte."""
    data = b"".join(bias.to_bytes(6, "little", signed=True) + scale.to_bytes(2, "little")
                    + bytes([shift, 0]) for bias, scale, shift in records)
    return np.frombuffer(data, dtype=np.uint8).copy()


@dataclass(frozen=True)
class NullPool85:
    """A NONE pool whose accumulator is loaded from IFM2 (acc_input IFM2, an unread 8-bit dummy
    IFM), rescaled per channel by the records at offset 0 of region 0 into the OFM at
    `ofm_offset`: how regor rescales a 32- or 64-bit tensor (UseNullPool,
    ethos_u85_register_cs_generator.cpp GeneratePoolingOp)."""

    shape: tuple[int, int, int]
    ifm2: str = "S64"
    acc_format: str = "I48"
    ifm2_zero_point: int = 0
    ofm: str = "S16"
    ofm_offset: int = 1024
    ifm2_offset: int = 0
    ifm2_format: str = "NHWC"

    def emit(self, stream: Stream85) -> Stream85:
        height, width, depth = self.shape
        stream.precision("IFM2", self.ifm2,
                         activation_format=enum("activation_format", self.ifm2_format))
        stream.feature_map("IFM2", self.ifm2_offset,
                           fmap_strides(self.shape, ELEMENT[self.ifm2][0], self.ifm2_format),
                           (height, height, width))
        stream.cmd0("NPU_SET_IFM2_ZERO_POINT", zero_point=self.ifm2_zero_point)
        stream.precision("IFM", "S8")
        stream.cmd0("NPU_SET_IFM_DEPTH_M1", depth_m1=depth - 1)
        stream.precision("OFM", self.ofm, scale_mode=enum("ofm_scale_mode", "PER_CHANNEL"))
        stream.feature_map("OFM", self.ofm_offset, nhwc_strides(self.shape, ELEMENT[self.ofm][0]),
                           (height, height, width))
        stream.cmd0("NPU_SET_OFM_HEIGHT_M1", height_m1=height - 1)
        stream.cmd0("NPU_SET_OFM_WIDTH_M1", width_m1=width - 1)
        stream.cmd0("NPU_SET_OFM_DEPTH_M1", depth_m1=depth - 1)
        stream.cmd0("NPU_SET_OFM_ZERO_POINT", zero_point=0)
        stream.cmd0("NPU_SET_KERNEL_HEIGHT_M1", height_m1=0)
        stream.cmd0("NPU_SET_KERNEL_WIDTH_M1", width_m1=0)
        stream.cmd0("NPU_SET_SCALE_REGION", region=SCALE_REGION)
        stream.cmd1("NPU_SET_SCALE_BASE", addr_lo=0)
        stream.cmd0("NPU_SET_ACTIVATION",
                    activation_function=enum("activation_function", "LUT_NONE"),
                    activation_clip_range=enum("activation_clip_range", "NONE"))
        stream.cmd1("NPU_SET_OFM_SCALE", scale=1, shift=0,
                    round_mode=enum("round_mode_ofm", "NATURAL"))
        stream.cmd0("NPU_SET_ACC_FORMAT", acc_format=enum("acc_format", self.acc_format),
                    acc_input=enum("acc_input", "IFM2"))
        return stream.cmd0("NPU_OP_POOL", pooling_mode=enum("pooling_mode", "NONE"))


@dataclass(frozen=True)
class Resize85:
    """One NPU_OP_RESIZE of an NHWC `ifm` (offset 0, `shape`) into an `ofm` at `ofm_offset`
    (`ofm_format` NHWC or NHCWB16), as regor's GenerateResizeOp
    (ethos_u85_register_cs_generator.cpp:1878-1949) programs a 2x upscale: n = 4, d = 2, offset
    -1 on both axes (what ExecuTorch's upsample asks for), OFM blocks of `block` columns,
    OFM_SCALE scale 1 shift 16. `mode`, `ifm_zero_point`, `blk_step_mod` (X) and `acc_format`
    can be set to values regor never writes."""

    shape: tuple[int, int, int]
    mode: str = "NEAREST"
    block: int = 4
    ifm_zero_point: int = 0
    blk_step_mod: int | None = None
    ofm_offset: int = 1024
    ifm: str = "S8"
    ofm: str = "S8"
    ofm_format: str = "NHWC"
    acc_format: str = "I32"

    def emit(self, stream: Stream85) -> Stream85:
        height, width, depth = self.shape
        out = (2 * height, 2 * width, depth)
        n, d, offset = 4, 2, -1
        stream.precision("IFM", self.ifm)
        stream.feature_map("IFM", 0, nhwc_strides(self.shape, ELEMENT[self.ifm][0]),
                           (height, height, width))
        stream.cmd0("NPU_SET_IFM_DEPTH_M1", depth_m1=depth - 1)
        stream.cmd0("NPU_SET_IFM_ZERO_POINT", zero_point=self.ifm_zero_point & 0xFFFF)
        stream.cmd0("NPU_SET_IFM_UPSCALE", mode=enum("ifm_upscale_mode", "NONE"))
        stream.precision("OFM", self.ofm, scale_mode=enum("ofm_scale_mode", "GLOBAL"),
                         activation_transpose=enum("activation_transpose", "HWC"),
                         activation_format=enum("activation_format", self.ofm_format))
        stream.feature_map("OFM", self.ofm_offset,
                           fmap_strides(out, ELEMENT[self.ofm][0], self.ofm_format),
                           (out[0], out[0], out[1]))
        stream.cmd0("NPU_SET_OFM_HEIGHT_M1", height_m1=out[0] - 1)
        stream.cmd0("NPU_SET_OFM_WIDTH_M1", width_m1=out[1] - 1)
        stream.cmd0("NPU_SET_OFM_DEPTH_M1", depth_m1=depth - 1)
        stream.cmd0("NPU_SET_OFM_ZERO_POINT", zero_point=0)
        stream.cmd0("NPU_SET_ACTIVATION",
                    activation_function=enum("activation_function", "LUT_NONE"),
                    activation_clip_range=enum("activation_clip_range", "NONE"))
        stream.cmd0("NPU_SET_IFM2_ZERO_POINT", zero_point=0)
        stream.cmd1("NPU_SET_OFM_SCALE", scale=1, shift=16,
                    round_mode=enum("round_mode_ofm", "DOUBLE_SYMMETRIC"))
        block_span = (self.block - 1) * d
        blk_mod = block_span % n if self.blk_step_mod is None else self.blk_step_mod
        for axis, block_int, block_mod in (("X", block_span // n, blk_mod), ("Y", 0, 0)):
            field = f"resize_{axis.lower()}"
            stream.cmd0(f"NPU_SET_RESIZE_{axis}_SCALE_N_M1", **{f"{field}_scale_n_m1": n - 1})
            stream.cmd1(f"NPU_SET_RESIZE_{axis}", f"NPU_SET_RESIZE_{axis}_STEP",
                        one_step_int=d // n, one_step_mod=d % n,
                        blk_step_int=block_int, blk_step_mod=block_mod)
            stream.cmd0(f"NPU_SET_RESIZE_{axis}_OFFSET", **{f"{field}_offset": offset & 0xFFF})
        stream.cmd0("NPU_SET_KERNEL_HEIGHT_M1", height_m1=height - 1)
        stream.cmd0("NPU_SET_KERNEL_WIDTH_M1", width_m1=width - 1)
        stream.cmd0("NPU_SET_OFM_BLK_HEIGHT_M1", height_m1=0)
        stream.cmd0("NPU_SET_OFM_BLK_WIDTH_M1", width_m1=self.block - 1)
        stream.cmd0("NPU_SET_ACC_FORMAT", acc_format=enum("acc_format", self.acc_format))
        return stream.cmd0("NPU_OP_RESIZE", resize_mode=enum("resize_mode", self.mode))


# The stored axes (H, W, C) of each transpose hold these axes of the operation's OFM (regor
# common/transpose_type.hpp: NWCH stores W as H, C as W, H as C).
TRANSPOSES = {"WHC": (1, 0, 2), "HCW": (0, 2, 1), "WCH": (1, 2, 0), "CHW": (2, 0, 1),
              "CWH": (2, 1, 0)}


def transposed_add(transpose: str) -> tuple[Stream85, np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """An ADD of 0 to a 2x3x5 int8 IFM (offset 0) whose OFM (offset 1024) is stored with
    `transpose`: (the stream, the scratch with the IFM placed, the tensor it must store)."""
    shape = (2, 3, 5)
    source = np.arange(-15, 15, dtype=np.int8).reshape(shape)
    stored = np.transpose(source, TRANSPOSES[transpose])
    scratch = np.zeros(1024 + source.size, dtype=np.int8)
    scratch[:source.size] = source.reshape(-1)
    op = Elementwise85("ADD", shape, scalar=0, transpose=transpose,
                       ofm_strides=nhwc_strides(stored.shape, 1),
                       ofm_tiles=(stored.shape[0], stored.shape[0], stored.shape[1]))
    return op.emit(Stream85()), scratch, stored


def run85(stream: Stream85, scratch: np.ndarray,  # type: ignore[type-arg]
          weights: np.ndarray | None = None) -> tuple[int, str]:  # type: ignore[type-arg]
    return run(stream.payload(), scratch, U85_128, weights)
