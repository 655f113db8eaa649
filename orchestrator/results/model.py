"""RunResult: the one versioned, machine-readable record of a run (ours or upstream's log)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from orchestrator import __version__
from orchestrator.foundation.run_ids import new_run_id

# 1.2: comparison exactness fields, accuracy; 1.3: cpu.includes_npu_model;
# 1.4: output numel/nbytes, classification.details.secondary, log.stated;
# 1.5: profile (per-operator time from the ETDump); 1.6: write_checks (writes over live
# tensors found on the NPU model over the run's command streams); 1.7: the NPU model's one
# name (npu.executor, versions.extra), and the FVP's Ethos-U banner its own key (fvp_ethos_u);
# 2.0: that rename recorded as the breaking change it is (fields renamed: a major version);
# older files are read by results/upgrade.py, a newer major is refused
SCHEMA_VERSION = "2.0.0"

FVP_CPU_CYCLES_NOTE = (
    "FVP CPU cycles are not timing: the Corstone FVP is cycle accurate for the NPU only; "
    "CPU cycle values and ratios need an FPGA with identical CPU/NPU frequency"
)
PRINTED_FLOAT_PRECISION = "printf %f: 6 decimals, no exponent"


class Status(str, Enum):
    """What a user should conclude from the run."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"
    INTERRUPTED = "interrupted"


MAX_EVIDENCE = 8   # lines of evidence a classification keeps


class Kind(str, Enum):
    """Why the run ended the way it did (each kind has a next step, see classify)."""

    SUCCESS = "success"
    LAUNCH_FAILURE = "launch_failure"
    TIMEOUT = "timeout"
    CPU_TIME_LIMIT = "cpu_time_limit"
    CYCLE_LIMIT = "cycle_limit"
    HARD_FAULT = "hard_fault"
    ALLOC_FAILURE = "alloc_failure"
    MISSING_KERNEL = "missing_kernel"
    METHOD_LOAD_FAILURE = "method_load_failure"
    EXECUTION_FAILURE = "execution_failure"
    ASSERTION = "assertion"
    NPU_ERROR = "npu_error"
    OUTPUT_MISMATCH = "output_mismatch"
    TEST_FAILURE = "test_failure"
    BUILD_FAILURE = "build_failure"
    NO_OUTPUT = "no_output"
    INCOMPLETE = "incomplete"
    NOT_A_RUN_LOG = "not_a_run_log"
    NOT_RUN = "not_run"
    UNKNOWN = "unknown"
    INTERRUPTED = "interrupted"


@dataclass
class Classification:
    """The decided cause, the lines that decided it, its details and the next step."""

    kind: Kind
    summary: str
    next_step: str
    evidence: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


FVP_ETHOS_U_VERSION = "fvp_ethos_u"   # Versions.extra: an FVP's Ethos-U component (its banner)
NPU_MODEL_VERSION = "npu_model"   # Versions.extra: the NPU model's


@dataclass
class Versions:
    """Every component version that produced the result (None when unknown)."""

    tool: str = __version__
    executorch: str | None = None
    vela: str | None = None
    toolchain: str | None = None
    simulator: str | None = None
    simulator_version: str | None = None
    runtime_commit: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def filled_from(self, *others: Versions | None) -> Versions:
        """A copy with each field these versions lack taken from the first of `others` that
        has it (extra keys likewise: a key already here wins)."""
        known = {name: value for name, value in self.__dict__.items() if name != "extra"}
        extra = dict(self.extra)
        for other in others:
            if other is None:
                continue
            for name, value in other.__dict__.items():
                if name != "extra" and known.get(name) is None:
                    known[name] = value
            extra = {**other.extra, **extra}
        return Versions(**known, extra=extra)


@dataclass
class TargetInfo:
    """Which target ran and with what options (Vela config, MACs, fast mode, ...)."""

    name: str | None = None
    simulator: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class OutputTensor:
    """One output: exact values with dtype/shape, or values as printed (precision noted)."""

    index: int
    dtype: str | None = None
    shape: list[int] | None = None
    values: list[Any] = field(default_factory=list)
    name: str | None = None        # its path in the model's outputs (`output['h'][0]`)
    exact: bool = False
    precision: str | None = None
    indices: list[int] | None = None
    elided: bool = False
    not_tensor: bool = False
    numel: int | None = None       # element count a header stated, with or without values
    nbytes: int | None = None      # byte size a header stated


