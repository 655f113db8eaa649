"""The Ethos-U85 weight order and codecs (firmware/npu_model/src/em85_weight_order.c,
em_mlw.c, em_fwd.c) on real Vela 5.1.0 streams: each layer is compiled by Vela for a U85
configuration, the probe library decodes the streams the listed registers point at, and the
result must be the layer's weights exactly (and the scale records its bias and an exactly
equal scale: Vela may halve an even multiplier and lower the shift).

Which format Vela writes (regor compiler/scheduler.cpp EncodeBestWeightFormat, 644-716):
Convolution and VectorProduct ops may take any of SWD, FWD and 2:4 sparsity
(architecture/ethosu85/ethos_u85.cpp SupportedWeightFormat, 232-240). 2:4 is tried first and
kept when the weights pass the encoder's check (ethos_u85_weight_encoder.cpp SparsityTracker:
IFM depth a multiple of 4, at least 2 zeros in every 4 IFM channels, |w| <= 127) and a sparse
block config is no slower (scheduler.cpp 646-656); FWD is kept when its decode is cheaper
(UseFastDecoder, 600-624: few distinct values shrink it 2x/4x, and with the default
--optimise=Performance the fast decoder often wins even on dense weights), or with
--optimise=Size when it is smaller; depthwise takes SWD only (the FWD orders assert against
it). So all four formats occur in ExecuTorch-style compiles, and each is checked here.
"""

from __future__ import annotations

import numpy as np
import pytest
from npu_model_support import U85_TARGETS, needs_toolchain
from npu_model_u85_weights import Encoded, Layer, decode_scales, decode_weights, encode

DEDICATED = ("--memory-mode=Dedicated_Sram_384KB",)
SIZE = ("--optimise=Size",)

LAYERS: dict[str, tuple[Layer, tuple[str, ...]]] = {
    "conv3x3": (Layer(), ()),
    "conv3x3_dedicated_sram": (Layer(), DEDICATED),
    "conv3x3_clipped_depths": (Layer(ifm=(6, 6, 20), ofm_depth=37), ()),
    "depthwise3x3": (Layer(depthwise=True, ofm_depth=16), ()),
    "conv1x1_deep": (Layer(ifm=(4, 4, 72), ofm_depth=40, kernel=(1, 1)), ()),
    "conv3x3_stride2": (Layer(ifm=(9, 9, 16), stride=(2, 2)), ()),
    "conv3x3_dilation2": (Layer(ifm=(9, 9, 16), dilation=(2, 2)), ()),
    "conv10x3_subkernels": (Layer(ifm=(12, 6, 8), ofm_depth=16, kernel=(10, 3)), ()),
    "conv3x3_sparse_2_4": (Layer(ifm=(8, 8, 64), ofm_depth=64, sparse=True), ()),
    "conv1x1_sparse_2_4_deep": (Layer(ifm=(4, 4, 128), ofm_depth=64, kernel=(1, 1),
                                      sparse=True), ()),
    "conv3x3_four_values": (Layer(values=(-3, -1, 1, 3)), ()),
    "conv3x3_ten_values": (Layer(values=tuple(range(-5, 5))), ()),
    "conv3x3_four_values_size": (Layer(values=(-3, -1, 1, 3)), SIZE),
    "conv3x3_a16w8": (Layer(a16w8=True), ()),
}
DEFAULT_SLICE = {("conv3x3", "ethos-u85-128"), ("conv3x3_sparse_2_4", "ethos-u85-128"),
                 ("conv3x3_four_values", "ethos-u85-2048"), ("depthwise3x3", "ethos-u85-2048"),
                 ("conv3x3_sparse_2_4", "ethos-u85-2048"), ("conv3x3_a16w8", "ethos-u85-512")}


def _macs(target: str) -> int:
    return int(target.rsplit("-", 1)[1])


def _assert_decoded(encoded: Encoded, target: str) -> None:
    code, message, dense = decode_weights(encoded, _macs(target))
    assert code == 0, message
    wrong = np.argwhere(dense != encoded.weights)
    assert wrong.size == 0, f"{len(wrong)} of {dense.size} weights differ, first at {wrong[0]}"
    bias, scale, shift = decode_scales(encoded)
    assert bias.tolist() == encoded.bias.tolist()
    for got, got_shift, want, want_shift in zip(scale, shift, encoded.multiplier, encoded.shift,
                                                strict=True):
        assert int(got) << int(want_shift) == int(want) << int(got_shift)


def _cases() -> list[object]:
    cases = []
    for name in LAYERS:
        for target in U85_TARGETS:
            marks = [] if (name, target) in DEFAULT_SLICE else [pytest.mark.sweep]
            cases.append(pytest.param(name, target, marks=marks, id=f"{name}-{target}"))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("name", "target"), _cases())
def test_u85_weights_decode_exactly(name: str, target: str) -> None:
    needs_toolchain()
    layer, flags = LAYERS[name]
    _assert_decoded(encode(layer, target, flags), target)


FORMAT_CONDITIONS = [
    # (layer, target, flags, the format Vela 5.1.0 writes)
    ("conv3x3", "ethos-u85-128", (), "FWD"),                      # dense, fast decoder cheaper
    ("conv3x3", "ethos-u85-2048", (), "SWD"),                     # 4 SWD decoders win
    ("conv3x3_four_values", "ethos-u85-2048", (), "FWD"),         # few values: 2-bit FWD LUT
    ("conv3x3_four_values_size", "ethos-u85-128", SIZE, "SWD"),   # --optimise=Size: smaller
    ("conv3x3_sparse_2_4", "ethos-u85-128", (), "FWD+2:4"),
    ("conv3x3_sparse_2_4", "ethos-u85-2048", (), "SWD+2:4"),
    ("conv1x1_sparse_2_4_deep", "ethos-u85-512", (), "FWD+2:4"),  # 2 decoders interleaved
    ("depthwise3x3", "ethos-u85-128", (), "SWD"),                 # depthwise: SWD only
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "target", "flags", "expected"), FORMAT_CONDITIONS,
                         ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in FORMAT_CONDITIONS])
def test_vela_weight_format_conditions(name: str, target: str, flags: tuple[str, ...],
                                       expected: str) -> None:
    """The conditions under which Vela 5.1.0 writes each format (module docstring), each
    stream then decoded exactly."""
    needs_toolchain()
    layer, _ = LAYERS[name]
    encoded = encode(layer, target, flags)
    assert encoded.weight_format == expected
    _assert_decoded(encoded, target)


@pytest.mark.slow
def test_u85_weights_refuse_an_unknown_microblock() -> None:
    """A microblock the configuration does not have (ACC_FORMAT) stops with one line."""
    needs_toolchain()
    encoded = encode(LAYERS["conv3x3"][0], "ethos-u85-128")
    code, message, _ = decode_weights(encoded, 2048)
    assert code != 0
    assert "Ethos-U85-2048 has no" in message and "OFM microblock" in message
