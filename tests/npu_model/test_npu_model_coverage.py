"""The NPU model's coverage table (orchestrator/data/npu_coverage.toml) against regor's sources
in the pinned Vela sdist (a setup input, fetched from PyPI on first need as the host library's
build fetches it): every command, field and value regor's register command stream generators
can write is listed with what the model does; the committed table is what the generator makes
of the sources; a stop of the model is placed in the table."""

from __future__ import annotations

from typing import Any

import pytest
from npu_model_stream import U55_128, Elementwise

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import load_toml
from orchestrator.npu_model import coverage, coverage_gen
from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import run_program
from orchestrator.npu_model.regor_fields import commands
from orchestrator.npu_model.regor_source import vela_sdist

# The shape of regor's interface header and of a generator that writes one field.
HEADER = """
enum class cmd0_opcode : uint16_t
{
    NPU_SET_ACTIVATION = 293,
};

enum class cmd1_opcode : uint16_t
{
    NPU_SET_OFM_SCALE = 36,
};

enum class activation_clip_range : uint8_t
{
    OFM_PRECISION = 0,
    FORCE_UINT8 = 2,
    FORCE_INT8 = 3,
    FORCE_INT16 = 5,
};

enum class activation_function : uint8_t
{
    RELU = 0,
    TABLE_0 = 16,
    TABLE_1 = 17,
};

struct npu_set_activation_t
{
#ifdef __cplusplus
private:
#endif
    uint32_t opcode:10;
    uint32_t reserved0:4;
    uint32_t control:2;
    uint32_t activation_function:5;
    uint32_t reserved1:7;
    uint32_t activation_clip_range:3;
    uint32_t reserved2:1;
#ifdef __cplusplus
public:
    npu_set_activation_t(NPU_NAMESPACE::activation_function _activation_function, \
NPU_NAMESPACE::activation_clip_range _activation_clip_range) :
        opcode(static_cast<uint16_t>(NPU_NAMESPACE::cmd0_opcode::NPU_SET_ACTIVATION)),
    {}
#endif
};
"""
GENERATOR = """
    auto act = activation_function::RELU;
    auto clipRange = activation_clip_range::OFM_PRECISION;
    act = activation_function(int(activation_function::TABLE_0) + tableIndex);
    clipRange = activation_clip_range::%s;
    Emit(isa::npu_set_activation_t(act, clipRange));
"""
CURATED: dict[str, Any] = {"default": "implemented", "status": {
    "NPU_SET_ACTIVATION.activation_function": "implemented",
    "NPU_SET_ACTIVATION.activation_clip_range.OFM_PRECISION": "implemented",
    "NPU_SET_ACTIVATION.activation_clip_range.FORCE_INT8": "implemented"}}


def _rows(written: str) -> list[coverage_gen.Row]:
    found = commands(HEADER, [GENERATOR % written])
    return [row for command in found for row in coverage_gen._rows_of("u55u65", command, CURATED)]


def test_the_sources_give_every_member_and_what_the_generators_write() -> None:
    rows = {(r.field, r.value): r for r in _rows("FORCE_INT8")}
    clip = {v: rows["activation_clip_range", v] for v in ("OFM_PRECISION", "FORCE_UINT8",
                                                          "FORCE_INT8", "FORCE_INT16")}
    assert [v for v, r in clip.items() if r.regor] == ["OFM_PRECISION", "FORCE_INT8"]
    assert clip["FORCE_INT16"].number == 5 and clip["FORCE_INT16"].model == "unknown"
    # TABLE_0 + tableIndex: the numbered siblings are written too
    assert rows["activation_function", "TABLE_1"].regor


def test_a_value_regor_starts_writing_that_the_table_lacks_fails_the_check() -> None:
    table = {"u55u65": [dict(command=r.command, field=r.field, value=r.value, regor=r.regor,
                             model=r.model) for r in _rows("FORCE_INT8")]}
    assert coverage_gen.unlisted(_rows("FORCE_INT8"), table) == []
    missing = coverage_gen.unlisted(_rows("FORCE_INT16"), table)
    assert [(r.command, r.field, r.value) for r in missing] == [
        ("NPU_SET_ACTIVATION", "activation_clip_range", "FORCE_INT16")]


@pytest.fixture(scope="module")
def sdist_rows() -> list[coverage_gen.Row]:
    return coverage_gen.generate(coverage_gen.sdist_reader(vela_sdist()),
                                 load_toml(coverage_gen.STATUS))


def test_the_table_lists_every_value_regor_can_write(sdist_rows: list[coverage_gen.Row]) -> None:
    missing = coverage_gen.unlisted(sdist_rows, load_toml(coverage_gen.TABLE))
    assert not missing, ("regor can write values the coverage table does not list; curate "
                         "orchestrator/data/npu_coverage_status.toml, then run python -m "
                         "orchestrator.npu_model.coverage_gen: "
                         + "; ".join(f"{r.family} {r.key}" for r in missing))


