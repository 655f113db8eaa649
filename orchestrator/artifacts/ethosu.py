"""What an Ethos-U delegate says about itself: the compile specs (target, system config,
memory mode, Vela flags) and the VelaBinStream blocks (the command stream's OPTIMIZER_CONFIG
with the product and MACs it was compiled for, scratch size, weight bytes, external blocks).
Layouts: executorch 1.4.1 backends/arm/ethosu/compile_spec.py and arm_vela.py; the driver's
custom operator payload (ethosu_driver.c: "COP1", driver actions, struct opt_cfg_s) and its
CONFIG register layout (ethosu55_interface.h / ethosu85_interface.h: macs_per_cc bits 0-3,
cmd_stream_version bits 4-7, product bits 28-31)."""

from __future__ import annotations

import shlex
import struct
from dataclasses import dataclass, field

from orchestrator.aot.assembly.program_info import ETHOSU_BACKEND, vela_blocks

COP_FOURCC = 0x31504F43          # "COP1"
OPTIMIZER_CONFIG = 1
PRODUCTS = {0: "Ethos-U55", 1: "Ethos-U65", 2: "Ethos-U85"}
# Flags EthosUCompileSpec writes itself; the rest are the user's Vela flags.
SPEC_FLAGS = ("--accelerator-config", "--config", "--output-format", "--system-config",
              "--memory-mode")


@dataclass(frozen=True)
class OptimizerConfig:
    """The NPU a command stream was compiled for (checked by the driver against the
    hardware's CONFIG register before it runs anything)."""

    product: str
    macs: int
    cmd_stream_version: int

    @property
    def target(self) -> str:
        """The target name this configuration is (ethos-u85-128 ...)."""
        return f"{self.product.lower()}-{self.macs}"


@dataclass(frozen=True)
class EthosUDelegate:
    """One Ethos-U delegate's facts (None: the delegate does not record it)."""

    target: str | None
    system_config: str | None
    memory_mode: str | None
    vela_flags: tuple[str, ...]
    tosa_spec: str | None
    optimizer: OptimizerConfig | None
    scratch_bytes: int | None
    weight_bytes: int | None
    command_stream_bytes: int | None
    external_blocks: tuple[str, ...] = field(default=())
    fast_scratch_bytes: int | None = None   # not in a 1.4.1 VelaBinStream

    def to_dict(self) -> dict[str, object]:
        optimizer = self.optimizer
        return {"target": self.target, "system_config": self.system_config,
                "memory_mode": self.memory_mode, "vela_flags": list(self.vela_flags),
                "tosa_spec": self.tosa_spec,
                "optimizer_config": None if optimizer is None else {
                    "product": optimizer.product, "macs": optimizer.macs,
                    "cmd_stream_version": optimizer.cmd_stream_version,
                    "target": optimizer.target},
                "scratch_bytes": self.scratch_bytes,
                "fast_scratch_bytes": self.fast_scratch_bytes,
                "weight_bytes": self.weight_bytes,
                "command_stream_bytes": self.command_stream_bytes,
                "external_blocks": list(self.external_blocks)}


def flag_values(flags: list[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """(--name=value of the flags the compile spec writes, every other flag)."""
    known: dict[str, str] = {}
    others = []
    for flag in flags:
        name, _, value = flag.partition("=")
        if name in SPEC_FLAGS:
            known[name] = value
        else:
            others.append(flag)
    return known, tuple(others)


def optimizer_config(cmd_data: bytes) -> OptimizerConfig | None:
    """The OPTIMIZER_CONFIG driver action of a custom operator payload, if it has one."""
    if len(cmd_data) < 12 or struct.unpack_from("<I", cmd_data)[0] != COP_FOURCC:
        return None
    action, _, _ = struct.unpack_from("<BBH", cmd_data, 4)
    if action != OPTIMIZER_CONFIG:
        return None
    (config,) = struct.unpack_from("<I", cmd_data, 8)
    product = config >> 28
    return OptimizerConfig(PRODUCTS.get(product, f"product {product}"), 1 << (config & 0xF),
                           (config >> 4) & 0xF)


def ethosu_delegate(compile_specs: dict[str, bytes], blob: bytes) -> EthosUDelegate:
    """The facts of one Ethos-U delegate from its compile specs and processed blob."""
    text = {key: value.decode("utf-8", "replace") for key, value in compile_specs.items()}
    known, others = flag_values(shlex.split(text.get("compile_flags", "")))
    blocks = list(vela_blocks(blob))
    inside = {block.name: block.data for block in blocks if not block.external}
    scratch = inside.get("scratch_size", b"")
    cmd = inside.get("cmd_data")
    return EthosUDelegate(
        target=text.get("target") or known.get("--accelerator-config"),
        system_config=known.get("--system-config"), memory_mode=known.get("--memory-mode"),
        vela_flags=others, tosa_spec=text.get("tosa_spec"),
        optimizer=optimizer_config(cmd) if cmd else None,
        scratch_bytes=int(struct.unpack_from("<I", scratch)[0]) if len(scratch) >= 4 else None,
        weight_bytes=len(inside["weight_data"]) if "weight_data" in inside else None,
        command_stream_bytes=len(cmd) if cmd is not None else None,
        external_blocks=tuple(block.name for block in blocks if block.external))


def is_ethosu(backend: str) -> bool:
    """Is `backend` the Ethos-U delegate's id?"""
    return backend == ETHOSU_BACKEND
