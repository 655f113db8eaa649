"""DeiT-tiny cut to one transformer block, built as upstream's
backends/arm/test/models/test_deit_tiny_arm.py builds DeiT-tiny (timm's deit_tiny_patch16_224,
input torch.rand(1, 3, 224, 224) normalized with timm's inception mean and std), random weights
(seed 7), no download.

The smallest graph found that makes Vela 5.2.0 write NPU_SET_ACTIVATION FORCE_INT16 on U55
(two of its three layer norms: the MUL by the reciprocal standard deviation, an int32 OFM
clipped to int8's range; tests/npu_model/test_npu_model_clip_range.py). It depends on the
quantization the data gives: these wrote only OFM_PRECISION under Vela 5.2.0 on U55-128 (round
4 of issue 45): one and two DeiT-tiny blocks at seed 0 on inputs not normalized (deit_tiny.py's
way), the same embedding with no block (normalized, seed 7), a LayerNorm(192) over 197 tokens,
and nine smaller graphs up to a one-block ViT. timm is imported as in deit_tiny.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))   # loaded by path: its sibling helper
from torchvision_shim import import_torchvision_without_fake_kernels  # noqa: E402

SEED = 7

import_torchvision_without_fake_kernels()
import timm  # noqa: E402
from timm.data import (  # noqa: E402
    IMAGENET_INCEPTION_MEAN,
    IMAGENET_INCEPTION_STD,
)
from torchvision import transforms  # noqa: E402

torch.manual_seed(SEED)
ModelUnderTest = timm.models.deit.deit_tiny_patch16_224(pretrained=False, depth=1).eval()
normalize = transforms.Normalize(mean=IMAGENET_INCEPTION_MEAN, std=IMAGENET_INCEPTION_STD)
ModelInputs = (normalize(torch.rand((1, 3, 224, 224))),)
