"""Crashes and runtime failures: hard faults, asserts, missing kernels, NPU errors."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, rule
from orchestrator.parse.facts import LogFacts, Problem
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import Kind

REGISTER = re.compile(
    r"\b([A-Za-z][A-Za-z0-9]*)(?:/[a-z0-9]+)?(?:[=:]\s*|\s+)(-?0x[0-9a-fA-F]+|-?\d+)\b"
)
# Error lines that are not ET_LOG: our runner's `F [runner] ...`, Ethos-U driver / Zephyr
# `E: ...`, Zephyr `[time] <err> ...`, FVP `[critical]`, core_platform hard faults.
ERROR_LINE = re.compile(r"^(?:[EF] \[[\w.-]+\] |E: |\[critical\]|Hard fault|\[[\d:.,]+\] <err> )")
# Those only firmware prints: `E: ` alone is also apt's, so the Ethos-U driver's LOG_ERR is
# told by the `(file.c:line)` it ends with (ethos-u-core-driver src/ethosu_log.h).
FIRMWARE_ERROR_LINE = re.compile(
    r"^(?:[EF] \[[\w.-]+\] |Hard fault|\[[\d:.,]+\] <err> |E: .* \([\w.-]+\.c(?:pp)?:\d+\)$)"
)
ZEPHYR_PC = re.compile(r"Faulting instruction address \(r15/pc\):\s*(0x[0-9a-fA-F]+)")
# Vendor / CMSIS fault handlers print one register per `NAME : value` pair, the value in hex
# with or without 0x (`IPSR : 0x00000005`, `PC   : 00005276`, `PC: 0x0809EB58(0x5018E8B1)`).
VENDOR_REGISTER = re.compile(r"\b([A-Za-z][A-Za-z0-9_]*)\s*:\s*(?:0x)?([0-9A-Fa-f]{8})\b")
VENDOR_REGISTER_LINE = re.compile(r"^\(?\s*[A-Za-z][A-Za-z0-9_]*\s*:\s*(?:0x)?[0-9A-Fa-f]{8}\b")
# The active exception number (IPSR, or ICSR's VECTACTIVE field) names the fault a generic
# handler caught.
EXCEPTION_NUMBERS = {3: "hard", 4: "memmanage", 5: "bus", 6: "usage", 7: "secure"}
HANDLER_FAULTS = {
    "hardfault": "hard", "busfault": "bus", "memmanage": "memmanage", "usagefault": "usage",
    "securefault": "secure", "nmi": "nmi",
}


def registers(text: str) -> dict[str, int]:
    """Register values written as name=0x.. / name: 0x.. (decimal for irq)."""
    values = {}
    for name, value in REGISTER.findall(text):
        negative = value.startswith("-")
        digits = value.lstrip("-")
        parsed = int(digits, 16) if digits.lower().startswith("0x") else int(digits)
        values[name.lower()] = -parsed if negative else parsed
    return values


def _last_fault(facts: LogFacts) -> Problem | None:
    """The most recent hard fault problem, if any."""
    faults = [p for p in facts.problems if p.kind is Kind.HARD_FAULT]
    return faults[-1] if faults else None


@rule(r"^(Hard|MemManage|Bus|Usage|Secure|NMI) fault[.:]?(.*)$")
def _hard_fault(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    found = registers(match[2])
    where = f" at pc=0x{found['pc']:08x}" if "pc" in found else ""
    fault = match[1].lower()
    summary = f"the CPU took a {fault} fault{where}"
    facts.problem(Kind.HARD_FAULT, summary, line, registers=found, fault_type=fault)


@rule(r"\*{3,} ?((?:HARD|BUS|MPU|USAGE|MEMORY MANAGEMENT|SECURE) FAULT) ?\*{3,}")
def _zephyr_fault(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    fault = match[1].lower()
    summary = f"the CPU took a {fault}"
    facts.problem(Kind.HARD_FAULT, summary, line, registers={}, fault_type=fault)


@rule(
    r"Exception caught by function (\w+?)_?Handler|^\+\+ MbedOS Fault Handler \+\+|"
    r"^>?Unhandled Exception!|^FaultType: (\w+)"
)
def _vendor_fault(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    named = (match[1] or match[2] or "").lower()
    fault = HANDLER_FAULTS.get(named, named or "hard")
    existing = _last_fault(facts)
    if existing is not None and existing.details.get("vendor_handler") and match[2]:
        existing.details["fault_type"] = fault
        existing.summary = f"the CPU took a {fault} fault"
        return
    summary = f"the CPU took a {fault} fault"
    facts.problem(Kind.HARD_FAULT, summary, line, registers={}, fault_type=fault,
                  vendor_handler=True)


@rule(r"^\s+(?:cfsr|bfar|mmfar)=|r0/a1:|Faulting instruction address")
def _fault_registers(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    fault = _last_fault(facts)
    if fault is None:
        facts.error_line(line.text)
        return
    found = registers(line.text)
    pc = ZEPHYR_PC.search(line.text)
    if pc:
        found = {"pc": int(pc[1], 16)}
        fault.summary = f"{fault.summary} at pc={pc[1]}"
    fault.details.setdefault("registers", {}).update(found)


@rule(
    r"In function (\w*)\(\), assert failed(?: \((.*?)\))?: ?(.*)$|ASSERTION FAIL|"
    r"assertion \"(.*)\" failed"
)
def _assertion(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    details = {"function": match[1]} if match[1] else {}
    condition = match[2] or match[3] or match[4]
    if condition:
        details["condition"] = condition
    facts.problem(
        Kind.ASSERTION, f"a runtime check failed: {condition or line.message}", line, **details
    )


@rule(r"Missing operator: \[(-?\d+)\] (\S+)|kernel '([^']+)' not found")
def _missing_kernel(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    kernel = match[2] or match[3]
    existing = [p for p in facts.problems if p.kind is Kind.MISSING_KERNEL]
    if existing:
        kernels = existing[0].details.setdefault("kernels", [existing[0].details["kernel"]])
        if kernel not in kernels:
            kernels.append(kernel)
        return
    facts.problem(
        Kind.MISSING_KERNEL, f"no kernel is linked for operator {kernel}", line, kernel=kernel
    )


@rule(r"There are (\d+) instructions don't have corresponding operator registered")
def _missing_count(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    for problem in facts.problems:
        if problem.kind is Kind.MISSING_KERNEL:
            problem.details["instructions_without_kernel"] = int(match[1])


@rule(
    r"Ethos-U invocation failed error \((-?\d+)\)|ethosu_reserve_driver_ex failed|"
    r"Malformed vela_bin_stream|vela_read: error|Ethos-U Linux driver invocation failed|"
    r"(?i:NPU config mismatch|NPU arch mismatch|command stream)|"
    r"NPU error\(s\) occured during inference|NPU inference timed out"
)
def _npu_error(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    generic = match[0].lower() in ("npu config mismatch", "npu arch mismatch", "command stream")
    if generic and not (line.is_problem_level or line.text.startswith("E:")):
        return
    details = {"driver_status": int(match[1])} if match[1] else {}
    facts.problem(
        Kind.NPU_ERROR, f"the Ethos-U NPU rejected the work: {line.message}", line, **details
    )


@rule(r"NPU status=(0x[0-9a-fA-F]+), qread=(\d+), cmd_end_reached=(\d+)")
def _npu_status(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    """The driver's dump after an NPU error (ethosu_device_*.c): kept with that error."""
    found = {"npu_status": int(match[1], 16), "qread": int(match[2]),
             "cmd_end_reached": int(match[3])}
    errors = [p for p in facts.problems if p.kind is Kind.NPU_ERROR]
    if errors:
        errors[-1].details.update(found)
    else:
        facts.problem(Kind.NPU_ERROR, f"the Ethos-U NPU stopped with status {match[1]}", line,
                      **found)


