"""The parser never raises: random bytes, random text, and every transcript cut anywhere."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.parse.result import result_from_facts
from orchestrator.parse.upstream import UpstreamLogParser, parse_text
from orchestrator.results import validate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TRANSCRIPTS = sorted([*FIXTURES.glob("transcripts/*.log"), *FIXTURES.glob("protocol/*.log")])
TEXTS = [path.read_text() for path in TRANSCRIPTS]
FRAGMENTS = [line for text in TEXTS for line in text.splitlines()] + [
    "#[RUN THIS]",
    "#[END]",
    'echo "QUJD" | base64 -d >etdump.bin',
    "Hard fault. irq=-13, pc=0x1",
    "            cfsr=0x1 bfar=0x2",
    "Original Operator    NNG Operator",
    "-------------------- --------------------",
    "Output[0][0]: (float) nan",
    "E: ***** HARD FAULT *****",
    # issue 25: a launcher complaint (quoted in the issue) and output formats known from source
    "sh: xterm: command not found",
    "CM33: 2 output(s):",
    "  Output[1]: not a tensor",
    "    ... (8 more elements)",
    "I [executorch:arm_executor_runner.cpp:446 main()]   output[0]: non-tensor value",
    "I [executorch:arm_executor_runner.cpp:481 main()]     (Half tensor dump skipped)",
]


def parse_and_validate(text: str) -> None:
    """Parse, classify, serialise and validate; any exception fails the property."""
    result = result_from_facts(parse_text(text))
    validate(result.to_dict())


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.binary(max_size=2000))
def test_random_bytes(data):
    parser = UpstreamLogParser()
    parser.feed_chunk(data)
    validate(result_from_facts(parser.finish()).to_dict())


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=1000))
def test_random_text(text):
    parse_and_validate(text)


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40), st.data())
def test_shuffled_and_truncated_real_lines(lines, data):
    cut = [line[: data.draw(st.integers(0, len(line)))] for line in lines]
    parse_and_validate("\n".join(cut))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.sampled_from(TEXTS), st.data())
def test_transcripts_cut_anywhere(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    parse_and_validate(text[start:end])
