"""Feature-map strides on hand-built streams (no compile): NHWC channels are contiguous.

regor architecture/ethosu55/ethos_u55_register_cs_generator.cpp:1360 ("Ethos-U55 ignores channel
stride for NHWC tensors"): its AvgPool transposes (InsertTransposeCommand) leave a stale
STRIDE_C that the hardware must ignore; softmax over NCHW channels depends on it.
"""

from __future__ import annotations

import numpy as np
from vnpu_stream import Stream, regs, run


def copy_stream(depth: int, ofm_stride_c: int) -> Stream:
    """OFM = max(IFM, IFM) for 1 x 1 x depth int8 values, NHWC, with OFM STRIDE_C overridden."""
    r = regs()
    stream = Stream().feature_map("IFM", 0, (1, 1, depth), 1)
    stream.cmd0("NPU_SET_IFM_DEPTH_M1", depth - 1).cmd0("NPU_SET_IFM_ZERO_POINT", 0)
    stream.cmd0("NPU_SET_IFM_PRECISION", precision=r.ifm_precision.S8.value)
    stream.feature_map("IFM2", 0, (1, 1, depth), 1)
    stream.cmd0("NPU_SET_IFM2_PRECISION", precision=r.ifm_precision.S8.value)
    stream.cmd0("NPU_SET_IFM2_BROADCAST", 0).cmd0("NPU_SET_IFM2_ZERO_POINT", 0)
    stream.feature_map("OFM", 64, (1, 1, depth), 1)
    stream.cmd1("NPU_SET_OFM_STRIDE_C", ofm_stride_c)
    stream.cmd0("NPU_SET_OFM_HEIGHT_M1", 0).cmd0("NPU_SET_OFM_WIDTH_M1", 0)
    stream.cmd0("NPU_SET_OFM_DEPTH_M1", depth - 1).cmd0("NPU_SET_OFM_ZERO_POINT", 0)
    stream.cmd0("NPU_SET_OFM_PRECISION", precision=r.ofm_precision.S8.value, scaling=1)
    stream.cmd0("NPU_SET_ACTIVATION", type=r.activation.NONE.value)
    stream.cmd0("NPU_SET_ACTIVATION_MIN", 0xFF80).cmd0("NPU_SET_ACTIVATION_MAX", 0x7F)
    stream.cmd1("NPU_SET_OFM_SCALE", 1, shift=0)
    return stream.cmd0("NPU_OP_ELEMENTWISE", r.elementwise_mode.MAX.value)


def test_nhwc_ignores_a_stale_channel_stride() -> None:
    values = np.arange(-8, 8, dtype=np.int8)
    scratch = np.zeros(128, dtype=np.int8)
    scratch[:16] = values
    code, message = run(copy_stream(16, ofm_stride_c=4).payload(), scratch.view(np.uint8))
    assert code == 0, message
    assert scratch[64:80].tolist() == values.tolist()
    assert not scratch[80:].any()
