"""Feature-map strides on hand-built streams (no compile): NHWC channels are contiguous.

regor architecture/ethosu55/ethos_u55_register_cs_generator.cpp:1360 ("Ethos-U55 ignores channel
stride for NHWC tensors"): its AvgPool transposes (InsertTransposeCommand) leave a stale
STRIDE_C that the hardware must ignore; softmax over NCHW channels depends on it.
"""

from __future__ import annotations

import numpy as np
from npu_model_stream import Elementwise, run


def test_nhwc_ignores_a_stale_channel_stride() -> None:
    values = np.arange(-8, 8, dtype=np.int8)
    scratch = np.zeros(128, dtype=np.int8)
    scratch[:16] = values
    copy = Elementwise("MAX", 16, ofm_stride_c=4)      # max(x, x) = x, written NHWC
    code, message = run(copy.stream().payload(), scratch.view(np.uint8))
    assert code == 0, message
    assert scratch[64:80].tolist() == values.tolist()
    assert not scratch[80:].any()
