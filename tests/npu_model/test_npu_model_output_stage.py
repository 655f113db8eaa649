"""The output stage on hand-built streams (no compile): 16-bit LUT decoding and the activation
settings the model refuses (one line naming them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from npu_model_stream import Elementwise, Stream, run

from orchestrator.npu_model.execute import Npu

U55_128_LUT = (24 - 2) * 1024   # last two of the 24 SHRAM banks (the LUT DMAs of U55-128 streams)
U55_64_LUT = (16 - 2) * 1024    # last two of the 16 banks
U55_64, U55_64_CONFIG = Npu(55, 64, 1), 6   # config_r macs_per_cc = log2(64)
TABLE_0 = 16                    # activation LUT_START
CHUNK = 4096
Array = np.ndarray[Any, Any]


def lut16_words(base: Array, slope: Array) -> Array:
    """512 words: base in the low half, slope in the high half (regor RewriteTable)."""
    words = (base.astype(np.int64) & 0xFFFF) | ((slope.astype(np.int64) & 0xFFFF) << 16)
    return words.astype(np.uint32)


def run_lut16(words: Array, values: Array) -> Array:
    """max(x, x) through a 16-bit LUT in TABLE_0, int16 in and out, CHUNK values at a time."""
    out = np.zeros_like(values)
    for start in range(0, values.size, CHUNK):
        chunk = values[start:start + CHUNK]
        op = Elementwise("MAX", chunk.size, ifm="S16", ofm="S16", activation=TABLE_0,
                         rounding="NATURAL", ofm_offset=2 * chunk.size)
        stream = Stream().dma_to_shram(0, U55_128_LUT, 2048)
        stream.words += op.stream().words
        scratch = np.zeros(2 * chunk.size, dtype=np.int16)
        scratch[:chunk.size] = chunk
        code, message = run(stream.payload(), scratch.view(np.uint8),
                            weights=words.view(np.uint8).copy())
        assert code == 0, message
        out[start:start + chunk.size] = scratch[chunk.size:]
    return out


def test_lut16_extracts_the_low_seven_bits_as_regor_argmax_does() -> None:
    """regor graphir_optimiser.cpp RewriteArgmax: value = (x << 7) + (c - 1 - channel), a LUT of
    base c - 1 and slope -128 returns the channel: base + slope * fraction / 128."""
    channels = 10
    words = lut16_words(np.full(512, channels - 1), np.full(512, -128))
    x = np.arange(-256, 255, 3)
    channel = np.arange(x.size) % channels
    values = ((x << 7) + (channels - 1 - channel)).astype(np.int16)
    assert run_lut16(words, values).tolist() == channel.tolist()


def test_lut16_interpolates_every_input_rounding_half_up() -> None:
    generator = np.random.default_rng(7)
    base = generator.integers(-20000, 20000, size=512)
    slope = generator.integers(-12000, 12000, size=512)
    every = np.arange(-32768, 32768).astype(np.int16)
    biased = every.astype(np.int64) + 32768
    index, fraction = biased >> 7, biased & 0x7F
    want = base[index] + ((slope[index] * fraction + 64) >> 7)
    got = run_lut16(lut16_words(base, slope), every)
    assert got.tolist() == np.clip(want, -32768, 32767).tolist()


@pytest.mark.parametrize(("op", "needle"), [
    (Elementwise("MAX", 4, activation=3), "native TANH/SIGMOID"),
    (Elementwise("MAX", 4, activation=4), "native TANH/SIGMOID"),
    (Elementwise("MAX", 4, ifm="S16", ofm="S16", activation=TABLE_0 + 1), "16-bit LUT in slot 1"),
    (Elementwise("MAX", 4, ifm="S16", ofm="S16", activation=TABLE_0), "16-bit LUT with OFM round"),
    (Elementwise("MAX", 4, ifm="S32", ofm="S32", activation=TABLE_0), "4-byte signed OFM"),
])
def test_unmodelled_activations_are_refused(op: Elementwise, needle: str) -> None:
    code, message = run(op.stream().payload(), np.zeros(128, dtype=np.uint8))
    assert code == 3 and needle in message, message


def lut_after(ops: list[Elementwise], lut_at: int) -> Stream:
    """A 256-byte LUT DMA'd to slot 0, then `ops` in order."""
    stream = Stream().dma_to_shram(0, lut_at, 256)
    for op in ops:
        stream.words += op.stream().words
    return stream


LUT_OP = Elementwise("MAX", 4, activation=TABLE_0)
PLAIN_OP = Elementwise("MAX", 4)


def test_a_lut_nothing_loaded_is_refused() -> None:
    stream = Stream()
    stream.words += LUT_OP.stream().words
    code, message = run(stream.payload(), np.zeros(128, dtype=np.uint8))
    assert code == 3 and "LUT slot 0 read but no DMA loaded it" in message


def test_a_lut_survives_other_ops_where_shram_reserves_its_banks() -> None:
    table = (-1 - np.arange(-128, 128)).astype(np.int8).view(np.uint8)   # indexed by x + 128
    scratch = np.zeros(128, dtype=np.int8)
    scratch[:4] = [-128, -1, 0, 127]
    code, message = run(lut_after([LUT_OP, PLAIN_OP, LUT_OP], U55_128_LUT).payload(),
                        scratch.view(np.uint8), weights=table)
    assert code == 0, message
    assert scratch[64:68].tolist() == [127, 0, -1, -128]


def test_a_lut_read_after_a_16_bank_op_reused_shram_is_refused() -> None:
    """regor forgets loaded LUTs after an operation without one when SHRAM has 16 banks (no
    reserved LUT banks: ethos_u55.cpp:170; ethos_u55_register_cs_generator.cpp:1907-1913)."""
    table = np.zeros(256, dtype=np.uint8)
    ok = lut_after([LUT_OP, LUT_OP], U55_64_LUT).payload(U55_64_CONFIG)
    assert run(ok, np.zeros(128, dtype=np.uint8), U55_64, table) == (0, "")
    stale = lut_after([LUT_OP, PLAIN_OP, LUT_OP], U55_64_LUT).payload(U55_64_CONFIG)
    code, message = run(stale, np.zeros(128, dtype=np.uint8), U55_64, table)
    assert code == 3 and "since SHRAM was last reused" in message
