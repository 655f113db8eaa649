"""Real Vela-encoded Ethos-U85 weight streams for the weight-codec tests (unique module name).

A one-layer TOSA graph (CONV2D or DEPTHWISE_CONV2D with known weights, bias and per-channel
RESCALE) is compiled by the real Vela for a U85 configuration the way ExecuTorch calls it; the
command registers come from Vela's own `--verbose-register-command-stream` listing (named
fields, so no U85 register table is needed here) and the streams from the compiled weights.
The probe library (firmware/npu_model/test/em_probe.c) runs the model's decoder on them.
"""

from __future__ import annotations

import ctypes
import functools
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from npu_model_tosa_graphs import compile_graph, vela_flags

from orchestrator.npu_model.binstream import parse_blob
from orchestrator.npu_model.hostlib import ModelStatus, build_library
from orchestrator.npu_model.listing import vela_listing_text

FIELD = re.compile(r"(\w+) = (\w+)")
LINE = re.compile(
    r"^0x[0-9a-f]+:\s+(?:([0-9a-f]{8}) )?\s*([0-9a-f]{4}) [0-9a-f]{4} - (\w+)\s+(.*)$")
WEIGHT_REGION = 0


@dataclass(frozen=True)
class Layer:
    """One convolution with int8 weights: shapes, stride, dilation and how weights are drawn."""

    ifm: tuple[int, int, int] = (8, 8, 16)     # H, W, C
    ofm_depth: int = 24
    kernel: tuple[int, int] = (3, 3)
    stride: tuple[int, int] = (1, 1)
    dilation: tuple[int, int] = (1, 1)
    depthwise: bool = False
    a16w8: bool = False
    values: tuple[int, ...] = ()              # draw weights from these (default: full int8)
    sparse: bool = False                      # 2:4 structured: 2 zeros in every 4 IFM channels
    seed: int = 1

    def weight_shape(self) -> list[int]:
        kh, kw = self.kernel
        if self.depthwise:
            return [kh, kw, self.ifm[2], self.ofm_depth // self.ifm[2]]
        return [self.ofm_depth, kh, kw, self.ifm[2]]

    def weights(self) -> np.ndarray[Any, Any]:
        rng = np.random.default_rng(self.seed)
        pool = np.array(self.values or range(-127, 128))
        weights = rng.choice(pool, size=self.weight_shape()).astype(np.int8)
        if self.sparse:
            groups = weights.reshape(-1, 4)
            for group in groups:
                group[rng.choice(4, 2, replace=False)] = 0
        return weights

    def ofm_hw(self) -> tuple[int, int]:
        (h, w, _), (kh, kw) = self.ifm, self.kernel
        (sy, sx), (dy, dx) = self.stride, self.dilation
        return (h - (kh - 1) * dy - 1) // sy + 1, (w - (kw - 1) * dx - 1) // sx + 1


@dataclass(frozen=True)
class Encoded:
    """What Vela made of a layer: expected values and the registers and streams it wrote."""

    layer: Layer
    weights: np.ndarray[Any, Any]
    bias: np.ndarray[Any, Any]
    multiplier: np.ndarray[Any, Any]
    shift: np.ndarray[Any, Any]
    registers: dict[str, tuple[int, int | None, dict[str, str]]]
    weight_data: bytes

    def field(self, command: str, name: str) -> str:
        return self.registers[command][2][name]

    def param(self, command: str) -> int:
        return self.registers[command][0]

    def data(self, command: str) -> int:
        value = self.registers[command][1]
        assert value is not None, command
        return value

    @property
    def weight_format(self) -> str:
        fmt = self.field("NPU_SET_WEIGHT_FORMAT", "weight_format").removeprefix("WEIGHT_FORMAT_")
        sparsity = self.field("NPU_SET_WEIGHT_FORMAT", "weight_sparsity")
        return fmt + ("+2:4" if sparsity.endswith("SPARSE_2_4") else "")


def _graph(layer: Layer, weights: np.ndarray[Any, Any], bias: np.ndarray[Any, Any],
           multiplier: np.ndarray[Any, Any], shift: np.ndarray[Any, Any]) -> bytes:
    import tosa_serializer as ts

    dtype = ts.DType
    act, acc = (dtype.INT16, dtype.INT48) if layer.a16w8 else (dtype.INT8, dtype.INT32)
    graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    graph.addInputTensor(ts.TosaSerializerTensor("ifm", [1, *layer.ifm], act, data=None))
    consts = {"w": (weights.shape, dtype.INT8, weights), "b": ((layer.ofm_depth,), acc, bias),
              "izp": ((1,), act, [0]), "wzp": ((1,), dtype.INT8, [0]),
              "m": ((layer.ofm_depth,), dtype.INT16 if layer.a16w8 else dtype.INT32, multiplier),
              "s": ((layer.ofm_depth,), dtype.INT8, shift), "azp": ((1,), acc, [0]),
              "ozp": ((1,), act, [0])}
    for name, (shape, kind, values) in consts.items():
        graph.addConst(list(shape), kind, np.asarray(values).reshape(-1).tolist(), name=name)
    ofm = [1, *layer.ofm_hw(), layer.ofm_depth]
    accumulated = graph.addIntermediate(ofm, acc)
    conv = ts.TosaSerializerAttribute()
    make = conv.DepthwiseConv2dAttribute if layer.depthwise else conv.Conv2dAttribute
    make([0, 0, 0, 0], list(layer.stride), list(layer.dilation), False, acc)
    graph.addOperator(ts.Op.DEPTHWISE_CONV2D if layer.depthwise else ts.Op.CONV2D,
                      inputs=["ifm", "w", "b", "izp", "wzp"], outputs=[accumulated.name],
                      attributes=conv)
    out = graph.addIntermediate(ofm, act)
    rescale = ts.TosaSerializerAttribute()
    rescale.RescaleAttribute(not layer.a16w8, ts.RoundingMode.SINGLE_ROUND, True, False, False)
    graph.addOperator(ts.Op.RESCALE, inputs=[accumulated.name, "m", "s", "azp", "ozp"],
                      outputs=[out.name], attributes=rescale)
    graph.addOutputTensor(out)
    return bytes(graph.serialize())


def _registers(listing: str) -> dict[str, tuple[int, int | None, dict[str, str]]]:
    """The last value each register took in Vela's listing (a one-operation stream)."""
    registers = {}
    for line in listing.splitlines():
        match = LINE.match(line.strip())
        if match:
            payload, param, name, rest = match.groups()
            registers[name] = (int(param, 16), None if payload is None else int(payload, 16),
                               dict(FIELD.findall(rest)))
    return registers


def encode(layer: Layer, target: str, extra_flags: tuple[str, ...] = ()) -> Encoded:
    """Compile `layer` with the real Vela for `target` (ExecuTorch's flags + `extra_flags`)."""
    rng = np.random.default_rng(layer.seed + 1000)
    weights = layer.weights()
    bias = rng.integers(-5000, 5000, size=layer.ofm_depth)
    if layer.a16w8:
        multiplier = rng.integers(1 << 14, 1 << 15, size=layer.ofm_depth)
    else:
        multiplier = rng.integers(1 << 29, 1 << 31, size=layer.ofm_depth)
    shift = rng.integers(30, 40, size=layer.ofm_depth)
    tosa = _graph(layer, weights, bias, multiplier, shift)
    flags = [*vela_flags(target), *extra_flags]
    program = parse_blob(compile_graph(tosa, target, list(extra_flags)))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "layer.tosa"
        path.write_bytes(tosa)
        listing = vela_listing_text(path, flags)
    return Encoded(layer, weights, bias, multiplier, shift, _registers(listing),
                   program.weight_data)


@functools.lru_cache(maxsize=1)
def probe() -> ctypes.CDLL:
    library = ctypes.CDLL(str(build_library(probe=True)))
    library.npu_model_probe_u85_weights.restype = ctypes.c_int
    library.npu_model_probe_u85_scales.restype = ctypes.c_int
    return library


def kernel_fields(encoded: Encoded) -> list[int]:
    """The em_kernel fields (em_probe.c's order) from the listed registers."""
    e, layer = encoded, encoded.layer
    stride = e.registers["NPU_SET_KERNEL_STRIDE"][2]
    dil_x = 2 if stride["dilation_x"].endswith("X2") else 1
    dil_y = 2 if stride["dilation_y"].endswith("X2") else 1
    ublock = re.fullmatch(r"MICROBLOCK_U(\d)X(\d)", e.field("NPU_SET_ACC_FORMAT", "microblock"))
    assert ublock is not None
    depthwise = "NPU_OP_DEPTHWISE" in e.registers
    return [(e.param("NPU_SET_KERNEL_HEIGHT_M1")) // dil_y + 1,
            (e.param("NPU_SET_KERNEL_WIDTH_M1")) // dil_x + 1, dil_x, dil_y,
            (int(stride["stride_x_msb"]) << 1 | int(stride["stride_x_lsb"])) + 1,
            (int(stride["stride_y_msb"]) << 1 | int(stride["stride_y_lsb"])) + 1,
            e.param("NPU_SET_OFM_DEPTH_M1") + 1, layer.ifm[2], int(depthwise),
            int(stride["weight_order"].endswith("PART_KERNEL_FIRST")),
            16 if layer.a16w8 else 8, e.param("NPU_SET_OFM_BLK_DEPTH_M1") + 1,
            int(ublock.group(2)), int(ublock.group(1)),
            int(e.weight_format.startswith("FWD")), int(e.weight_format.endswith("2:4"))]


def _stream(encoded: Encoded, index: int) -> tuple[bytes, int]:
    suffix = "" if index == 0 else str(index)
    if f"NPU_SET_WEIGHT{suffix}_BASE" not in encoded.registers:
        return b"", 0
    base, length = encoded.data(f"NPU_SET_WEIGHT{suffix}_BASE"), encoded.data(
        f"NPU_SET_WEIGHT{suffix}_LENGTH")
    return encoded.weight_data[base:base + length], length


def decode_weights(encoded: Encoded, macs: int) -> tuple[int, str, np.ndarray[Any, Any]]:
    """(status code, message, dense weights in the TOSA weight layout)."""
    region = encoded.field("NPU_SET_WEIGHT_REGION", "region")
    assert int(region) == WEIGHT_REGION, f"weights staged in region {region}"
    streams = [_stream(encoded, index) for index in range(4)]
    keep = [ctypes.create_string_buffer(data, max(len(data), 1)) for data, _ in streams]
    pointers = (ctypes.c_void_p * 4)(*(ctypes.addressof(buffer) for buffer in keep))
    lengths = (ctypes.c_uint32 * 4)(*(length for _, length in streams))
    fields = (ctypes.c_int * 16)(*kernel_fields(encoded))
    dense = np.zeros(encoded.weights.size, dtype=np.int16)
    status = ModelStatus()
    code = probe().npu_model_probe_u85_weights(fields, macs, pointers, lengths,
                                                  dense.ctypes.data_as(ctypes.c_void_p),
                                                  ctypes.byref(status))
    return code, status.message.decode(), dense.reshape(encoded.weights.shape)


def decode_scales(encoded: Encoded) -> tuple[np.ndarray[Any, Any], ...]:
    """(bias, scale, shift) per output channel from the scale stream."""
    depth = encoded.layer.ofm_depth
    base, length = encoded.data("NPU_SET_SCALE_BASE"), encoded.data("NPU_SET_SCALE_LENGTH")
    records = encoded.weight_data[base:base + length]
    acc48 = int(encoded.field("NPU_SET_ACC_FORMAT", "acc_format").endswith("I48"))
    bias = np.zeros(depth, dtype=np.int64)
    scale = np.zeros(depth, dtype=np.int32)
    shift = np.zeros(depth, dtype=np.uint8)
    status = ModelStatus()
    code = probe().npu_model_probe_u85_scales(
        records, ctypes.c_uint64(len(records)), depth, acc48, bias.ctypes.data_as(ctypes.c_void_p),
        scale.ctypes.data_as(ctypes.c_void_p), shift.ctypes.data_as(ctypes.c_void_p),
        ctypes.byref(status))
    assert code == 0, status.message.decode()
    return bias, scale, shift
