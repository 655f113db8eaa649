"""Compile options: what the user asked for, resolved against the target catalogue."""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.aot.vela.flags import check_vela_flags
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices
from orchestrator.targets import Target, load_catalogue
from orchestrator.targets.cortex_m import check_isa

QUANTIZATIONS = ("int8", "a16w8")
NO_QUANTIZE = ("none", "float", "off", "")


@dataclass(frozen=True)
class CompileOptions:
    """Everything that changes the compiled product, with the target's defaults filled in."""

    target: str
    quantize: str | None = "int8"
    delegate: bool = True
    system_config: str | None = None
    memory_mode: str | None = None
    vela_config: str | None = None
    vela_flags: tuple[str, ...] = ()
    tosa: bool = False
    strict_export: bool = True
    torchvision: bool = False
    isa: str | None = None   # Cortex-M: a CMSIS-NN backend other than the CPU's own
    notes: tuple[str, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (notes excluded: they are derived, not chosen; isa only when
        chosen, so products compiled before it existed keep their keys)."""
        data = asdict(self)
        data.pop("notes")
        if self.isa is None:
            data.pop("isa")
        data["vela_flags"] = list(self.vela_flags)
        return data

    @property
    def cortex_m(self) -> bool:
        """True for the CPU-only Cortex-M (CMSIS-NN) path."""
        return self.target.startswith("cortex-m")


def parse_quantize(value: str | bool | None) -> str | None:
    """'int8' / 'a16w8' / 'none' (or True/False) -> the quantization scheme or None."""
    if value is True:
        return "int8"
    if value is False or value is None:
        return None
    text = str(value).strip().lower()
    if text in NO_QUANTIZE:
        return None
    if text not in QUANTIZATIONS:
        raise OrchestratorError(
            f"unknown quantization '{value}' (valid: {', '.join(QUANTIZATIONS)} or none)",
            "invoke compile --quantize int8")
    return text


def parse_vela_flags(value: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """'--optimise Size --arena-cache-size=1000' -> ('--optimise', 'Size', ...)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    return tuple(str(item) for item in value)


def _check_quantize(target: Target, quantize: str | None) -> None:
    if quantize is not None and quantize not in target.quantization:
        raise OrchestratorError(
            f"target {target.name} does not support {quantize} quantization "
            f"(supported: {', '.join(target.quantization)})",
            f"invoke compile --target {target.name} --quantize {target.quantization[0]}")


def _check_delegate(target: Target, delegate: bool) -> None:
    if delegate and not target.has_npu:
        raise OrchestratorError(
            f"target {target.name} has no NPU, so there is nothing to delegate to "
            "(it runs every op on the CPU)",
            f"invoke compile --target {target.name} --no-delegate, or pick an ethos-u target "
            "(invoke targets)")


def _check_choice(target: Target, kind: str, value: str | None, valid: tuple[str, ...],
                  custom_config: bool) -> None:
    if value is None or custom_config or value in valid:
        return
    raise OrchestratorError(
        f"{kind} '{value}' is not valid for {target.name} (valid: {', '.join(valid)})",
        f"invoke compile --target {target.name} without --{kind.replace('_', '-')}, "
        "or pass --vela-config with your own vela.ini")


def _check_vela_config(path: str | None) -> str | None:
    if path is None:
        return None
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise OrchestratorError(f"Vela config file {path} does not exist",
                                "pass an existing vela.ini with --vela-config")
    return str(resolved)


def resolve_options(target: str, choices: CompileChoices | None = None) -> CompileOptions:
    """Validate the user's choices for `target` and fill in the catalogue's defaults (an
    unset quantization is int8)."""
    chosen = choices or CompileChoices()
    spec = load_catalogue().target(target)
    scheme = parse_quantize("int8" if chosen.quantize is None else chosen.quantize)
    wants_delegate = spec.has_npu if chosen.delegate is None else chosen.delegate
    _check_quantize(spec, scheme)
    _check_delegate(spec, wants_delegate)
    config = _check_vela_config(chosen.vela_config)
    flags = parse_vela_flags(chosen.vela_flags)
    isa = check_isa(spec, chosen.isa)
    if spec.npu is None:
        if chosen.system_config or chosen.memory_mode or config or flags or chosen.tosa:
            raise OrchestratorError(
                f"target {spec.name} has no NPU, so Vela and TOSA options do not apply",
                f"invoke compile --target {spec.name} without Vela/TOSA options")
        return CompileOptions(target=spec.name, quantize=scheme, delegate=False,
                              strict_export=chosen.strict_export,
                              torchvision=chosen.torchvision, isa=isa)
    check_vela_flags(flags)
    _check_choice(spec, "system_config", chosen.system_config, spec.npu.system_configs,
                  bool(config))
    _check_choice(spec, "memory_mode", chosen.memory_mode, spec.npu.memory_modes, bool(config))
    if chosen.tosa and not wants_delegate:
        raise OrchestratorError("the TOSA flatbuffer only exists for delegated compiles",
                                f"invoke compile --target {spec.name} --delegate --tosa")
    notes: tuple[str, ...] = ()
    if wants_delegate and scheme is None:
        notes = ("float model on an NPU target: Ethos-U runs integer ops only, so nothing "
                 "will be delegated",)
    return CompileOptions(
        target=spec.name, quantize=scheme, delegate=wants_delegate,
        system_config=chosen.system_config or spec.npu.system_config,
        memory_mode=chosen.memory_mode or spec.npu.memory_mode, vela_config=config,
        vela_flags=flags, tosa=chosen.tosa, strict_export=chosen.strict_export,
        torchvision=chosen.torchvision, notes=notes)
