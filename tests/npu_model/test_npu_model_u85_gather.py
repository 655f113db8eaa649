"""Ethos-U85 gather DMA (NPU_OP_DMA_START with the source's idx_mode ENABLED), the command regor
writes for a TOSA GATHER (an nn.Embedding lowered by ExecuTorch 1.4.1: 2-D mode, int32
indices; int64 indices: 3-D mode with IDX_SKIP1 4). Verify's random inputs draw indices over
the int16 range, outside the table, where TOSA leaves GATHER undefined, so these tests run
hand-built streams whose expected result is derived from regor's definition
(high_level_command_stream_generator.cpp GenerateGatherScatter: SRC_STRIDE0 a row of values,
DST_STRIDE0 a row of the output, SRC/DST_STRIDE1 a batch, SIZE0 indices per batch, SIZE1
batches; ethos_u85_register_cs_generator.cpp GenerateDMA): output row i0 of batch i1 is row
index[i1][i0] of batch i1's values. A compiled nn.Embedding is checked too, with verify drawing
a GATHER's index inputs modulo its table rows."""

from __future__ import annotations

import numpy as np
import pytest
from npu_model_stream import run
from npu_model_stream85 import U85_128, Stream85, enum
from npu_model_support import check_case, needs_toolchain, written_values

VALUES, INDICES, OUTPUT = 0, 4096, 8192       # offsets in the feature-map region (1)
REGION = 1


def _gather_stream(mode: str, rows: int, row_bytes: int, size0: int, size1: int,
                   index_bytes: int, batch_bytes: tuple[int, int]) -> bytes:
    stream = Stream85()
    external = enum("dma_region_mode", "EXTERNAL")
    stream.cmd0("NPU_SET_DMA0_SRC_REGION", region=REGION, region_mode=external,
                stride_mode=enum("dma_stride_mode", mode), idx_mode=enum("dma_idx_mode", "ENABLED"))
    stream.cmd1("NPU_SET_DMA0_SRC", addr_lo=VALUES)
    stream.cmd0("NPU_SET_DMA0_DST_REGION", region=REGION, region_mode=external,
                idx_mode=enum("dma_idx_mode", "DISABLED"))
    stream.cmd1("NPU_SET_DMA0_DST", addr_lo=OUTPUT)
    stream.cmd1("NPU_SET_DMA0_LEN", addr_lo=row_bytes)
    stream.cmd0("NPU_SET_DMA0_SIZE0", size=size0)
    stream.cmd1("NPU_SET_DMA0_SRC_STRIDE0", addr_lo=row_bytes)
    stream.cmd1("NPU_SET_DMA0_DST_STRIDE0", addr_lo=row_bytes)
    if mode == "D3":
        stream.cmd0("NPU_SET_DMA0_SIZE1", size=size1)
        stream.cmd1("NPU_SET_DMA0_SRC_STRIDE1", addr_lo=batch_bytes[0])
        stream.cmd1("NPU_SET_DMA0_DST_STRIDE1", addr_lo=batch_bytes[1])
    stream.cmd0("NPU_SET_DMA0_IDX_REGION", region=REGION)
    stream.cmd1("NPU_SET_DMA0_IDX_MAX", idx_max=rows - 1)
    stream.cmd1("NPU_SET_DMA0_IDX", addr_lo=INDICES)
    if mode == "D3":
        stream.cmd1("NPU_SET_DMA0_IDX_SKIP1", addr_lo=index_bytes - 4)
    return stream.cmd0("NPU_OP_DMA_START").payload()


def _memory(values: np.ndarray, indices: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    memory = np.zeros(12288, dtype=np.uint8)
    memory[VALUES:VALUES + values.nbytes] = values.view(np.uint8).ravel()
    memory[INDICES:INDICES + indices.nbytes] = indices.view(np.uint8).ravel()
    return memory


def test_hand_built_stream_gather_2d_int32_indices_per_regor_definition() -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(-128, 128, size=(50, 16), dtype=np.int8)      # an embedding table
    indices = rng.integers(0, 50, size=7, dtype=np.int32)
    memory = _memory(values, indices)
    code, message = run(_gather_stream("D2", 50, 16, 7, 1, 4, (0, 0)), memory, U85_128)
    assert code == 0, message
    got = memory[OUTPUT:OUTPUT + 7 * 16].view(np.int8).reshape(7, 16)
    np.testing.assert_array_equal(got, values[indices])


def test_hand_built_stream_gather_3d_batches_per_regor_definition() -> None:
    rng = np.random.default_rng(4)
    values = rng.integers(-128, 128, size=(2, 9, 8), dtype=np.int8)     # N x K x C
    indices = rng.integers(0, 9, size=(2, 5), dtype=np.int32)           # N x W
    memory = _memory(values, indices)
    code, message = run(_gather_stream("D3", 9, 8, 5, 2, 4, (9 * 8, 5 * 8)), memory, U85_128)
    assert code == 0, message
    got = memory[OUTPUT:OUTPUT + 2 * 5 * 8].view(np.int8).reshape(2, 5, 8)
    np.testing.assert_array_equal(got, np.stack([values[n][indices[n]] for n in range(2)]))


def test_hand_built_stream_gather_int64_indices_skip_their_high_words() -> None:
    """regor's int64 form: 3-D mode, one index per run (SIZE0 = N = 1), W runs (SIZE1), the
    runs one output row apart (DST_STRIDE1) and IDX_SKIP1 4 over each index's high word."""
    rng = np.random.default_rng(5)
    values = rng.integers(-128, 128, size=(30, 4), dtype=np.int8)
    indices = rng.integers(0, 30, size=6).astype(np.int64)
    memory = _memory(values, indices)
    stream = _gather_stream("D3", 30, 4, 1, 6, 8, (0, 4))
    code, message = run(stream, memory, U85_128)
    assert code == 0, message
    got = memory[OUTPUT:OUTPUT + 6 * 4].view(np.int8).reshape(6, 4)
    np.testing.assert_array_equal(got, values[indices])


@pytest.mark.parametrize("index", [-1, 50])
def test_a_gather_index_outside_the_table_is_refused(index: int) -> None:
    values = np.zeros((50, 16), dtype=np.int8)
    indices = np.array([0, index, 1], dtype=np.int32)
    code, message = run(_gather_stream("D2", 50, 16, 3, 1, 4, (0, 0)), _memory(values, indices),
                        U85_128)
    assert code == 3 and f"gather index {index} outside 0..49" in message, message


@pytest.mark.slow
def test_an_embedding_compiles_to_a_gather_dma_and_is_exact() -> None:
    """A compiled nn.Embedding on U85-128 writes a gather DMA and is bit-exact against the TOSA
    reference (verify draws a GATHER's index inputs modulo its table rows)."""
    needs_toolchain()
    model, target = "npu_model_cases_u85:embedding", "ethos-u85-128"
    written = written_values(model, target)
    assert ("NPU_SET_DMA0_SRC_REGION", "idx_mode", "ENABLED") in written
    check_case(model, target)
