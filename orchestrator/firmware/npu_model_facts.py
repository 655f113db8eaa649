"""What a run's result says about its NPU, decided once for every run path (a model run, the
self-tests, regress cells, sample sessions) by run_firmware from the run plan and the build:
on the NPU model, which model ran (its version as the firmware reported it),
delegations, CPU cycles labelled as including the model's emulation of the NPU, the CPU that
ran it, and a command stream the model refused as one NPU error with the next step; on an NPU
device (FVP), its PMU cycles and event counters in the catalogue's order."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.firmware.build import BuildConfig, BuildResult
from orchestrator.firmware.build.npu_model import EXECUTOR_FVP, EXECUTOR_MODEL, model_version
from orchestrator.parse.protocol_values import reported_model_version
from orchestrator.protocol import ParsedStream
from orchestrator.results import Classification, Kind, NpuPmu, PmuCounter, RunResult, Status
from orchestrator.sim.plan import RunPlan
from orchestrator.targets import Target, load_catalogue

# The CMake definition every build that embeds the NPU model carries
# (firmware_build/npu_model.py model_definitions).
MODEL_DEFINITION = "EOR_NPU_MODEL_ARCH"
EMULATED_NPU_NOTE = ("includes the NPU model emulating the Ethos-U on this CPU: "
                     "neither the CPU's share of the inference nor NPU timing")


def runs_npu_model(npu_executor: str | None, config: BuildConfig) -> bool:
    """Whether the run executes the NPU's commands on the NPU model: the plan
    placed the target on a model (`npu_executor`) and the build embeds it (a protocol app
    such as the selftest does not)."""
    return npu_executor == EXECUTOR_MODEL and MODEL_DEFINITION in dict(config.options)


def apply_npu_model_facts(result: RunResult, plan: RunPlan, build: BuildResult,
                          stream: ParsedStream) -> RunResult:
    """The result with its NPU record: on the NPU model, the model, the
    emulated-cycles label and a refusal; on an NPU device, its PMU counters; else none (a
    protocol app placed on a model's platform runs no NPU)."""
    if runs_npu_model(plan.npu_executor, build.config):
        result.npu = npu_model_record(stream)
        label_emulated_npu_cycles(result, plan.target)
        return explain_npu_model_refusal(result, stream)
    if plan.npu_executor == EXECUTOR_FVP:
        result.npu = device_npu(stream, plan.target)
    return result


def device_npu(stream: ParsedStream, target: Target) -> NpuPmu | None:
    """An NPU device's cycles and named event counters, in the catalogue's counter order
    (None: no NPU or no PMU record)."""
    cycles = stream.metric("ethosu_pmu_cycle_cntr")
    if not target.has_npu or cycles is None:
        return None
    counters = [PmuCounter(index=i, value=metric.value, event=event)
                for i, event in enumerate(target.pmu_events)
                if (metric := stream.metric(event)) is not None]
    delegations, runs = stream.metric("npu_delegations"), stream.metric("inferences")
    return NpuPmu(cycles=cycles.value, counters=counters,
                  inferences=runs.value if runs else None,
                  delegations=delegations.value if delegations else None,
                  event_source="ethosu_pmu", executor=EXECUTOR_FVP)


def npu_model_record(stream: ParsedStream) -> NpuPmu:
    """The NPU record of a npu-model run: the model and its version (as the firmware
    reported it, else the version it was built with), delegations; never cycles or events."""
    delegations, runs = stream.metric("npu_delegations"), stream.metric("inferences")
    return NpuPmu(cycles=None, counters=[], inferences=runs.value if runs else None,
                  delegations=delegations.value if delegations else None,
                  executor=EXECUTOR_MODEL,
                  executor_version=reported_model_version(stream) or model_version())


def label_emulated_npu_cycles(result: RunResult, target: Target | None = None) -> None:
    """On a npu-model run, mark the CPU count as including the NPU's emulated work and
    (given the placed target) say which CPU ran it: the model's platform's, which for an
    Ethos-U85 is not the target's own Cortex-M85 (QEMU has no Corstone-320)."""
    if result.npu is None or result.npu.executor != EXECUTOR_MODEL:
        return
    if target is not None:
        record_emulating_cpu(result, target)
    if result.cpu is None:
        return
    result.cpu = replace(result.cpu, includes_npu_model=True,
                         note=f"{result.cpu.note}; {EMULATED_NPU_NOTE}")


def record_emulating_cpu(result: RunResult, target: Target) -> None:
    """target.options.cpu: the CPU that ran the program and the NPU model; cpu_note when the
    target's own board has another CPU."""
    ran_on = target.platform.cpu
    result.target.options["cpu"] = ran_on
    if target.npu is None:
        return
    own = load_catalogue().platforms[target.npu.platform].cpu
    if own != ran_on:
        result.target.options["cpu_note"] = (
            f"the {ran_on} of {target.platform.name} ran the program and the NPU "
            f"model, not {target.name}'s own {own} ({target.npu.platform})")


def explain_npu_model_refusal(result: RunResult, stream: ParsedStream) -> RunResult:
    """A command stream the NPU model refused (its note names the model, the target
    and the reason: an arch/MAC mismatch, an unimplemented command) is an NPU error."""
    refusal = next((frame.fields for frame in stream.other
                    if frame.type == "note" and "npu_model_code" in frame.fields), None)
    if refusal is None or result.status is Status.PASS:
        return result
    summary = refusal.get("message") or "the NPU model refused the command stream"
    return replace(result, status=Status.FAIL, reason=summary, classification=Classification(
        kind=Kind.NPU_ERROR, summary=summary,
        next_step=f"compile the model for {refusal.get('npu_config')} (invoke compile "
                  f"--target {refusal.get('npu_config')}), or run it on the FVP: "
                  f"{fvp_setup_step(str(refusal.get('npu_config')))}",
        evidence=result.classification.evidence,
        details={**result.classification.details, "npu_executor": EXECUTOR_MODEL}))


def refused_by_npu_model(result: RunResult) -> bool:
    """Whether the result already names the NPU model's refusal as its cause."""
    return (result.classification.kind is Kind.NPU_ERROR
            and result.classification.details.get("npu_executor") == EXECUTOR_MODEL)


def fvp_setup_step(target_name: str) -> str:
    """How to run `target_name` on its own FVP (Corstone-300 for U55/U65, -320 for U85)."""
    target = load_catalogue().targets.get(target_name)
    fvp = target.simulator("fvp") if target is not None else None
    if fvp is None:
        return "pick a target with an FVP (invoke targets), then --sim fvp"
    from orchestrator.sim.fvp_run import setup_artifact  # FVP runs' module: a hint only

    return f"invoke setup --only {setup_artifact(fvp)}, then --sim fvp"
