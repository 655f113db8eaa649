"""The C core through its host build: payload checks, config mismatch, refusals (no compile)."""

from __future__ import annotations

import ctypes
import struct

import pytest

from orchestrator.npu_model import gen_regs
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.hostlib import ModelStatus, NpuConfig, load_library
from orchestrator.npu_model.listing import model_listing

COP1 = 0x31504F43
OPTIMIZER_CONFIG = 1
COMMAND_STREAM = 2
STOP = 0xFFFF0000          # NPU_OP_STOP, param 0xffff
U55_128_CONFIG = 7         # config_r: macs_per_cc = log2(128), product 0 (U55)
U65_512_CONFIG = 9 | (1 << 28)


def payload(config: int, *commands: int) -> bytes:
    words = [COP1, OPTIMIZER_CONFIG, config, 0, COMMAND_STREAM | (len(commands) << 16), *commands]
    return struct.pack(f"<{len(words)}I", *words)


def invoke(data: bytes, npu: Npu) -> tuple[int, str]:
    status = ModelStatus()
    bases = (ctypes.c_uint64 * 1)(0)
    sizes = (ctypes.c_size_t * 1)(0)
    config = NpuConfig(npu.arch, npu.macs, npu.cores)
    code = load_library().npu_model_invoke(ctypes.byref(config), data, len(data), bases,
                                              sizes, 1, ctypes.byref(status))
    return code, status.message.decode()


def test_tables_come_from_vela() -> None:
    text = gen_regs.render()
    assert "#define EM_CMD0_NPU_OP_CONV 0x2u" in text
    assert "#define EM_CMD1_NPU_SET_OFM_SCALE 0x24u" in text
    assert gen_regs.kernel_stride_bits()["PART_KERNEL_FIRST"] == 2


def test_a_stop_only_stream_runs() -> None:
    assert invoke(payload(U55_128_CONFIG, STOP), Npu(55, 128, 1)) == (0, "")


def test_not_a_cop1_payload_is_refused() -> None:
    code, message = invoke(b"\0" * 8, Npu(55, 128, 1))
    assert code == 1 and "not a COP1 driver payload" in message


def test_payload_for_another_npu_names_both() -> None:
    code, message = invoke(payload(U55_128_CONFIG, STOP), Npu(65, 256, 2))
    assert code == 2
    assert "Ethos-U55 with 128 MACs" in message and "Ethos-U65-512" in message


def test_dual_core_u65_payload_matches_its_target() -> None:
    assert invoke(payload(U65_512_CONFIG, STOP), Npu.for_target("ethos-u65", 512))[0] == 0


@pytest.mark.parametrize(("word", "needle"), [
    (0x0000_0107 | (2 << 16), None),           # NPU_SET_IFM_UPSCALE 2: a register write, fine
    (0x0000_0004, "unknown cmd0 opcode 0x4"),  # a reserved opcode
])
def test_unknown_commands_stop_with_their_name(word: int, needle: str | None) -> None:
    code, message = invoke(payload(U55_128_CONFIG, word, STOP), Npu(55, 128, 1))
    assert (code == 0) if needle is None else (code == 3 and needle in message)


def test_listing_names_every_command() -> None:
    listed = model_listing(payload(U55_128_CONFIG, 0x0001_010F, 0x0000_4000, 0x100, STOP))
    assert listed == [(0, "NPU_SET_IFM_REGION", 1, None), (4, "NPU_SET_IFM_BASE0", 0, 0x100),
                      (12, "NPU_OP_STOP", 0xFFFF, None)]
