"""The pinned Vela sdist (regor's U85 register header) is fetched by the project's download code
from a real HTTP server on 127.0.0.1: a tarball that fails the pinned sha256 is refused and not
kept; one that matches is cached and read without a second request. The U85 tables are
generated from the header text it returns."""

from __future__ import annotations

import copy
import hashlib
import io
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orchestrator.errors import OrchestratorError
from orchestrator.pins import load_pins
from orchestrator.setup.options import MIRROR_ENV
from orchestrator.vnpu import gen_regs, regor_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "setup"))
from setup_fakes import FileServer, Route  # noqa: E402

# The shape of regor's header (ethos_u85_interface.hpp): an enum class and a command struct.
HEADER = """
enum class cmd0_opcode : uint16_t
{
    NPU_OP_STOP = 0,
    NPU_SET_OFM_PRECISION = 276,
};

enum class cmd1_opcode : uint16_t
{
    NPU_SET_OFM_SCALE = 36,
};

enum class round_mode_ofm : uint8_t
{
    DOUBLE_SYMMETRIC = 0,
    NATURAL = 1,
};

struct npu_set_ofm_scale_t
{
#ifdef __cplusplus
private:
#endif
    uint32_t opcode:10;
    uint32_t reserved0:4;
    uint32_t control:2;
    uint32_t shift:6;
    uint32_t dbl_rnd:5;
    uint32_t reserved1:2;
    uint32_t round_mode:3;
    uint32_t scale:31;
    uint32_t reserved2:1;
#ifdef __cplusplus
public:
#endif
};
"""


def sdist_bytes(top_dir: str, header: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = header.encode()
        info = tarfile.TarInfo(f"{top_dir}/{regor_source.U85_INTERFACE}")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileServer]:
    served = FileServer().start()
    monkeypatch.setenv(MIRROR_ENV, served.base)
    yield served
    served.stop()


def pins_with_digest(digest: str) -> dict[str, Any]:
    pins = copy.deepcopy(load_pins())
    pins["inputs"][regor_source.PIN_NAME]["sha256"] = digest
    return pins


def test_a_tarball_failing_the_pinned_digest_is_refused_and_not_kept(server: FileServer,
                                                                     tmp_path: Path) -> None:
    pin = regor_source.sdist_pin()
    server.routes[pin.filename] = Route(sdist_bytes(pin.top_dir, HEADER))
    with pytest.raises(OrchestratorError, match="failed its digest check"):
        regor_source.regor_text(regor_source.U85_INTERFACE, tmp_path)
    assert server.hits.count(pin.filename) == 1
    assert list(tmp_path.iterdir()) == [tmp_path / f".{pin.filename}.lock"]


def test_a_matching_tarball_is_cached_and_its_header_generates_u85_tables(
        server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pin = regor_source.sdist_pin()
    body = sdist_bytes(pin.top_dir, HEADER)
    monkeypatch.setattr(regor_source, "load_pins",
                        lambda: pins_with_digest(hashlib.sha256(body).hexdigest()))
    server.routes[pin.filename] = Route(body)
    first = regor_source.regor_text(regor_source.U85_INTERFACE, tmp_path)
    again = regor_source.regor_text(regor_source.U85_INTERFACE, tmp_path)
    assert first == again == HEADER
    assert server.hits.count(pin.filename) == 1     # the second read came from the cache
    tables = gen_regs.render_u85(first)
    assert "#define EM85_CMD0_NPU_SET_OFM_PRECISION 0x114u" in tables
    assert "#define EM85_ROUND_MODE_OFM_NATURAL 0x1u" in tables
    # scale:31 starts at bit 32: the data word of the cmd1
    assert ("#define EM85_F_NPU_SET_OFM_SCALE_SCALE(w) ((uint32_t)(((uint64_t)(w) >> 32) "
            "& 0x7fffffffu))") in tables
    assert "EM85_F_NPU_SET_OFM_SCALE_RESERVED" not in tables


def test_the_sdist_pin_is_the_pinned_vela_version() -> None:
    pin = regor_source.sdist_pin()
    version = load_pins()["python"]["ethos-u-vela"]
    assert pin.top_dir == f"ethos_u_vela-{version}"
    assert pin.filename == f"{pin.top_dir}.tar.gz"
    assert pin.url.startswith("https://files.pythonhosted.org/")
