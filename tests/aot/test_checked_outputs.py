"""A passing exact output check is kept by content (orchestrator.runner.checked_outputs): the
same output bytes are read back without computing (a warm run imports no numpy for them); a
changed byte or an edited reference file is checked again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from aot_cases import needs_executorch

from orchestrator.comparison.thresholds import Thresholds
from orchestrator.protocol import ParsedStream
from orchestrator.protocol.tensors import Tensor
from orchestrator.results import Classification, Kind, RunResult, Status
from orchestrator.runner import output_check

pytestmark = pytest.mark.slow


def _passing() -> RunResult:
    return RunResult(status=Status.PASS, reason="ok", classification=Classification(
        kind=Kind.SUCCESS, summary="ok", next_step="-"))


def _stream(product, flip: int | None = None) -> ParsedStream:
    """The firmware's report of outputs equal to the exact reference (one byte flipped)."""
    tensors = {}
    for index, reference in enumerate(product.reference):
        data = bytearray(reference.path.read_bytes())
        if flip is not None and index == 0:
            data[flip] ^= 1
        tensors[index] = Tensor(index, reference.dtype, tuple(reference.shape), bytes(data))
    return ParsedStream(tensors=tensors)


def _check(product, stream: ParsedStream, run_dir: Path) -> RunResult:
    return output_check.check_outputs(_passing(), stream, product, Thresholds(), run_dir,
                                      "invoke run")


def test_a_passing_exact_check_is_read_back_and_a_change_checked_again(
        compiled, tmp_path, monkeypatch) -> None:
    needs_executorch()
    monkeypatch.setenv("ETHOSU_ORCH_CACHE_DIR", str(tmp_path / "cache"))
    product = compiled[("add", "ethos-u55-128")]
    assert product.reference_kind == "exact"
    first = _check(product, _stream(product), tmp_path / "first")
    assert first.status is Status.PASS and first.comparison.exact
    computed = output_check._check
    monkeypatch.setattr(output_check, "_check", _refused)
    again = _check(product, _stream(product), tmp_path / "again")
    assert again.comparison == first.comparison and again.accuracy == first.accuracy
    assert (tmp_path / "again" / "exact.json").read_text() == \
        (tmp_path / "first" / "exact.json").read_text()
    with pytest.raises(AssertionError, match="computed"):
        _check(product, _stream(product, flip=0), tmp_path / "flipped")
    reference = product.reference[0].path
    stat = reference.stat()
    os.utime(reference, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(AssertionError, match="computed"):
        _check(product, _stream(product), tmp_path / "edited")
    monkeypatch.setattr(output_check, "_check", computed)
    flipped = _check(product, _stream(product, flip=0), tmp_path / "flipped")
    assert flipped.status is Status.FAIL and not flipped.comparison.exact


def _refused(*_args: object, **_kwargs: object) -> RunResult:
    raise AssertionError("the check was computed, not read back")
