"""Export, quantize and lower a model with ExecuTorch's Arm and Cortex-M backends.

Mirrors upstream backends/arm/scripts/aot_arm_compiler.py (v1.4.1) as a library: the
Ethos-U path (EthosUCompileSpec, EthosUQuantizer, EthosUPartitioner) and the Cortex-M
(CMSIS-NN) path (CortexMQuantizer, CortexMPassManager). Imports torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.aot.lower.failures import describe
from orchestrator.aot.models.nesting import map_leaves
from orchestrator.aot.options import CompileOptions
from orchestrator.aot.vela.refusal import vela_refusal
from orchestrator.foundation.errors import OrchestratorError

VELA_REPORT_FLAGS = ("--verbose-performance", "--verbose-cycle-estimate")
DEFAULT_VELA_CONFIG = "Arm/vela.ini"
# Upstream keeps these as single ops for CMSIS-NN; only the quantized path has kernels for
# them. A float Cortex-M export must decompose them (portable kernels lack aten::linear).
LINEAR_NOTE = ("v1.4.1 float Cortex-M export keeps aten.linear, which the portable kernels "
               "lack (worked around: aten.linear decomposed to permute + addmm)")
CORTEX_M_PRESERVED_WHEN_QUANTIZED = ("linear", "hardsigmoid", "hardsigmoid_", "hardswish",
                                     "hardswish_")


PER_CHANNEL_OPS = ("quantize_per_channel", "dequantize_per_channel")


def _lifted_tensor(program: Any, placeholder: Any) -> tuple[dict[str, Any], str] | None:
    signature = program.graph_signature
    for mapping, table in ((signature.inputs_to_buffers, program.state_dict),
                           (signature.inputs_to_parameters, program.state_dict),
                           (signature.inputs_to_lifted_tensor_constants, program.constants)):
        key = mapping.get(placeholder.name)
        if key is not None and key in table:
            return table, key
    return None


def _zero_point_workaround(edge: Any) -> list[str]:
    widened = widen_zero_points(edge.exported_program())
    if not widened:
        return []
    return [f"v1.4.1 quantized_decomposed per-channel kernels read int32 zero points as int64 "
            f"(worked around: {widened} zero-point tensor(s) stored as int64)"]


def widen_zero_points(program: Any) -> int:
    """Store int32 per-channel zero points as int64; return how many were widened.

    The v1.4.1 quantized_decomposed per-channel kernels accept Int or Long zero points but
    read them as int64, so int32 ones make the runtime abort (zero_point out of range).
    """
    import torch

    widened = 0
    for node in program.graph.nodes:
        if node.op != "call_function" or not any(op in str(node.target) for op in PER_CHANNEL_OPS):
            continue
        zero_points = node.args[2] if len(node.args) > 2 else None
        found = _lifted_tensor(program, zero_points) if zero_points is not None and \
            getattr(zero_points, "op", None) == "placeholder" else None
        if found is None or zero_points is None or found[0][found[1]].dtype != torch.int32:
            continue
        table, key = found
        table[key] = table[key].to(torch.int64)
        zero_points.meta["val"] = zero_points.meta["val"].to(torch.int64)
        widened += 1
    return widened


@dataclass
class Lowered:
    """What lowering produced: the edge program, the quantized model and its inputs."""

    edge: Any                 # EdgeProgramManager after partitioning and backend passes
    quantized_model: Any      # GraphModule after convert_pt2e, or None
    inputs: tuple[Any, ...]   # example inputs as the model takes them (nested, layout included)
    workarounds: list[str] = field(default_factory=list)


def export(model: Any, inputs: tuple[Any, ...], name: str, strict: bool) -> Any:
    """torch.export.export, with a one-line error naming the failing op."""
    import torch

    try:
        return torch.export.export(model, inputs, strict=strict)
    except Exception as error:  # noqa: BLE001 - any export failure is reported the same way
        raise OrchestratorError(
            describe("torch.export", name, error),
            "make forward() exportable (no data-dependent Python control flow, no numpy), "
            "or try --no-strict") from None


def ethosu_compile_spec(options: CompileOptions, intermediates: Path | None) -> Any:
    """The EthosUCompileSpec for the options (Vela flags include the report flags)."""
    from executorch.backends.arm.ethosu import EthosUCompileSpec

    spec = EthosUCompileSpec(
        options.target, system_config=options.system_config, memory_mode=options.memory_mode,
        extra_flags=[*VELA_REPORT_FLAGS, *options.vela_flags],
        config_ini=options.vela_config or DEFAULT_VELA_CONFIG)
    if intermediates is not None:
        intermediates.mkdir(parents=True, exist_ok=True)
        spec.dump_intermediate_artifacts_to(str(intermediates))
    return spec


def _quantization_config(scheme: str) -> Any:
    from executorch.backends.arm.quantizer import (
        get_symmetric_a16w8_quantization_config,
        get_symmetric_quantization_config,
    )

    if scheme == "a16w8":
        return get_symmetric_a16w8_quantization_config(is_per_channel=True)
    return get_symmetric_quantization_config(is_per_channel=True)


CONTROL_FLOW = ("cond", "while_loop")   # torch.ops.higher_order operators with submodules


def _has_control_flow(module: Any) -> bool:
    return any(node.op == "call_function" and getattr(node.target, "__name__", "") in CONTROL_FLOW
               for node in module.graph.nodes)


def quantize(exported: Any, quantizer: Any, samples: list[tuple[Any, ...]]) -> Any:
    """PT2E: prepare with `quantizer`, calibrate on `samples`, convert. A graph with torch.cond
    or while_loop is quantized the way ExecuTorch's Arm quantizer does it for its own tests
    (TOSAQuantizer._quantize_with_submodules: the branches' submodules too, else they stay
    float and the partitioner leaves the cond on the CPU)."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    module = exported.module(check_guards=False)
    if _has_control_flow(module) and hasattr(quantizer, "_quantize_with_submodules"):
        return quantizer._quantize_with_submodules(module, samples)
    prepared = prepare_pt2e(module, quantizer)
    for sample in samples:
        prepared(*sample)
    return convert_pt2e(prepared)


