"""Ethos-U85 scatter DMA (NPU_OP_DMA_START with the destination's idx_mode ENABLED), the command
regor writes for a TOSA SCATTER: ExecuTorch 1.4.1 lowers torch.index_put (constant row
indices) to SCATTER, and regor writes a 1-D DMA copying values_in to values_out, then the
indexed DMA writing each input row to the row its index names
(high_level_command_stream_generator.cpp GenerateHLCDMACommands, ethos_u85_register_cs_generator.cpp
GenerateDMA; em85_dma.c dma_indexed). The compiled stream must write the scatter and be
bit-exact against the TOSA reference model."""

from __future__ import annotations

import pytest
from npu_model_support import check_value_reached

TARGET = "ethos-u85-128"
SCATTER = ("NPU_SET_DMA0_DST_REGION", "idx_mode", "ENABLED")


@pytest.mark.slow
def test_an_index_put_compiles_to_a_scatter_dma_and_is_exact() -> None:
    check_value_reached("npu_model_cases_u85:index_put_rows", TARGET, SCATTER)