def test_the_committed_table_is_the_generated_one() -> None:
    assert coverage_gen.table_from_sources() == coverage_gen.TABLE.read_text(), \
        "run python -m orchestrator.npu_model.coverage_gen"


def test_the_clip_ranges_are_in_the_table() -> None:
    rows = {(e.family, e.value): e for e in coverage.entries()
            if e.command == "NPU_SET_ACTIVATION" and e.field == "activation_clip_range"}
    assert {v for f, v in rows if f == "u55u65"} == {"OFM_PRECISION", "FORCE_UINT8",
                                                     "FORCE_INT8", "FORCE_INT16"}
    assert {v for f, v in rows if f == "u85"} == {"B16", "NONE"}
    assert all(e.model == "implemented" and e.tests for e in rows.values())


# Refused values an ExecuTorch 1.4.1 graph can reach (npu_coverage_status.toml [family.open]):
# the model's open gaps, named here so that a new one is a decision, not a drift. None is left
# (the last, NPU_OP_BRANCH, is implemented: em85_branch.c).
OPEN_GAPS: set[str] = set()


def test_every_refused_value_regor_can_write_says_why_executorch_never_reaches_it() -> None:
    """The issue's must-have, value by value: a value regor can write is implemented, or the
    table says (`unreached`, from npu_coverage_status.toml) which regor code path writes it
    and why ExecuTorch 1.4.1's TOSA graphs never take that path, naming the regor source; or
    it is one of the open gaps (`open`). A reason on a value the model does not refuse is a
    curation slip."""
    refused = [e for e in coverage.entries() if e.model == "refused" and e.regor]
    assert refused
    unexplained = [f"{e.family} {e.name()}" for e in refused if not (e.unreached or e.open)]
    assert unexplained == [], unexplained
    assert {f"{e.family} {e.name()}" for e in refused if e.open} == OPEN_GAPS
    assert all(".cpp" in (e.unreached or e.open) for e in refused)
    assert not [e for e in refused if e.unreached and e.open]
    stray = [f"{e.family} {e.name()}" for e in coverage.entries()
             if (e.unreached or e.open) and e.model != "refused"]
    assert stray == [], stray
    listed = coverage.listing("u85", "refused")
    assert any("NPU_OP_RESIZE resize_mode REPLICATE" in line and "unreached: ToResizeMode"
               in line for line in listed), listed
    assert not any("NPU_OP_BRANCH" in line for line in listed), listed


def test_a_stop_on_a_refused_value_is_a_known_gap() -> None:
    said = coverage.place_stop(55, "NPU_SET_ACTIVATION type 3 (native TANH/SIGMOID)")
    assert said.startswith("a known gap: the coverage table lists NPU_SET_ACTIVATION "
                           "activation_function TANH (3) as refused (regor writes it"), said
    said = coverage.place_stop(85, "NPU_OP_POOL pooling_mode value 7 on Ethos-U85-128")
    assert "NPU_OP_POOL pooling_mode ARGMAX_Y (7) as refused" in said


def test_a_stop_on_a_value_the_table_does_not_know_says_the_table_is_wrong() -> None:
    said = coverage.place_stop(55, "NPU_SET_ACTIVATION clip range value 1")
    assert "does not list NPU_SET_ACTIVATION activation_clip_range value 1: the table is " \
           "wrong" in said


def test_a_stop_naming_no_register_value_is_not_placed() -> None:
    assert coverage.place_stop(55, "OFM depth 9000 exceeds NPU_MODEL_MAX_DEPTH") == ""
    # a command's position in the stream is no value of a field (the sweep's attention stop)
    assert coverage.place_stop(55, "NPU_OP_ELEMENTWISE at word 282: its OFM registers "
                                   "address bytes beyond region 1 (5440 bytes)") == ""


def test_the_model_stop_carries_the_table_placement() -> None:
    """A hand-built U55 stream with a native TANH activation (refused) stops with the table's
    row for it in the one-line error."""
    tanh = next(e.number for e in coverage.entries() if e.family == "u55u65"
                and e.field == "activation_function" and e.value == "TANH")
    assert tanh is not None
    payload = Elementwise("MAX", 4, activation=tanh).stream().payload()
    program = VelaProgram(payload, b"", 128, (), ())
    with pytest.raises(OrchestratorError) as stop:
        run_program(program, U55_128, [])
    assert "(a known gap: the coverage table lists NPU_SET_ACTIVATION activation_function " \
           "TANH (3) as refused" in str(stop.value.cause), stop.value.cause

