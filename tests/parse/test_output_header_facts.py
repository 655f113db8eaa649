"""Issue 25, second defect class: every fact an output header states (dtype, element count,
byte size, "not a tensor", how many outputs there are) reaches the RunResult, whether or not
values follow, in every output format the parser knows.

Real logs are fixtures (source rows in INDEX.md). Formats no saved log shows are written here
from the format strings of the program that prints them, with the file and commit named.
"""

from __future__ import annotations

import struct

import pytest

from orchestrator.parse.lines import split_line
from orchestrator.results.summary_table import summary_rows

ZEPHYR_PREFIX = "I [executorch:arm_executor_runner.cpp:451 main()] "


def test_vendor_header_without_values_keeps_dtype_count_and_size(parsed):
    result = parsed("lp-imx93-executorch-2.log")  # `Output[0]: dtype=6, numel=1000, nbytes=4000`
    [tensor] = result.outputs
    assert (tensor.dtype, tensor.numel, tensor.nbytes) == ("float32", 1000, 4000)
    assert tensor.values == [] and tensor.elided
    assert tensor.precision is None and not tensor.exact  # no value printed: no claim
    assert dict(summary_rows(result))["outputs"] == (
        "#0 float32 [1,000 elements, 4,000 B], no values printed"
    )
    document = result.to_dict()["outputs"][0]
    assert (document["dtype"], document["numel"], document["nbytes"]) == ("float32", 1000, 4000)


def test_vendor_header_with_some_values_keeps_them_too(parsed):
    [tensor] = parsed("lp-imx93-executorch-1.log").outputs
    assert (tensor.numel, tensor.nbytes, len(tensor.values)) == (1000, 4000, 3)
    assert tensor.elided and tensor.exact  # raw float bits: exact, 997 left out
    assert tensor.values[1] == struct.unpack("<f", struct.pack("<i", 1058744595))[0]


def test_complete_vendor_dump_is_not_elided(parsed):
    [tensor] = parsed("imx93-cm33-runner-readme-1.log").outputs
    assert (tensor.numel, tensor.nbytes, tensor.values, tensor.elided) == (1, 4, [2.0], False)


@pytest.mark.parametrize(
    ("name", "header", "dtype", "numel", "nbytes"),
    [
        ("imx93-cm33-runner-readme-1.log", "Output[0]: dtype=6", "float32", 1, 4),
        ("zephyr-docs-hello-executorch-1.log", "output[0]: tensor", "float32", 5, None),
        ("cmsis-zephyr-executorch-readme-1.log", "output[0]: tensor", "float32", 1, None),
    ],
)
def test_every_header_format_keeps_its_facts_when_the_values_are_cut_away(
    name, header, dtype, numel, nbytes, lines_of, result_of
):
    lines = lines_of(name)
    at = next(i for i, line in enumerate(lines) if header in line)
    header_only = [line for i, line in enumerate(lines) if i <= at or not _is_element(line)]
    [tensor] = result_of(header_only).outputs
    assert (tensor.dtype, tensor.numel, tensor.nbytes) == (dtype, numel, nbytes)
    assert tensor.values == [] and tensor.elided


def _is_element(line: str) -> bool:
    """A `[j] = value` / `[j]=value` dump element line (with or without an ET_LOG prefix)."""
    return split_line(0, line).message.strip().startswith("[")


def test_announced_outputs_with_no_values_are_listed(lines_of, result_of):
    # et-docs-v0.3.0-1 cut right after `1 outputs:`: the runner said there is one output.
    lines = lines_of("et-docs-v0.3.0-1.log")
    cut = lines[: next(i for i, line in enumerate(lines) if line.endswith("1 outputs:")) + 1]
    result = result_of(cut)
    [tensor] = result.outputs
    assert (tensor.index, tensor.values, tensor.elided, tensor.dtype) == (0, [], True, None)
    assert result.status.value != "pass"
    assert dict(summary_rows(result))["outputs"] == "#0 ?, no values printed"


# fidel-makatia/Executorch_runner_cm33 source/arm_executor_runner.cpp @ 24f20910, lines
# 1090-1125 (the i.MX93 vendor runner): the output count, the header, at most 32 values, the
# rest counted, and a non-tensor output.
VENDOR_PORT_LINES = [
    "1 inferences finished",
    "CM33: 2 output(s):",
    "  Output[0]: dtype=3, numel=40, nbytes=160",
    *[f"    [{j}]={j}" for j in range(32)],
    "    ... (8 more elements)",
    "  Output[1]: not a tensor",
    "Program complete, exiting.",
]


def test_vendor_port_count_more_elements_and_not_a_tensor(result_of):
    result = result_of(VENDOR_PORT_LINES)
    first, second = result.outputs
    assert (first.dtype, first.numel, first.nbytes, len(first.values)) == ("int32", 40, 160, 32)
    assert first.elided and first.values[:3] == [0, 1, 2]
    assert second.not_tensor and second.index == 1
    assert result.log.unknown_count == 0


# pytorch/executorch zephyr/samples/hello-executorch/src/arm_executor_runner.cpp @ v1.4.1,
# lines 444-482: a non-tensor output and a dtype the sample does not dump.
ZEPHYR_SAMPLE_LINES = [
    f"{ZEPHYR_PREFIX}Model outputs:",
    f"{ZEPHYR_PREFIX}  output[0]: non-tensor value",
    f"{ZEPHYR_PREFIX}  output[1]: tensor scalar_type=Half numel=4",
    f"{ZEPHYR_PREFIX}    (Half tensor dump skipped)",
    f"{ZEPHYR_PREFIX}SUCCESS: Program complete, exiting.",
]


def test_zephyr_non_tensor_and_skipped_dump_keep_their_facts(result_of):
    result = result_of(ZEPHYR_SAMPLE_LINES)
    first, second = result.outputs
    assert first.not_tensor and first.index == 0
    assert (second.dtype, second.numel, second.values, second.elided) == ("float16", 4, [], True)
    assert result.log.unknown_count == 0
