"""Artifacts made by other code than our compile: executorch's own Python APIs, as upstream's
backends/arm/scripts/aot_arm_compiler.py uses them (EthosUQuantizer + EthosUPartitioner,
the Cortex-M QDQ replacement, to_executorch, the bundled-program serializer), and an
XNNPACK-delegated program."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def tiny_model() -> tuple[Any, tuple[Any, ...]]:
    """A small conv + linear model and its example input (deterministic)."""
    model, sets = tiny_model_sets()
    return model, sets[0]


def tiny_model_sets(count: int = 3) -> tuple[Any, list[tuple[Any, ...]]]:
    """The small model and `count` deterministic input sets (the first is the example)."""
    import torch

    class Tiny(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.linear = torch.nn.Linear(4 * 8 * 8, 10)

        def forward(self, x: Any) -> Any:
            return self.linear(torch.relu(self.conv(x)).flatten(1))

    torch.manual_seed(0)
    model = Tiny().eval()
    return model, [(torch.rand(1, 3, 8, 8),) for _ in range(count)]


def ethosu_program(target: str) -> tuple[Any, Any, list[tuple[Any, ...]]]:
    """(executorch program manager, float model, input sets) of the tiny model quantized
    (calibrated on every input set) and delegated to Ethos-U `target` as aot_arm_compiler
    --delegate --quantize does."""
    import torch
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import (
        EthosUQuantizer,
        get_symmetric_quantization_config,
    )
    from executorch.backends.cortex_m.passes.replace_quant_nodes_pass import (
        ReplaceQuantNodesPass,
    )
    from executorch.exir import (
        EdgeCompileConfig,
        ExecutorchBackendConfig,
        to_edge_transform_and_lower,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model, sets = tiny_model_sets()
    inputs = sets[0]
    spec = EthosUCompileSpec(target, extra_flags=["--verbose-operators"])
    quantizer = EthosUQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    graph = torch.export.export(model, inputs).module()
    prepared = prepare_pt2e(graph, quantizer)
    for calibration in sets:
        prepared(*calibration)
    exported = torch.export.export(convert_pt2e(prepared), inputs)
    edge = to_edge_transform_and_lower(exported, partitioner=[EthosUPartitioner(spec)],
                                       compile_config=EdgeCompileConfig(
                                           _check_ir_validity=False))
    edge = edge.transform([ReplaceQuantNodesPass()])
    program = edge.to_executorch(config=ExecutorchBackendConfig(
        extract_delegate_segments=False))
    return program, model, sets


def xnnpack_program() -> Any:
    """The tiny model delegated to XNNPACK (a backend the Ethos-U runtime does not have)."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    model, inputs = tiny_model()
    edge = to_edge_transform_and_lower(torch.export.export(model, inputs),
                                       partitioner=[XnnpackPartitioner()])
    return edge.to_executorch()


def cpu_program() -> Any:
    """The tiny float model with no delegate (portable kernels only, for a Cortex-M CPU), as
    aot_arm_compiler without --delegate writes it."""
    import torch
    from executorch.exir import to_edge_transform_and_lower

    model, inputs = tiny_model()
    return to_edge_transform_and_lower(torch.export.export(model, inputs)).to_executorch()


def bundled(program: Any, model: Any, input_sets: list[tuple[Any, ...]]) -> bytes:
    """A BP08 .bpte of `program` whose test cases are `input_sets` with the float model's
    outputs as expected outputs (as aot_arm_compiler --bundleio writes)."""
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import (
        serialize_from_bundled_program_to_flatbuffer,
    )

    cases = [MethodTestCase(inputs=inputs, expected_outputs=(model(*inputs),))
             for inputs in input_sets]
    suites = [MethodTestSuite(method_name="forward", test_cases=cases)]
    return bytes(serialize_from_bundled_program_to_flatbuffer(BundledProgram(program, suites)))


def write_artifacts(folder: Path) -> dict[str, Path]:
    """Every kind of foreign artifact the tests read, written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for target in ("ethos-u55-128", "ethos-u85-128"):
        program, model, sets = ethosu_program(target)
        pte = folder / f"tiny_{target}.pte"
        pte.write_bytes(program.buffer)
        written[target] = pte
        if target == "ethos-u85-128":
            bpte = folder / f"tiny_{target}.bpte"
            bpte.write_bytes(bundled(program, model, sets))
            written["bundled"] = bpte
    model, sets = tiny_model_sets()
    cpu = folder / "tiny_cpu.bpte"
    cpu.write_bytes(bundled(cpu_program(), model, sets))
    written["cpu"] = cpu
    xnn = folder / "tiny_xnnpack.pte"
    xnn.write_bytes(xnnpack_program().buffer)
    written["xnnpack"] = xnn
    return written


def cached_artifacts(base: Path) -> dict[str, Path]:
    """The artifacts under `base` (a session's temp root), written by the first caller of
    this session only (the runner tests and the inspect tests share them)."""
    import json
    import warnings

    folder = base / "foreign-artifacts"
    index = folder / "index.json"
    if not index.is_file():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            written = write_artifacts(folder)
        index.write_text(json.dumps({k: str(v) for k, v in written.items()}))
    return {key: Path(value) for key, value in json.loads(index.read_text()).items()}


if __name__ == "__main__":
    import sys

    for name, path in write_artifacts(Path(sys.argv[1])).items():
        print(name, path, path.stat().st_size)