def lowering_error(options: CompileOptions, name: str, error: BaseException,
                   next_step: str) -> OrchestratorError:
    """One line for a failure after export (partitioning, TOSA, Vela, emitting); Vela's own
    refusal names Vela's message and the next command instead."""
    refusal = vela_refusal(name, options.target, error)
    if refusal is not None:
        return refusal
    return OrchestratorError(describe(f"lowering to {options.target}", name, error), next_step)


def emit(edge: Any, options: CompileOptions, name: str) -> Any:
    """The ExecutorchProgramManager (memory-planned program) for a lowered edge program."""
    from executorch.exir import ExecutorchBackendConfig

    try:
        return edge.to_executorch(config=ExecutorchBackendConfig(extract_delegate_segments=False))
    except RuntimeError as error:
        if "Missing out variants" in str(error):
            raise OrchestratorError(
                f"model {name} uses operators with no ExecuTorch kernel for {options.target}: "
                f"{str(error).splitlines()[0]}",
                "replace those ops in the model, or compile for an NPU target with "
                "--delegate") from None
        raise lowering_error(options, name, error,
                             "run with a smaller model to isolate the op") from None


def _lower_arm(model: Any, inputs: tuple[Any, ...], samples: list[tuple[Any, ...]],
               options: CompileOptions, name: str, intermediates: Path | None) -> Lowered:
    from executorch.backends.arm.ethosu import EthosUPartitioner
    from executorch.backends.arm.quantizer import EthosUQuantizer
    from executorch.backends.cortex_m.passes.replace_quant_nodes_pass import (
        ReplaceQuantNodesPass,
    )
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

    spec = ethosu_compile_spec(options, intermediates)
    exported = export(model, inputs, name, options.strict_export)
    quantized = None
    if options.quantize:
        quantizer = EthosUQuantizer(spec)
        quantizer.set_global(_quantization_config(options.quantize))
        quantized = quantize(exported, quantizer, samples)
        exported = export(quantized, inputs, name, options.strict_export)
    partitioners = [EthosUPartitioner(spec)] if options.delegate else []
    workarounds: list[str] = []
    try:
        edge = to_edge_transform_and_lower(
            exported, partitioner=partitioners,
            compile_config=EdgeCompileConfig(_check_ir_validity=False))
        edge = edge.transform([ReplaceQuantNodesPass()])
    except OrchestratorError:
        raise
    except Exception as error:  # noqa: BLE001 - Vela / TOSA failures
        raise lowering_error(options, name, error,
                             "check the Vela options, or compile with --no-delegate") from None
    return Lowered(edge, quantized, inputs, workarounds + _zero_point_workaround(edge))


