"""Small real architectures for the NPU-model tests (seeded weights), as model specs
`npu_model_archs:<name>`: a keyword-spotting DS-CNN, a ResNet-8, an FC autoencoder and an
attention block."""

from __future__ import annotations

import torch
from torch import nn

SEED = 99


def _input(*shape: int) -> torch.Tensor:
    return torch.rand(*shape, generator=torch.Generator().manual_seed(SEED)) * 2 - 1


def seeded(factory: type[nn.Module]) -> nn.Module:
    torch.manual_seed(SEED)
    return factory().eval()


class DSCNN(nn.Module):
    """DS-CNN (MLPerf Tiny keyword spotting, reduced): conv, 3 depthwise-separable blocks."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Conv2d(1, 32, (10, 4), stride=2, padding=(5, 1)),
                                   nn.BatchNorm2d(32), nn.ReLU()]
        for _ in range(3):
            layers += [nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.BatchNorm2d(32), nn.ReLU(),
                       nn.Conv2d(32, 32, 1), nn.BatchNorm2d(32), nn.ReLU()]
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, 12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride), nn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.skip(x))


class ResNet8(nn.Module):
    """ResNet-8 (MLPerf Tiny image classification): 3 residual stages on 32x32."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.stages = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.head = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.stages(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class Autoencoder(nn.Module):
    """FC autoencoder (MLPerf Tiny anomaly detection, reduced)."""

    def __init__(self) -> None:
        super().__init__()
        sizes = [128, 64, 64, 8, 64, 64, 128]
        layers: list[nn.Module] = []
        for a, b in zip(sizes, sizes[1:], strict=False):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class AttentionBlock(nn.Module):
    """One single-head self-attention block with a residual and an MLP; `project` makes q, k
    and v."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(32, 32)
        self.mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32))

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.project(x)
        weights = torch.softmax(q @ k.transpose(-2, -1) * 32 ** -0.5, dim=-1)
        y = x + self.proj(weights @ v)
        return y + self.mlp(y)


class Attention(AttentionBlock):
    """Separate q, k, v projections. (A packed qkv projection split in three is miscompiled by
    Vela 5.1.0: npu_model_cases_geometry:attention_packed_qkv.)"""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v = nn.Linear(32, 32), nn.Linear(32, 32), nn.Linear(32, 32)

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.q(x), self.k(x), self.v(x)


def dscnn() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return seeded(DSCNN), (_input(1, 1, 49, 10),)


def resnet8() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return seeded(ResNet8), (_input(1, 3, 32, 32),)


def autoencoder() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return seeded(Autoencoder), (_input(1, 128),)


def attention_input() -> torch.Tensor:
    return _input(1, 16, 32)


def attention() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return seeded(Attention), (attention_input(),)


ARCHITECTURES = ("dscnn", "resnet8", "autoencoder", "attention")
