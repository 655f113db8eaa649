"""invoke tasks: each is made from its option group (orchestrator/options/) and calls one
orchestrator function with it. Nothing else lives here."""

from __future__ import annotations

from orchestrator.commands.task_options import options_task, spec_task
from orchestrator.commands.task_spec import QUIET_HELP, RUN
from orchestrator.options.artifact import InspectTask
from orchestrator.options.build import BuildTask
from orchestrator.options.compile import CompileTask
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.options.inspect import (
    DoctorCheck,
    ModelsListing,
    TargetsListing,
    ToolsetsListing,
    VerifyTask,
)
from orchestrator.options.isa_check import IsaCheck
from orchestrator.options.parse import ParseTask
from orchestrator.options.products import ProductsTask
from orchestrator.options.regress import RegressMerge, RegressTask
from orchestrator.options.setup import SetupFlags

targets = options_task(
    "orchestrator.commands.targets:targets_command", TargetsListing, name="targets",
    doc="List every target: CPU, NPU and MACs, platform, simulators, Vela defaults.",
    flags={"json": (False, "print the catalogue as JSON instead of a table")}, short_flags=True,
)


models = options_task(
    "orchestrator.commands.models:models_command", ModelsListing, name="models",
    doc="List every model --model accepts by name: source, packages, weights, known results.",
    flags={"json": (False, "print the listing as JSON instead of a table")}, short_flags=True,
)


toolsets = options_task(
    "orchestrator.commands.toolsets:toolsets_command", ToolsetsListing, name="toolsets",
    doc="List the toolsets (pinned AOT stacks): packages, runtime tag, installed or not.",
    flags={"json": (False, "print the listing as JSON")}, short_flags=True,
)


doctor = options_task(
    "orchestrator.commands.doctor:doctor_command", DoctorCheck, name="doctor",
    doc="Check everything the tool needs and print the command that fixes each problem.",
    flags={"json": (False, "print the checks as JSON")}, short_flags=True,
)


inspect = options_task(
    "orchestrator.commands.inspect:inspect_command", InspectTask, name="inspect",
    doc="What a .pte or .bpte holds and whether the pinned runtime can run it (exit 1: not).",
    flags={"json": (False, "print the inspection as JSON")}, short_flags=True,
)


parse = options_task(
    "orchestrator.commands.parse:parse_command", ParseTask, name="parse",
    doc="Turn any runner log into a RunResult: status, cause, next step, numbers.",
    flags={"json": (False, "print the RunResult document as JSON (a list of them for a "
                           "folder)")}, short_flags=True,
)


build = options_task(
    "orchestrator.commands.build:build_command", BuildTask, name="build",
    doc="Configure if needed, build incrementally, print ELF sections and memory-region use.",
    flags={"json": (False, "print the build manifest as JSON"), "quiet": (False, QUIET_HELP)},
)


run_ = spec_task(RUN)   # also `python -m orchestrator run` (orchestrator.commands.direct)


isa_check = options_task(
    "orchestrator.commands.isa_check:isa_check_command", IsaCheck, name="isa_check",
    doc="Scalar = DSP = MVE: one model on several Cortex-M CPUs' QEMU boards (or one CPU "
        "forced to several CMSIS-NN backends), outputs compared bit for bit; exit 1 if not.",
    flags={"json": (False, "print the runs and the agreement as JSON"),
           "quiet": (False, QUIET_HELP)},
)


compile = options_task(
    "orchestrator.commands.compile:compile_command", CompileTask, name="compile",
    doc="Compile a PyTorch model to a .pte with Vela and delegation reports (cached).",
    flags={"json": (False, "print the summary as JSON"), "quiet": (False, QUIET_HELP)},
)


products = options_task(
    "orchestrator.commands.products:products_command", ProductsTask, name="products",
    doc="List the compiled products (by lowering, with sizes and ages); --keep N or --max-size "
        "SIZE removes the least recently used, never one a running job holds.",
    flags={"json": (False, "print the listing (or what the clean-up did) as JSON")},
    short_flags=True,
)


regress = options_task(
    "orchestrator.commands.regress:regress_command", RegressTask, name="regress",
    doc="Run a regression matrix; reports go to scratch/runs/<run id>/, exit 1 if a cell failed.",
    flags={"json": (False, "print the report document as JSON")}, short_flags=True,
)


regress_merge = options_task(
    "orchestrator.commands.regress:merge_command", RegressMerge, name="regress_merge",
    doc="Merge `invoke regress --shard i/N` reports into one report and one verdict.",
    flags={"json": (False, "print the merged document as JSON")}, short_flags=True,
)


setup = options_task(
    "orchestrator.commands.setup:setup_command", SetupFlags, name="setup",
    doc="Install the pinned toolchain, Corstone FVPs and upstream sources (verified, cached).",
    flags={"json": (False, "print the lock entries of the selected items as JSON"),
           "quiet": (False, QUIET_HELP)},
)


verify = options_task(
    "orchestrator.commands.verify:verify_command", VerifyTask, name="verify",
    doc="NPU partitions on the NPU model vs the TOSA reference; exit 0 only if exact.",
    flags={"json": (False, "print the report as JSON (top-level \"exact\": true|false)"),
           "coverage": (False, "print the NPU model's coverage table (every command, field "
                               "and value regor defines: written or not, modelled or not)")},
    short_flags=True,
)


evaluate = options_task(
    "orchestrator.commands.evaluate:evaluate_command", EvaluateRequest, name="evaluate",
    doc="A data set through one simulator session: per-sample exactness, accuracy vs the float "
        "model and the labels; writes scratch/runs/<id>/evaluation.{json,html}.",
    flags={"json": (False, "print the evaluation document as JSON"),
           "quiet": (False, QUIET_HELP)},
)