@dataclass
class Comparison:
    """How the outputs compare with a reference (BundleIO on target or host-side)."""

    reference: str
    passed: bool | None = None
    mean_absolute_error: float | None = None
    max_absolute_error: float | None = None
    mean_relative_error: float | None = None
    max_relative_error: float | None = None
    atol: float | None = None
    rtol: float | None = None
    testset: int | None = None
    exact: bool | None = None                 # judged bit for bit against the exact reference
    mismatches: int | None = None             # elements that differ (exact verdict)
    first_mismatch: Mismatch | None = None
    worst_mismatch: Mismatch | None = None
    exact_fallback: str | None = None         # why no exact reference (then: tolerances)


@dataclass
class Mismatch:
    """One output element that differs from the exact reference."""

    output: int
    index: list[int]
    device: float
    reference: float
    name: str | None = None        # the output's path (`output[1]`)


@dataclass
class OutputAccuracy:
    """One device output against the float model's."""

    index: int
    snr_db: Any = None                        # float; "inf" when identical
    max_abs_error: float | None = None
    mean_abs_error: float | None = None
    quant_step: float | None = None
    max_abs_steps: float | None = None        # max abs error in output quantization steps
    mean_abs_steps: float | None = None
    top1: bool | None = None                  # float model's best class is the device's best
    top5: bool | None = None                  # ... is among the device's best five
    name: str | None = None                   # the output's path (`output[1]`)


@dataclass
class Accuracy:
    """How far the device's outputs are from the float model (quantization error), reported
    on every run; a gate only when thresholds were given (passed None: no gate)."""

    reference: str = "float"
    outputs: list[OutputAccuracy] = field(default_factory=list)
    min_snr_db: float | None = None
    require_top1: bool = False
    passed: bool | None = None
    reason: str = ""
    dataset: dict[str, Any] | None = None    # a run over many input sets: its summary


@dataclass
class PmuCounter:
    """One Ethos-U PMU event counter, labelled with its event name when known."""

    index: int
    value: int
    event: str | None = None


@dataclass
class NpuPmu:
    """Ethos-U PMU report: active cycles plus event counters."""

    cycles: int | None = None
    counters: list[PmuCounter] = field(default_factory=list)
    inferences: int | None = None
    delegations: int | None = None
    event_source: str | None = None
    executor: str | None = None          # "fvp" or "npu-model": who ran the NPU
    executor_version: str | None = None  # the NPU model's version (None on an FVP)


@dataclass
class CpuCycles:
    """CPU cycle counts with where they came from and what they mean."""

    source: str
    note: str
    total: int | None = None
    operators_total: int | None = None
    per_operator: dict[str, int] = field(default_factory=dict)
    npu_wait: int | None = None
    cpu_ratio_percent: float | None = None
    npu_ratio_percent: float | None = None
    # True on a npu-model run: the CPU also executed the NPU's work (the model emulating
    # the Ethos-U on the M55), so the count is neither CPU-only work nor any NPU's timing.
    includes_npu_model: bool | None = None


@dataclass
class VelaEstimate:
    """Vela's compile-time estimates, kept beside the measured numbers."""

    accelerator: str | None = None
    system_config: str | None = None
    memory_mode: str | None = None
    clock_mhz: float | None = None
    npu_operators: int | None = None
    cpu_operators: int | None = None
    npu_cycles: int | None = None
    total_cycles: int | None = None
    access_cycles: dict[str, int] = field(default_factory=dict)
    inference_time_ms: float | None = None
    inferences_per_second: float | None = None
    macs: int | None = None
    sram_used_kib: float | None = None
    offchip_flash_used_kib: float | None = None
    dram_used_kib: float | None = None
    onchip_flash_used_kib: float | None = None
    design_peak_bandwidth_gbs: dict[str, float] = field(default_factory=dict)
    average_bandwidth_gbs: dict[str, float] = field(default_factory=dict)
    bandwidth_mb_per_batch: dict[str, dict[str, float]] = field(default_factory=dict)
    network_tops_per_s: float | None = None
    original_weights_kib: float | None = None
    encoded_weights_kib: float | None = None
    per_operator: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class OperatorTime:
    """One operator of a profile: every call of it in the traced inferences, in the profile's
    unit. `executor` says who ran it (a CPU kernel or a delegate); `vela_cycles` is Vela's
    compile-time estimate for a delegate call (NPU cycles, an estimate, never measured)."""

    operator: str
    executor: str
    calls: int
    total: int
    per_call: float
    share_percent: float
    vela_cycles: int | None = None
    vela_operations: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Profile:
    """Where the time of the traced inferences went, per operator, from the runner's ETDump
    read by ExecuTorch's Inspector. `source`/`unit` say what was counted and `timing` whether
    it is timing at all (QEMU counts instructions); the rows plus `runtime_overhead` add up
    to `total` (the Method::execute events)."""

    source: str
    unit: str
    timing: bool
    note: str
    total: int
    inferences: int
    operators: list[OperatorTime] = field(default_factory=list)
    runtime_overhead: int = 0
    npu_note: str | None = None
    reader: str | None = None
    etdump_bytes: int | None = None
    etrecord: bool = False
    # --intermediates: every operator's output vs the exact reference's, the first departure
    intermediates: dict[str, Any] | None = None