def vendor_registers(line: LogLine, facts: LogFacts) -> bool:
    """Register lines after a vendor fault header; the first value of each register wins."""
    fault = _last_fault(facts)
    if fault is None or not fault.details.get("vendor_handler"):
        return False
    if not VENDOR_REGISTER_LINE.match(line.text):
        return False
    found = fault.details.setdefault("registers", {})
    for name, value in VENDOR_REGISTER.findall(line.text):
        found.setdefault(name.lower(), int(value, 16))
    active = found.get("ipsr", found.get("icsr", 0)) & 0x1FF  # IPSR / ICSR.VECTACTIVE
    number = EXCEPTION_NUMBERS.get(active)
    if number and fault.details.get("fault_type") == "hard" and number != "hard":
        fault.details["fault_type"] = number
        fault.summary = fault.summary.replace("a hard fault", f"a {number} fault")
    if "pc" in found and " at pc=" not in fault.summary:
        fault.summary += f" at pc=0x{found['pc']:08x}"
    return True


class FaultLines(RuleConsumer):
    """Failures of the firmware or runtime; keeps every ET Error/Fatal and [critical] line."""

    rules = (
        _hard_fault,
        _zephyr_fault,
        _fault_registers,
        _vendor_fault,
        _assertion,
        _missing_kernel,
        _missing_count,
        _npu_error,
        _npu_status,
    )

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Keep error-level lines, then apply the fault rules."""
        if line.is_problem_level or ERROR_LINE.match(line.text):
            facts.error_line(line.text)
            if FIRMWARE_ERROR_LINE.match(line.text):
                facts.mark("firmware", line.number)
            return super().feed(line, facts) or not line.is_et
        return super().feed(line, facts) or vendor_registers(line, facts)
