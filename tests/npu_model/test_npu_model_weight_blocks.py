"""Weights decoded in blocks of output channels: the firmware's core decodes at most
NPU_MODEL_WEIGHT_CAPACITY (2 M) weights of a command at a time, each block reading the weight
stream on from where the one before stopped; the host library decodes a command in one block
(32 M) and reuses earlier decodes. The tests' probe library is built with the firmware's
capacity, so the same program through both libraries compares the two paths: a CONV of
2,359,296 weights (two blocks) gives the same bytes both ways, exact against the TOSA
reference, on U55 and U85."""

from __future__ import annotations

import ctypes
import functools

import pytest
from npu_model_support import compiled, needs_toolchain

from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.npu_model.hostlib import bind, build_library
from orchestrator.npu_model.verify import random_inputs
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

pytestmark = pytest.mark.slow
CASE = "npu_model_opcases:conv_c512_k3"


@functools.lru_cache(maxsize=1)
def firmware_capacity_library() -> ctypes.CDLL:
    return bind(ctypes.CDLL(str(build_library(probe=True))))


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-128"])
def test_a_command_decoded_in_blocks_gives_what_one_block_gives(target: str) -> None:
    needs_toolchain()
    product = compiled(CASE, target)
    (partition,), (program,) = product_partitions(product), programs_in_pte(product.pte)
    npu = Npu.for_target_name(target)
    for seed in (0, 1):
        inputs = random_inputs(graph_interface(partition.tosa), seed)
        whole = run_program(program, npu, inputs)
        in_blocks = run_program(program, npu, inputs, library=firmware_capacity_library())
        assert in_blocks == whole
        (expected,) = run_tosa_flatbuffer(partition.tosa, inputs)
        assert whole[0] == expected.tobytes()
