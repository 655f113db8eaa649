"""`mv2`: MobileNetV2 (Sandler et al. 2018) defined here with seeded weights.

The layer layout matches torchvision's `mobilenet_v2` (width 1.0, 224x224 input, 1000
classes), so a user with torchvision can ask for its version instead (`torchvision=True`).
"""

from __future__ import annotations

import torch
from torch import nn

from orchestrator.aot.models.zoo.common import example, frozen, seeded

# (expansion t, output channels c, repeats n, first stride s) per stage.
STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))
STEM_CHANNELS = 32
HEAD_CHANNELS = 1280
CLASSES = 1000


def conv_bn_relu6(inputs: int, outputs: int, kernel: int = 3, stride: int = 1,
                  groups: int = 1) -> nn.Sequential:
    """Conv (no bias) -> BatchNorm -> ReLU6."""
    return nn.Sequential(
        nn.Conv2d(inputs, outputs, kernel, stride, (kernel - 1) // 2, groups=groups,
                  bias=False),
        nn.BatchNorm2d(outputs), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    """Expand (1x1) -> depthwise (3x3) -> project (1x1, linear); residual when shapes match."""

    def __init__(self, inputs: int, outputs: int, stride: int, expansion: int) -> None:
        super().__init__()
        hidden = inputs * expansion
        layers: list[nn.Module] = []
        if expansion != 1:
            layers.append(conv_bn_relu6(inputs, hidden, kernel=1))
        layers += [conv_bn_relu6(hidden, hidden, stride=stride, groups=hidden),
                   nn.Conv2d(hidden, outputs, 1, bias=False), nn.BatchNorm2d(outputs)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.conv(x) if self.residual else self.conv(x)
        return out


class MobileNetV2(nn.Module):
    """MobileNetV2, width multiplier 1.0."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = [conv_bn_relu6(3, STEM_CHANNELS, stride=2)]
        channels = STEM_CHANNELS
        for expansion, outputs, repeats, stride in STAGES:
            for index in range(repeats):
                layers.append(InvertedResidual(channels, outputs, stride if index == 0 else 1,
                                               expansion))
                channels = outputs
        layers.append(conv_bn_relu6(channels, HEAD_CHANNELS, kernel=1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(HEAD_CHANNELS, CLASSES))
        self._initialise()

    def _initialise(self) -> None:
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out")
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, 0, 0.01)
                nn.init.zeros_(module.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        out: torch.Tensor = self.classifier(torch.flatten(pooled, 1))
        return out


def settle_batch_norm(model: nn.Module, batch: int = 8) -> nn.Module:
    """Set BatchNorm statistics from a seeded batch, as training would.

    Freshly initialised BatchNorm (mean 0, var 1) lets activations shrink layer by layer
    until the logits are ~1e-9; real statistics keep every layer near unit scale, so the
    float and int8 outputs stay meaningful.
    """
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.reset_running_stats()
            module.momentum = None   # cumulative average over the batch
    model.train()
    with torch.no_grad():
        model(example(batch, 3, 224, 224, seed=6))
    return model.eval()


def _seeded_model() -> nn.Module:
    return settle_batch_norm(MobileNetV2())


def _torchvision_model() -> nn.Module:
    from orchestrator.foundation.errors import OrchestratorError

    try:
        from torchvision.models import MobileNet_V2_Weights, mobilenet_v2
    except ImportError:
        raise OrchestratorError("torchvision is not installed, so its MobileNetV2 is not "
                                "available", "pip install torchvision, or drop --torchvision "
                                "to use the built-in definition") from None
    model: nn.Module = mobilenet_v2(weights=MobileNet_V2_Weights.DEFAULT)
    return model


def build(torchvision: bool = False) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """The model and one 1x3x224x224 input."""
    model = _torchvision_model() if torchvision else seeded(_seeded_model)
    return frozen(model), (example(1, 3, 224, 224, seed=5),)
