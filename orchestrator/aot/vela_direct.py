"""Vela on a TOSA flatbuffer as ExecuTorch's EthosUBackend calls it, without executorch.

ExecuTorch v1.4.1: EthosUCompileSpec (backends/arm/ethosu/compile_spec.py) builds Vela's
flags as the extra flags, then --accelerator-config, --config, --output-format=raw,
--system-config and --memory-mode (each family's defaults when not chosen); its compile
specs carry them as 'compile_flags' (joined by spaces) and the target as 'target'.
EthosUBackend._compile_tosa_flatbuffer hands them, split on spaces again, to vela_compile
(backends/arm/arm_vela.py), which adds --output-dir and the .tosa file's path, runs
vela.main and packs out_vela.npz as the VelaBinStream: blocks cmd_data, weight_data,
scratch_size, inputs, outputs between vela_bin_stream and vela_end_stream, each a 16-byte
name, its length (int32) and 12 zero bytes, then its data zero-padded to 16 bytes.
"""

from __future__ import annotations

import importlib.metadata
import struct
import tempfile
from pathlib import Path
from typing import Any

from orchestrator.aot.lower.lowering import DEFAULT_VELA_CONFIG, VELA_REPORT_FLAGS
from orchestrator.aot.options import CompileOptions

# compile_spec.py _default_system_config_and_memory_mode: (system config, memory mode)
FAMILY_DEFAULTS = {"ethos-u55": ("Ethos_U55_High_End_Embedded", "Shared_Sram"),
                   "ethos-u65": ("Ethos_U65_High_End", "Dedicated_Sram_384KB"),
                   "ethos-u85": ("Ethos_U85_SYS_DRAM_Mid", "Sram_Only")}
# the executorch releases whose compile specs and VelaBinStream this module was checked
# against (tests/aot/test_aot_pte_program.py, test_aot_configure.py); others go through
# executorch
CHECKED_RELEASES = ("1.4.",)
IO_SHAPE_DIMS = 6
TOSA_NAME = "out.tosa"
NPZ_NAME = "out_vela.npz"


def checked_release() -> bool:
    """True when the installed executorch is a release this module reproduces."""
    try:
        version = importlib.metadata.version("executorch")
    except importlib.metadata.PackageNotFoundError:
        return False
    return version.startswith(CHECKED_RELEASES)


def compile_flags(options: CompileOptions) -> list[str]:
    """Vela's flags for `options`, as EthosUCompileSpec lists them."""
    family = next(name for name in FAMILY_DEFAULTS if name in options.target.lower())
    system_config, memory_mode = FAMILY_DEFAULTS[family]
    return [*VELA_REPORT_FLAGS, *options.vela_flags,
            f"--accelerator-config={options.target}",
            f"--config={options.vela_config or DEFAULT_VELA_CONFIG}",
            "--output-format=raw",
            f"--system-config={options.system_config or system_config}",
            f"--memory-mode={options.memory_mode or memory_mode}"]


def configuration_specs(options: CompileOptions) -> dict[str, bytes]:
    """The compile-spec entries a delegate carries for `options` ('compile_flags', 'target')."""
    return {"compile_flags": " ".join(compile_flags(options)).encode(),
            "target": options.target.encode()}


def _block(name: str, data: bytes) -> bytes:
    label = name.encode()[:15]
    padded = data + b"\0" * (15 - (len(data) - 1) % 16)
    return label + b"\0" * (16 - len(label)) + struct.pack("<iiii", len(data), 0, 0, 0) + padded


def _io_block(prefix: str, data: Any) -> bytes:
    shapes = data[f"{prefix}_shape"]
    packed = struct.pack("<i", len(shapes))
    for index, shape in enumerate(shapes):
        if len(shape) != IO_SHAPE_DIMS:
            raise ValueError(f"Expected {IO_SHAPE_DIMS}D shape, got {len(shape)}D")
        fields = [int(data[f"{prefix}_{name}"][index]) for name in ("elem_size", "offset",
                                                                    "region")]
        packed += struct.pack("<iiiiiiiii", *shape.tolist(), *fields)
    return packed


def stream_from_npz(npz: Path) -> bytes:
    """arm_vela.py's VelaBinStream of Vela's out_vela.npz."""
    import numpy as np

    with np.load(npz, allow_pickle=False) as data:
        if not isinstance(data["scratch_shape"][0], np.int64):
            raise RuntimeError("Expected scratch to be int64")
        blocks = {"vela_bin_stream": b"", "cmd_data": data["cmd_data"].tobytes(),
                  "weight_data": data["weight_data"].tobytes(),
                  "scratch_size": struct.pack("<I", int(data["scratch_shape"][0])),
                  "inputs": _io_block("input", data), "outputs": _io_block("output", data),
                  "vela_end_stream": b""}
    return b"".join(_block(name, block) for name, block in blocks.items())


def vela_stream(tosa: bytes, flags_spec: bytes) -> bytes:
    """Vela on `tosa` with the flags of a 'compile_flags' spec; the delegate's blob."""
    from ethosu.vela import vela

    with tempfile.TemporaryDirectory() as directory:
        tosa_path = Path(directory) / TOSA_NAME
        tosa_path.write_bytes(tosa)
        output = Path(directory) / "output"
        arguments = [*flags_spec.decode().split(" "), f"--output-dir={output}", str(tosa_path)]
        vela.main(" ".join(arguments).split(" "))
        return stream_from_npz(output / NPZ_NAME)
