"""Hand-built TOSA graphs for Ethos-U modes that no ExecuTorch 1.4.1 lowering emits (CLZ,
tensor shift amounts, ADD/SUB whose fused input rescales take the hardware's 32-bit operand
scaling), compiled by the real Vela the way ExecuTorch's Ethos-U backend calls it.

Each graph is real TOSA 1.0 (tosa_serializer, as ExecuTorch writes it); Vela compiles it to a
command stream; the test runs that stream on the NPU model and the graph on the TOSA
reference model with the same inputs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from orchestrator.npu_model.binstream import parse_blob
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.listing import Command, model_listing, vela_listing
from orchestrator.npu_model.verify import check_partition

SHAPE = [1, 6, 6, 16]
SEED = 77


@dataclass(frozen=True)
class Graph:
    """A TOSA flatbuffer and the input sets to run it on."""

    name: str
    tosa: bytes
    inputs: tuple[tuple[np.ndarray[Any, Any], ...], ...]


class _Builder:
    """A one-region TOSA 1.0 graph (tosa_serializer, imported lazily: it is an aot extra)."""

    def __init__(self) -> None:
        import tosa_serializer as ts  # type: ignore[import-untyped]

        self.ts = ts
        self.graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0,
                                       targetDraft=False)
        self.count = 0
        self.tensors: dict[str, Any] = {}

    def dtype(self, name: str) -> Any:
        return getattr(self.ts.DType, name.upper())

    def input(self, dtype: str, shape: list[int] = SHAPE) -> str:
        name = f"input_{self.count}"
        self.count += 1
        self.graph.addInputTensor(self.ts.TosaSerializerTensor(name, shape, self.dtype(dtype),
                                                               data=None))
        return name

    def const(self, dtype: str, values: list[int]) -> str:
        self.count += 1
        return str(self.graph.addConst([len(values)], self.dtype(dtype), values,
                                       name=f"const_{self.count}").name)

    def shape(self, values: list[int]) -> str:
        """A constant of TOSA's shape type (RESIZE's scale, offset and border)."""
        self.count += 1
        return str(self.graph.addConst([len(values)], self.ts.DType.SHAPE, values,
                                       name=f"shape_{self.count}").name)

    def op(self, op: str, inputs: list[str], dtype: str, attribute: str,
           *args: Any, shape: list[int] = SHAPE) -> str:
        out = self.graph.addIntermediate(shape, self.dtype(dtype))
        attr = self.ts.TosaSerializerAttribute()
        getattr(attr, attribute)(*args)
        self.graph.addOperator(getattr(self.ts.Op, op), inputs=inputs, outputs=[out.name],
                               attributes=attr)
        self.tensors[str(out.name)] = out
        return str(out.name)

    def rescale(self, source: str, in_dtype: str, out_dtype: str, multiplier: int,
                shift: int, shape: list[int] = SHAPE) -> str:
        """TOSA RESCALE, single round, zero points 0 (what ExecuTorch emits around ADD/SUB);
        a 16-bit multiplier for an int48 input (TOSA: scale32 is false for int48)."""
        scale32 = in_dtype != "int48"
        operands = [source, self.const("int32" if scale32 else "int16", [multiplier]),
                    self.const("int8", [shift]), self.const(in_dtype, [0]),
                    self.const(out_dtype, [0])]
        return self.op("RESCALE", operands, out_dtype, "RescaleAttribute", scale32,
                       self.ts.RoundingMode.SINGLE_ROUND, False, False, False, shape=shape)

    def finish(self, output: str) -> bytes:
        self.graph.addOutputTensor(self.tensors[output])
        return bytes(self.graph.serialize())


def _full_range(dtype: str, seed: int, shape: list[int] = SHAPE) -> np.ndarray[Any, Any]:
    info = np.iinfo(np.dtype(dtype))
    generator = np.random.default_rng(seed)
    values: np.ndarray[Any, Any] = generator.integers(info.min, info.max, size=shape,
                                                      endpoint=True, dtype=np.int64)
    return values.astype(dtype)


def _shift_amounts(seed: int) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).integers(0, 31, size=SHAPE, endpoint=True,
                                                dtype=np.int32)


def _clz_inputs(seed: int) -> np.ndarray[Any, Any]:
    """Full-range int32 with every leading-zero count present (0, 1, 2^k - 1, -1, extremes)."""
    values = _full_range("int32", seed).reshape(-1)
    specials = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31)] + [(1 << k) - 1 for k in range(2, 32)]
    values[:len(specials)] = specials
    shifted = values[len(specials):2 * len(specials)] >> np.arange(len(specials)) % 32
    values[len(specials):2 * len(specials)] = shifted
    return values.reshape(SHAPE)


def clz() -> Graph:
    builder = _Builder()
    out = builder.op("CLZ", [builder.input("int32")], "int32", "ClzAttribute")
    sets = tuple((_clz_inputs(SEED + seed),) for seed in range(2))
    return Graph("clz", builder.finish(out), sets)


def shift_tensor(op: str) -> Graph:
    """LOGICAL_LEFT_SHIFT / ARITHMETIC_RIGHT_SHIFT (round, as ExecuTorch sets it for U55/U65)
    with a feature map of shift amounts in 0..31 (TOSA's valid range)."""
    builder = _Builder()
    value, amount = builder.input("int32"), builder.input("int32")
    if op == "LOGICAL_LEFT_SHIFT":
        out = builder.op(op, [value, amount], "int32", "LogicalLeftShiftAttribute")
    else:
        out = builder.op(op, [value, amount], "int32", "ArithmeticRightShiftAttribute", True)
    sets = tuple((_full_range("int32", SEED + seed), _shift_amounts(SEED + 10 + seed))
                 for seed in range(2))
    return Graph(op.lower(), builder.finish(out), sets)


def logical_right_shift(dtype: str = "int32") -> Graph:
    """LOGICAL_RIGHT_SHIFT with a feature map of amounts in 0..31: regor maps it to OpType::SHR
    (compiler/graph_builder.cpp:64), which the U85 writes as elementwise mode LSR
    (ethos_u85_register_cs_generator.cpp:172); U55/U65 have no such mode."""
    builder = _Builder()
    value, amount = builder.input(dtype), builder.input(dtype)
    out = builder.op("LOGICAL_RIGHT_SHIFT", [value, amount], dtype, "LogicalRightShiftAttribute")
    bits = np.iinfo(np.dtype(dtype)).bits
    sets = tuple((_full_range(dtype, SEED + seed),
                  _shift_amounts(SEED + 30 + seed).astype(dtype) % bits) for seed in range(2))
    return Graph(f"lsr_{dtype}", builder.finish(out), sets)


def right_shift_to_int8() -> Graph:
    """ARITHMETIC_RIGHT_SHIFT then a unit RESCALE to int8: Vela fuses the rescale into the
    SHR command (regor s_validAsrOfmTypes: int8/int16/int32 OFM), which saturates."""
    builder = _Builder()
    value, amount = builder.input("int32"), builder.input("int32")
    shifted = builder.op("ARITHMETIC_RIGHT_SHIFT", [value, amount], "int32",
                         "ArithmeticRightShiftAttribute", True)
    out = builder.rescale(shifted, "int32", "int8", 1 << 30, 30)
    sets = tuple((_full_range("int32", SEED + seed) >> 12, _shift_amounts(SEED + 20 + seed))
                 for seed in range(2))
    return Graph("asr_int8", builder.finish(out), sets)


# regor ethos_u55_constraints.cpp SupportsAdvancedAddSubIFMScaling: the larger input scale must
# be exactly this power of two for Vela to fuse the input rescales into a 32-bit scale mode.
FIXED_SHIFT = {"int8": 19, "int16": 14}


def add_sub_advanced(op: str, dtype: str, swap: bool = False) -> Graph:
    """RESCALE both inputs to int32 (one by exactly 2^FIXED_SHIFT, the other by a smaller
    32-bit scale), ADD or SUB, RESCALE back: Vela makes one ADD/SUB in OPA_32/OPB_32 mode."""
    builder = _Builder()
    first, second = builder.input(dtype), builder.input(dtype)
    unit = builder.rescale(first, dtype, "int32", 1 << 30, 30 - FIXED_SHIFT[dtype])
    scaled = builder.rescale(second, dtype, "int32", 1_518_500_250, 31 - FIXED_SHIFT[dtype] + 1)
    operands = [scaled, unit] if swap else [unit, scaled]
    summed = builder.op(op, operands, "int32", f"{op.capitalize()}Attribute")
    out = builder.rescale(summed, "int32", dtype, 1_431_655_765, 31 + FIXED_SHIFT[dtype])
    sets = tuple((_full_range(dtype, SEED + seed), _full_range(dtype, SEED + 30 + seed))
                 for seed in range(2))
    suffix = "_swapped" if swap else ""
    return Graph(f"{op.lower()}_{dtype}_advanced{suffix}", builder.finish(out), sets)


GRAPHS: dict[str, Callable[[], Graph]] = {
    "clz": clz,
    "shl_tensor": lambda: shift_tensor("LOGICAL_LEFT_SHIFT"),
    "asr_tensor": lambda: shift_tensor("ARITHMETIC_RIGHT_SHIFT"),
    "asr_int8": right_shift_to_int8,
    "add_int8_advanced": lambda: add_sub_advanced("ADD", "int8"),
    "add_int16_advanced": lambda: add_sub_advanced("ADD", "int16"),
    "sub_int16_advanced": lambda: add_sub_advanced("SUB", "int16"),
    "sub_int16_advanced_swapped": lambda: add_sub_advanced("SUB", "int16", swap=True),
}


# The U85's integer elementwise modes from TOSA operators ExecuTorch does not emit (or not
# with a feature map of amounts): CLZ, LSR, SHL, SHR (regor's kElementwiseMap).
U85_GRAPHS: dict[str, Callable[[], Graph]] = {
    "clz": clz,
    "lsr_tensor": logical_right_shift,
    "shl_tensor": GRAPHS["shl_tensor"],
    "asr_tensor": GRAPHS["asr_tensor"],
}


@dataclass(frozen=True)
class ResizeAxis:
    """TOSA RESIZE on one axis: IFM extent, scale n/d, offset, border."""

    extent: int
    n: int
    d: int
    offset: int = 0
    border: int = 0

    def output(self) -> int:
        """The OFM extent TOSA requires ((extent - 1) * n - offset + border) / d + 1."""
        numerator = (self.extent - 1) * self.n - self.offset + self.border
        assert numerator % self.d == 0, self
        return numerator // self.d + 1


def resize(name: str, mode: str, y: ResizeAxis, x: ResizeAxis, dtype: str = "int8",
           depth: int = 8, rescale_shift: int | None = None) -> Graph:
    """One TOSA RESIZE (full-range inputs); BILINEAR's wide result (int32/int48) RESCALEd by
    2^-rescale_shift back to `dtype`, as ExecuTorch follows it (rewrite_upsample.py), which
    Vela fuses into the RESIZE when it is a pure shift."""
    builder = _Builder()
    in_shape = [1, y.extent, x.extent, depth]
    out_shape = [1, y.output(), x.output(), depth]
    wide = "int32" if dtype == "int8" else "int48"
    out_dtype = wide if mode == "BILINEAR" else dtype
    operands = [builder.input(dtype, in_shape), builder.shape([y.n, y.d, x.n, x.d]),
                builder.shape([y.offset, x.offset]), builder.shape([y.border, x.border])]
    out = builder.op("RESIZE", operands, out_dtype, "ResizeAttribute",
                     getattr(builder.ts.ResizeMode, mode), shape=out_shape)
    if rescale_shift is not None:
        unit_shift = 30 if out_dtype == "int32" else 14    # a 32- or 16-bit multiplier
        out = builder.rescale(out, out_dtype, dtype, 1 << unit_shift,
                              unit_shift + rescale_shift, out_shape)
    sets = tuple((_full_range(dtype, SEED + seed, in_shape),) for seed in range(2))
    return Graph(name, builder.finish(out), sets)


# RESIZE variants no ExecuTorch upsample emits (rewrite_upsample.py: n and d doubled, offset
# d/2 - n/2, border to fit): an upscale with an offset past n (regor graphir_optimiser.cpp
# ConvertResizeOffsets slices the IFM and keeps offset mod n) and a negative one on the other
# axis, OFMs wider than one OFM block (the RESIZE_X_STEP block step), a 5/3 downscale with a
# negative border, full-range int8 and int16 values.
RESIZE_GRAPHS: dict[str, Callable[[], Graph]] = {
    "resize_nearest_offset": lambda: resize("resize_nearest_offset", "NEAREST",
                                            ResizeAxis(6, 3, 2, offset=4, border=1),
                                            ResizeAxis(6, 3, 2, offset=-2, border=1)),
    "resize_bilinear_wide": lambda: resize("resize_bilinear_wide", "BILINEAR",
                                           ResizeAxis(3, 2, 1), ResizeAxis(40, 2, 1),
                                           rescale_shift=2),
    "resize_nearest_int16_down": lambda: resize("resize_nearest_int16_down", "NEAREST",
                                                ResizeAxis(6, 3, 5), ResizeAxis(40, 3, 5,
                                                                                border=-2),
                                                dtype="int16"),
    "resize_bilinear_int16_offset": lambda: resize("resize_bilinear_int16_offset", "BILINEAR",
                                                   ResizeAxis(5, 4, 3, offset=5, border=1),
                                                   ResizeAxis(33, 2, 1, offset=-1, border=1),
                                                   dtype="int16", rescale_shift=3),
}


def vela_flags(target: str) -> list[str]:
    """The Vela flags ExecuTorch's Ethos-U backend passes for `target`."""
    with warnings.catch_warnings():   # executorch's import warns (deprecated APIs it uses)
        warnings.simplefilter("ignore")
        from executorch.backends.arm.ethosu.compile_spec import EthosUCompileSpec

    return list(EthosUCompileSpec(target).compiler_flags)


def compile_graph(tosa: bytes, target: str, extra_flags: list[str] | None = None) -> bytes:
    """The VelaBinStream ExecuTorch's own Vela wrapper makes of `tosa` for `target` (with
    `extra_flags` after ExecuTorch's, e.g. another memory mode)."""
    flags = [*vela_flags(target), *(extra_flags or [])]
    from executorch.backends.arm.arm_vela import vela_compile

    return bytes(vela_compile(tosa, flags))


def assert_exact_and_listed(graph: Graph, target: str, directory: Path) -> list[Command]:
    """Compile `graph` for `target`; every input set bit-exact against the TOSA reference model
    and every command decoded as Vela lists it (the graph written to `directory` for Vela).
    Returns the listing."""
    program = parse_blob(compile_graph(graph.tosa, target))
    seconds: dict[str, float] = {}
    for index, inputs in enumerate(graph.inputs):
        checks = check_partition(0, graph.tosa, program, Npu.for_target_name(target), inputs,
                                 f"set-{index}", seconds)
        assert checks, f"{graph.name}: nothing compared"
        assert [c.to_json() for c in checks if not c.exact] == [], f"{graph.name} on {target}"
    tosa = directory / f"{graph.name}.tosa"
    tosa.write_bytes(graph.tosa)
    listing = model_listing(program.cmd_data)
    assert listing == vela_listing(tosa, vela_flags(target))
    return listing
