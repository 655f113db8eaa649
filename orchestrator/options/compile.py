"""The compile stage's choices as options (`resolve_options` in orchestrator.aot.options
validates them against the target). A regress matrix option set may use each of them."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import option, strings, switch, text


def vela_flags(value: object, label: str) -> str | tuple[str, ...]:
    """'--optimise Size' or a list of flags."""
    return value if isinstance(value, str) else strings(value, label)


def quantize_choice(value: object, label: str) -> str | bool:
    """int8, a16w8, none (or a boolean)."""
    return value if isinstance(value, bool) else text(value, label)


@dataclass(frozen=True)
class CompileChoices:
    """What the user may choose about a compile (None: the target's default)."""

    quantize: str | bool | None = option(None, "int8 (default), a16w8 where the target "
                                         "supports int16, or none", parse=quantize_choice)
    delegate: bool | None = option(None, "delegate to the NPU (default for Ethos-U targets)",
                                   parse=switch)
    system_config: str | None = option(None, "Vela system config (default: the target's)",
                                       parse=text)
    memory_mode: str | None = option(None, "Vela memory mode (default: the target's)",
                                     parse=text)
    vela_config: str | None = option(None, "your own vela.ini", parse=text)
    vela_flags: str | tuple[str, ...] | None = option(None, "extra Vela flags, e.g. "
                                                      "'--optimise Size'", parse=vela_flags)
    tosa: bool | None = option(None, "also keep the TOSA flatbuffer(s)", parse=switch)
    strict_export: bool | None = option(None, "strict torch.export (default true)",
                                        parse=switch)
    torchvision: bool | None = option(None, "mv2: use torchvision's MobileNetV2", parse=switch)
    inputs: str | None = option(None, "input tensors: .pt (torch.save of a tuple) or .npy",
                                parse=text)
    calibration: str | None = option(None, "calibration data for quantization: a .pt/.npy "
                                     "file or a directory", parse=text)

    def given(self) -> dict[str, object]:
        """The choices that were made (None = not given), as compile keyword arguments."""
        return {name: value for name, value in self.__dict__.items() if value is not None}
