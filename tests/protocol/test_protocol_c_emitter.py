"""The firmware's C emitter (firmware/protocol/protocol.c), compiled for the host, against
the Python parser: same CRC, escaping, base64 chunking and truncation marker."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from orchestrator.foundation.paths import repo_root
from orchestrator.protocol import parse_text

PROTOCOL_DIR = repo_root() / "firmware" / "protocol"
HOST_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "eor/protocol.h"

static void out(const char *text, size_t length) { fwrite(text, 1, length, stdout); }

int main(void) {
  static const unsigned char build[4] = {0xde, 0xad, 0xbe, 0xef};
  unsigned char bytes[300];
  char long_value[400];
  for (int i = 0; i < 300; ++i) bytes[i] = (unsigned char)(i * 37);
  memset(long_value, 'x', sizeof(long_value) - 1);
  long_value[sizeof(long_value) - 1] = 0;
  const int shape[2] = {3, 100};
  eor_protocol_set_writer(out);
  printf("noise before\n");
  eor_protocol_begin("host", "linux", build, 4);
  eor_protocol_metric("odd name=*%", 18446744073709551615ull, "bytes", "a source");
  eor_protocol_check("neg", 0, -9223372036854775807ll - 1, 5);
  eor_protocol_tensor(7, "uint8", (const int32_t *)shape, 2, bytes, sizeof(bytes));
  eor_protocol_blob("etdump", bytes + 1, 250);
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_str(&record, "text", long_value);
  eor_record_emit(&record);
  eor_protocol_end("pass", 0);
  return 0;
}
"""


@pytest.fixture(scope="module")
def emitted(tmp_path_factory: pytest.TempPathFactory) -> str:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no host C compiler to build the emitter with")
    work = tmp_path_factory.mktemp("emitter")
    (work / "main.c").write_text(HOST_MAIN)
    program = work / "emit"
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", f"-I{PROTOCOL_DIR / 'include'}",
                    str(work / "main.c"), str(PROTOCOL_DIR / "protocol.c"), "-o", str(program)],
                   check=True, capture_output=True)
    return subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout


def test_c_and_python_agree_on_every_record(emitted):
    result = parse_text(emitted)
    assert result.complete, result.problems
    assert result.begin.build_id == "deadbeef" and result.begin.app == "host"
    metric = result.metrics[0]
    assert metric.name == "odd name=*%" and metric.value == 2**64 - 1
    assert metric.source == "a source"
    assert result.checks[0].got == -(2**63) and result.checks[0].ok is False
    tensor = result.tensors[7]
    assert tensor.shape == (3, 100) and tensor.data == bytes((i * 37) % 256 for i in range(300))
    assert result.blobs["etdump"] == bytes((i * 37) % 256 for i in range(1, 251))


def test_a_damaged_blob_chunk_is_a_problem_not_a_payload(emitted):
    lines = emitted.splitlines()
    index = next(i for i, line in enumerate(lines) if " bdata " in line)
    del lines[index]
    result = parse_text("\n".join(lines) + "\n")
    assert "etdump" not in result.blobs
    assert any("blob etdump: 1 of 3 data chunks missing" in p for p in result.problems)


def test_overlong_record_is_truncated_and_marked(emitted):
    note = parse_text(emitted).other[0]
    assert note.type == "note" and note.fields["truncated"] == "1"
    assert set(note.fields["text"]) == {"x"} and len(note.fields["text"]) < 399
    longest = max(len(line) for line in emitted.splitlines())
    assert longest <= 7 + 320 + 11


def test_emitter_lines_are_short_enough_for_any_uart(emitted):
    tdata = [line for line in emitted.splitlines() if " tdata " in line]
    assert len(tdata) == 3 and all(len(line) <= 256 for line in tdata)
