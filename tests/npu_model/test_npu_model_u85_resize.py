"""Ethos-U85 NPU_OP_RESIZE (firmware/npu_model/src/em85_resize.c).

ExecuTorch 1.4.1 lowers `nn.Upsample` nearest and bilinear (align_corners either way, any
integer or fractional size, downscales too) to TOSA RESIZE and delegates it to the U85; those
cases are in the U85 sweep (test_npu_model_u85.py: npu_model_opcases:upsample_nearest and the
npu_model_cases_u85 up/downsample cases). Here: RESIZE variants no ExecuTorch upsample emits, as
hand-built TOSA graphs compiled by the real Vela (npu_model_tosa_graphs.RESIZE_GRAPHS: an offset
past n, OFMs wider than one OFM block, a 5/3 downscale, full-range int8 and int16), bit-exact
against the TOSA reference model and listed as Vela lists them; and hand-built streams for
what regor never writes, which the model refuses naming command, field, value and target.

Where the hardware departs from TOSA: its resize value carries 16 more fraction bits than
TOSA's integer result; regor programs OFM_SCALE shift = 16 + TOSA's rescale shift, scale 1
(ethos_u85_register_cs_generator.cpp:1902-1904 "scaling is shift only and + 16", :1938), so a
fused power-of-two rescale rounds the same; and it gets the scale denominator d only through
RESIZE_*_STEP (one_step_int/mod = d / n, d % n; :1907-1917), its block steps through the OFM
block (:1910-1911).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from npu_model_stream85 import Resize85, Stream85, run85
from npu_model_support import needs_toolchain, u85_cases
from npu_model_tosa_graphs import RESIZE_GRAPHS, assert_exact_and_listed

DEFAULT_TARGET = "ethos-u85-256"


GRAPH_CASES = u85_cases(list(RESIZE_GRAPHS), DEFAULT_TARGET)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "target"), GRAPH_CASES)
def test_resize_graph_is_exact_and_decodes_as_vela_lists(name: str, target: str,
                                                         tmp_path: Path) -> None:
    needs_toolchain()
    listing = assert_exact_and_listed(RESIZE_GRAPHS[name](), target, tmp_path)
    assert any(command == "NPU_OP_RESIZE" for _, command, _, _ in listing), "no RESIZE"


SHAPE = (3, 5, 2)
OFM_OFFSET = 1024


def _resize(op: Resize85) -> tuple[int, str, np.ndarray]:  # type: ignore[type-arg]
    source = np.arange(-15, 15, dtype=np.int8)
    scratch = np.zeros(OFM_OFFSET + 4 * source.size, dtype=np.int8)
    scratch[:source.size] = source
    code, message = run85(op.emit(Stream85()), scratch)
    return code, message, scratch


def test_a_hand_built_nearest_2x_repeats_every_pixel() -> None:
    """n = 4, d = 2, offset -1 (ExecuTorch's 2x upsample) over OFM blocks of 4 columns: output
    (y, x) is input (y // 2, x // 2), the first row and column sampled at -1/4 (clamped)."""
    code, message, scratch = _resize(Resize85(SHAPE))
    assert code == 0, message
    source = np.arange(-15, 15, dtype=np.int8).reshape(SHAPE)
    want = source.repeat(2, axis=0).repeat(2, axis=1)
    assert np.array_equal(scratch[OFM_OFFSET:OFM_OFFSET + want.size].reshape(want.shape), want)


@pytest.mark.parametrize(("op", "message"), [
    (Resize85(SHAPE, mode="REPLICATE"),
     "NPU_OP_RESIZE resize_mode value 1 on Ethos-U85-128 (not modelled)"),
    (Resize85(SHAPE, ifm_zero_point=3),
     "NPU_OP_RESIZE NPU_SET_IFM_ZERO_POINT zero_point value 3 on Ethos-U85-128 (not modelled)"),
    (Resize85(SHAPE, blk_step_mod=1),
     "NPU_OP_RESIZE NPU_SET_RESIZE_X_STEP blk_step_int value 1 blk_step_mod value 1 for an OFM "
     "block of 4 on Ethos-U85-128 (not modelled)"),
])
def test_what_regor_never_writes_is_refused_in_one_line(op: Resize85, message: str) -> None:
    """REPLICATE (regor ToResizeMode, ethos_u85_register_cs_generator.cpp:289-300, maps only
    Bilinear and Nearest), an IFM zero point (TOSA RESIZE has none), a block step other than
    (block - 1) * d / n (:1910-1911)."""
    code, got, _ = _resize(op)
    assert code != 0
    assert got == message
