"""A pre-LayerNorm transformer encoder block (the U85's reason to exist), as model specs
`npu_model_u85_block:<name>`: single-head attention with one packed q/k/v projection (what
nn.MultiheadAttention does) or separate ones, LayerNorm, a GELU MLP, softmax over the last dim
or over the query dim."""

from __future__ import annotations

import torch
from npu_model_archs import attention_input, seeded
from torch import nn

WIDTH = 32


class Block(nn.Module):
    def __init__(self, packed: bool, softmax_dim: int) -> None:
        super().__init__()
        self.packed, self.softmax_dim = packed, softmax_dim
        self.norm1, self.norm2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.q, self.k, self.v = (nn.Linear(WIDTH, WIDTH) for _ in range(3))
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 2 * WIDTH), nn.GELU(),
                                 nn.Linear(2 * WIDTH, WIDTH))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm1(x)
        if self.packed:
            q, k, v = self.qkv(h).split(WIDTH, dim=-1)
        else:
            q, k, v = self.q(h), self.k(h), self.v(h)
        scores = torch.softmax(q @ k.transpose(-2, -1) * WIDTH ** -0.5, dim=self.softmax_dim)
        x = x + self.proj(scores @ v)
        return x + self.mlp(self.norm2(x))


def _block(packed: bool, softmax_dim: int) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return seeded(lambda: Block(packed, softmax_dim)), (attention_input(),)  # type: ignore[arg-type]


def block_separate() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return _block(packed=False, softmax_dim=-1)


def block_packed() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return _block(packed=True, softmax_dim=-1)


def block_softmax_queries() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return _block(packed=False, softmax_dim=-2)


BLOCKS = ("block_separate", "block_packed", "block_softmax_queries")
