"""arm_executor_runner lifecycle lines: model load, method load, run, completion, failures."""

from __future__ import annotations

import re
from functools import cache

from orchestrator.foundation.tomlfile import ANY, DATA_DIR, Layout, load_data
from orchestrator.parse.consumer import Handler, RuleConsumer, flag, marker, number, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import EOT, LogLine
from orchestrator.parse.status_codes import status_details
from orchestrator.results.model import Kind

RUN_MARKERS_PATH = DATA_DIR / "run_markers.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
RUN_MARKERS_LAYOUT: dict[str, Layout] = {"completion": {"pattern": ANY, "source": ANY}}



@cache
def completion_pattern() -> re.Pattern[str]:
    """Every completion line of data/run_markers.toml as one regular expression."""
    rows = load_data(RUN_MARKERS_PATH, RUN_MARKERS_LAYOUT)["completion"]
    return re.compile("|".join(f"(?:{row['pattern']})" for row in rows))


@rule(r"^(?:Model in|(?:Model )?PTE (?:@|at|in)) (0x[0-9a-fA-F]+|[0-9a-fA-F]+)")
def _model_address(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.runner.setdefault("model_address", match[1])
    facts.mark("runner", line.number)


@rule(r"^(?:Model PTE file loaded|PTE Model data loaded)\. Size: (\d+) bytes")
def _pte_size(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.memory_use().pte_size = int(match[1])
    facts.mark("model_loaded", line.number)


@rule(r"^Model (?:buffer )?loaded, has (\d+) methods")
def _methods(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.runner["methods"] = int(match[1])


@rule(r"^Running method:? (\S+)")
def _method_name(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.runner["method"] = match[1]


@rule(r"^Method (?:'(\S+)' )?loaded\b")
def _method_loaded(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    if match[1]:
        facts.runner.setdefault("method", match[1])
    facts.mark("method_loaded", line.number)


@rule(r"^(?:Setup Method allocator pool\. Size|Method allocator pool size): (\d+) bytes")
def _method_pool(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.pool("method_allocator").size = int(match[1])


@rule(r"^Setup planned FAST_MEMORY_REGION pool\. Size: (\d+) bytes")
def _fast_pool(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.pool("planned_fast_allocator").size = int(match[1])


@rule(r"^Setting up planned buffer (?:with mem_id=)?\d+, size (\d+)")
def _planned_buffer(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.memory_use().planned_buffers.append(int(match[1]))


STATUS = r"(?P<status>0x[0-9a-fA-F]+)"


def status_failure(pattern: str, kind: Kind, what: str) -> tuple[re.Pattern[str], Handler]:
    """A rule for '<what> failed with status 0x..' lines; `what` may use the named groups."""

    def handle(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
        groups = {key: value for key, value in match.groupdict().items() if value}
        code = number(groups.pop("status"))
        summary = f"{what.format(**groups)} failed with status {match['status']}"
        facts.problem(kind, summary, line, **groups, **status_details(code))

    return re.compile(pattern), handle


STATUS_FAILURES = (
    status_failure(
        rf"^Loading of method (?P<method>\S+) failed with status {STATUS}",
        Kind.METHOD_LOAD_FAILURE,
        "loading method {method}",
    ),
    status_failure(
        rf"^Program loading failed @ \S+: {STATUS}", Kind.METHOD_LOAD_FAILURE, "loading the program"
    ),
    status_failure(
        rf"^(?:Failed to prepare inputs|load_bundled_input failed with status) {STATUS}",
        Kind.EXECUTION_FAILURE,
        "preparing the inputs",
    ),
    status_failure(
        rf"^Execution of method (?P<method>\S+) failed with status {STATUS}",
        Kind.EXECUTION_FAILURE,
        "executing method {method}",
    ),
)


@rule(r"^Problem running model")
def _problem_running(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.problem(Kind.EXECUTION_FAILURE, "the runner reported a problem running the model", line)


@rule(r"^Model run: (\d+)")
def _model_run(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.runner["model_run"] = int(match[1])
    facts.mark("executed" if match[1] != "0" else "run_failed", line.number)


@rule(r"^(?:\w+: )?(\d+) output(?:s|\(s\)):")  # `1 outputs:`, a vendor port's `CM33: 1 output(s):`
def _output_count(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.expected_outputs = int(match[1])


@rule(r"^Starting running (\d+) inferences")
def _inferences(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.runner["inferences"] = int(match[1])
    facts.mark("started", line.number)


@rule(
    r"^(?:Model executed successfully|(?P<count>\d+) inferences finished"
    r"|Inference completed(?: in (?P<time>\d+(?:\.\d+)? ?\w+)"
    r"|, output size: (?P<elements>\d+) elements))"
)
def _executed(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    """The model ran; vendor ports and samples also say how often or how long (as printed)."""
    if match["count"]:
        facts.runner["inferences_finished"] = int(match["count"])
    if match["time"]:
        facts.runner["inference_time"] = match["time"]
    if match["elements"]:
        facts.runner["output_elements"] = int(match["elements"])
    facts.mark("executed", line.number)


@rule(r"^(?:Writing output to file|Reading (input tensor \d+|pte model) from file):? (\S+)")
def _file(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    if match[1] is None:
        outputs = sum(1 for key in facts.artifacts if key.startswith("output_file"))
        facts.artifacts[f"output_file_{outputs}"] = match[2]
        facts.mark("outputs", line.number)
        return
    name = "pte" if match[1] == "pte model" else match[1].replace(" tensor ", "_file_")
    facts.artifacts[name] = match[2]


@rule(r"^input size \((\d+)\) and tensor size \((\d+)\) mismatch")
def _input_mismatch(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    summary = f"an input file holds {match[1]} bytes but the tensor needs {match[2]}"
    facts.problem(
        Kind.EXECUTION_FAILURE, summary, line, input_bytes=int(match[1]), tensor_bytes=int(match[2])
    )


def _end_of_transmission(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.simulation.end_of_transmission = True
    facts.mark("eot", line.number)


class RunnerLifecycle(RuleConsumer):
    """Model and method loading, execution progress and completion of arm_executor_runner.

    Vendor ports print the same messages without the ExecuTorch log prefix, so the rules
    apply to plain lines too; a line they recognise is runner output.
    """

    rules = (
        _model_address,
        _pte_size,
        _methods,
        _method_name,
        _method_pool,
        _fast_pool,
        _planned_buffer,
        *STATUS_FAILURES,
        _problem_running,
        _model_run,
        _output_count,
        _inferences,
        _method_loaded,
        flag(r"^(?:Preparing inputs?|Input prepared|Input testset|Input tensor:)", "inputs"),
        flag(r"^(?:Loading method|Computed planned buffer size=|Beginning output verif)", "runner"),
        flag(r"^Starting the model execution", "started"),
        _executed,
        (completion_pattern(), marker("complete")),
        flag(r"^Model outputs:", "outputs"),
        flag(r"^ArmBackend::|^Tensor input(?:/output)? \d+ will be permuted", "npu"),
        _file,
        _input_mismatch,
        flag(r"^Setting up ETDump|^ETDump: Allocated", "etdump"),
        flag(r"^SERVER_INFERENCE_DONE", "executed"),
        (EOT, _end_of_transmission),
    )

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Apply the rules; a recognised line means the runner is printing."""
        found = super().feed(line, facts)
        if found:
            facts.mark("runner", line.number)
        return found


class RunnerParameters(RuleConsumer):
    """ExecuTorch log lines that are runner output but carry no fact: the semihosting
    runner's echo of its command line, and empty messages (the line a log shows where the
    runner's EOT was, or a multi-line message's first line; never EOT itself)."""

    et_only = True
    rules = (flag(r"^Running executor with parameter|^ {3}\S|^\s*$", "runner"),)


@rule(r"^Application exit code: (-?\d+)")
def _exit_code(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    code = int(match[1])
    facts.simulation.application_exit_code = code
    facts.mark("runner", line.number)
    if code == 0:
        facts.mark("app_exit", line.number)
        return
    summary = f"the application exited with code {code}"
    facts.problem(Kind.EXECUTION_FAILURE, summary, line, exit_code=code, status_name=f"exit {code}")


class RunnerPlainLines(RuleConsumer):
    """Runner lines printed without an ET_LOG prefix (old core_platform runner exit)."""

    rules = (
        _exit_code,
        flag(r"^EXITTHESIM$", "exit_the_sim"),
    )
