"""The compile stage's choices as options (`resolve_options` in orchestrator.aot.options
validates them against the target). A regress matrix option set may use each of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orchestrator.options.fields import option, strings, subgroup, switch, text


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
    delegate: bool | None = option(None, "delegate to the NPU (default for Ethos-U targets; "
                                   "refused without an NPU)", parse=switch,
                                   off=("no_delegate", "run every op on the CPU (default for "
                                        "Cortex-M targets)"))
    inputs: str | None = option(None, "input tensors: .pt (torch.save of a tuple) or .npy; "
                                "invoke compile: the model's example inputs; invoke run: "
                                "your input sets (a .npy/.npz/.pt file, or a directory with "
                                "one per file, other files through the model's "
                                "preprocess(path)) in one simulator session, each judged "
                                "against its own exact reference, without recompiling",
                                parse=text)
    calibration: str | None = option(None, "calibration data for quantization: a .pt/.npy "
                                     "file or a directory", parse=text)
    system_config: str | None = option(None, "Vela system config (default: the target's, from "
                                       "the catalogue)", parse=text)
    memory_mode: str | None = option(None, "Vela memory mode, and the runner's memory plan "
                                     "(default: the target's, from the catalogue)", parse=text)
    vela_config: str | None = option(None, "your own vela.ini", parse=text)
    vela_flags: str | tuple[str, ...] | None = option(None, "extra Vela flags, e.g. "
                                                      "'--optimise Size'", parse=vela_flags)
    isa: str | None = option(None, "Cortex-M targets: the CMSIS-NN backend (scalar, dsp, mve) "
                             "instead of the CPU's own, e.g. --isa dsp on cortex-m55 (an M55 "
                             "without MVE); refused where the core cannot execute it",
                             parse=text)
    tosa: bool = option(False, "also keep the TOSA flatbuffer(s)", parse=switch)
    strict_export: bool = option(True, "strict torch.export (default); --no-strict for "
                                 "non-strict export", parse=switch, flag="strict")
    torchvision: bool = option(False, "mv2: use torchvision's MobileNetV2 (needs torchvision "
                               "installed)", parse=switch)
    random_weights: bool = option(False, "an upstream model with pretrained weights gets "
                                  "seeded random ones instead (recorded in the result and "
                                  "the product key; never done unasked)", parse=switch)

    def given(self) -> dict[str, Any]:
        """The choices that differ from the defaults (what the user chose)."""
        defaults = CompileChoices()
        return {name: value for name, value in self.__dict__.items()
                if value != getattr(defaults, name)}


@dataclass(frozen=True)
class CompileTask:
    """`invoke compile`: which model, for which target, with which choices."""

    model: str = option("mv2", "built-in name (add, softmax, convnet, mv2), an upstream "
                        "examples/models name (mv3, ds_cnn, ...; invoke models lists them), a "
                        ".py file with ModelUnderTest and ModelInputs, a torch.save'd .pt "
                        "model, or module:function", parse=text, matrix=False)
    target: str = option("ethos-u55-128", "target name (invoke targets lists them); several "
                         "at once: ethos-u85-128,ethos-u85-2048 or a wildcard ethos-u85-* (one "
                         "lowering per NPU family, then Vela per configuration)",
                         parse=text, matrix=False)
    toolset: str | None = option(None, "compile under this toolset (a name, or requirements "
                                 "like executorch==1.5.1; invoke toolsets lists them; "
                                 "default: the pinned one, in this process)", parse=text,
                                 matrix=False)
    bundle: bool = option(False, "also write model.bpte beside the .pte: the program with the "
                          "compile's inputs as a test case and our exact reference as its "
                          "expected outputs (BP08, as upstream's runner reads it; check it "
                          "with invoke run --pte FILE --atol 0 --rtol 0)", parse=switch,
                          matrix=False)
    choices: CompileChoices = subgroup(CompileChoices)