@dataclass
class WriteChecks:
    """Writes over live tensors in the compiled program's command streams (findings about the
    program Vela emitted, not a model failure). `executor` says where the check ran (the host
    build of the NPU model over the same streams, not the device), `findings`
    each name the partition, operation, scratch range, the tensor clobbered and a sentence."""

    executor: str
    note: str
    inputs: str
    seconds: float
    findings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Delegation:
    """ExecuTorch's delegation summary: how much of the graph went to a backend."""

    subgraphs: int | None = None
    delegated_nodes: int | None = None
    non_delegated_nodes: int | None = None


@dataclass
class PoolUse:
    """One allocator pool: bytes used out of its size."""

    used: int | None = None
    size: int | None = None


@dataclass
class MemoryUse:
    """Program size, allocator pools and per-purpose allocations, image sections."""

    pte_size: int | None = None
    pte_loaded_size: int | None = None
    pools: dict[str, PoolUse] = field(default_factory=dict)
    allocations: dict[str, int] = field(default_factory=dict)
    planned_buffers: list[int] = field(default_factory=list)
    image_sections: dict[str, int] = field(default_factory=dict)


@dataclass
class Simulation:
    """How the simulator ran and stopped (its exit code alone never means success)."""

    exit_code: int | None = None
    stop_reason: str | None = None
    simulated_time: str | None = None
    end_of_transmission: bool = False
    completed: bool = False
    host_timeout_s: float | None = None
    wrapper_verdict: str | None = None
    wrapper_exit_code: int | None = None
    application_exit_code: int | None = None


@dataclass
class LogInfo:
    """What the parser saw: formats, line counts, error lines and unrecognised lines."""

    formats: list[str] = field(default_factory=list)
    lines: int = 0
    unknown_count: int = 0
    unknown: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Facts the log stated that no dedicated field holds: method name, methods in the program,
    # inferences, model address, simulator command line, ETDump sizes, Unity counts, ...
    stated: dict[str, Any] = field(default_factory=dict)


def utc_now() -> str:
    """Current time as an ISO 8601 UTC string."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class RunResult:
    """The versioned result document of one run."""

    status: Status
    reason: str
    classification: Classification
    schema_version: str = SCHEMA_VERSION
    run_id: str = field(default_factory=new_run_id)
    source: str = "orchestrator"
    created_at: str = field(default_factory=utc_now)
    started_at: str | None = None
    finished_at: str | None = None
    model: str | None = None
    target: TargetInfo = field(default_factory=TargetInfo)
    versions: Versions = field(default_factory=Versions)
    outputs: list[OutputTensor] = field(default_factory=list)
    comparison: Comparison | None = None
    accuracy: Accuracy | None = None
    npu: NpuPmu | None = None
    cpu: CpuCycles | None = None
    vela: VelaEstimate | None = None
    profile: Profile | None = None
    write_checks: WriteChecks | None = None
    memory: MemoryUse | None = None
    delegation: Delegation | None = None
    simulation: Simulation = field(default_factory=Simulation)
    timings_s: dict[str, float] = field(default_factory=dict)
    artifacts: dict[str, str] = field(default_factory=dict)
    log: LogInfo = field(default_factory=LogInfo)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (enums as their values)."""
        from orchestrator.results.codec import to_plain

        plain: dict[str, Any] = to_plain(self)
        return plain

    def to_json(self, indent: int | None = 2) -> str:
        """The JSON document (stable key order)."""
        import json

        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_dict(cls, document: dict[str, Any]) -> RunResult:
        """Rebuild from a dict produced by to_dict (unknown keys rejected); a document of an
        older schema is read with today's names (results/upgrade.py)."""
        from orchestrator.results.codec import from_plain
        from orchestrator.results.upgrade import upgrade

        result: RunResult = from_plain(cls, upgrade(document))
        return result

    @classmethod
    def from_json(cls, text: str) -> RunResult:
        """Rebuild from a JSON document produced by to_json."""
        import json

        return cls.from_dict(json.loads(text))