def _channels_last(tensor: Any) -> Any:
    import torch

    return tensor.to(memory_format=torch.channels_last) if tensor.dim() == 4 else tensor


def _lower_cortex_m(model: Any, inputs: tuple[Any, ...], samples: list[tuple[Any, ...]],
                    options: CompileOptions, name: str) -> Lowered:
    import copy

    import torch
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

    preserve: list[Any] = []
    quantized = None
    if options.quantize:
        # CMSIS-NN kernels are NHWC: export with channels-last model and inputs (as upstream's
        # cortex_m tests do), so convolutions are quantized and lowered to cortex_m ops.
        model = copy.deepcopy(model).to(memory_format=torch.channels_last)
        inputs = map_leaves(_channels_last, inputs)
        samples = [map_leaves(_channels_last, sample) for sample in samples]
        quantized = quantize(export(model, inputs, name, options.strict_export),
                             CortexMQuantizer(), samples)
        exported = export(quantized, inputs, name, options.strict_export)
        preserve = [getattr(torch.ops.aten, op).default for op in CORTEX_M_PRESERVED_WHEN_QUANTIZED]
    else:
        exported = export(model, inputs, name, options.strict_export)
    workarounds = [LINEAR_NOTE] if not options.quantize and any(
        "linear" in str(node.target) for node in exported.graph.nodes) else []
    try:
        edge = to_edge_transform_and_lower(
            exported, compile_config=EdgeCompileConfig(preserve_ops=preserve,
                                                       _check_ir_validity=False))
        manager = CortexMPassManager(edge.exported_program(),
                                     target_config=cortex_m_target_config(options))
        edge._edge_programs["forward"] = manager.transform()
    except Exception as error:  # noqa: BLE001
        raise lowering_error(options, name, error,
                             "compile with --quantize none to check the float path") from None
    return Lowered(edge, quantized, inputs, workarounds + _zero_point_workaround(edge))


def cortex_m_target_config(options: CompileOptions) -> Any:
    """Upstream's CortexMTargetConfig for the target's CPU and ISA override (what
    aot_arm_compiler.py builds from --target, plus `isa=`)."""
    from executorch.backends.cortex_m.library import cmsis_nn
    from executorch.backends.cortex_m.target_config import CortexMTargetConfig

    config = CortexMTargetConfig.from_target_string(options.target)
    if options.isa is None:
        return config
    return CortexMTargetConfig(cpu=config.cpu, isa=getattr(cmsis_nn.Backend, options.isa.upper()))


def lower(model: Any, inputs: tuple[Any, ...], samples: list[tuple[Any, ...]],
          options: CompileOptions, name: str, intermediates: Path | None = None) -> Lowered:
    """Export, quantize (if asked) and lower `model` for `options.target`."""
    if options.cortex_m:
        return _lower_cortex_m(model, inputs, samples, options, name)
    return _lower_arm(model, inputs, samples, options, name, intermediates)
