"""The pinned Vela sdist (regor's U85 register header) as a build step is handed it: a tarball
that fails the pinned sha256 is refused, one that matches gives the header the U85 tables are
generated from, and gen_regs without a path fails instead of downloading. (Fetching it through
setup, from a real HTTP server: tests/setup/test_setup_inputs.py.)"""

from __future__ import annotations

import copy
import hashlib
import io
import tarfile
from pathlib import Path
from typing import Any

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.pins import load_pins
from orchestrator.npu_model import gen_regs, regor_source
from orchestrator.setup import build_input

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


def pins_with_digest(digest: str) -> dict[str, Any]:
    pins = copy.deepcopy(load_pins())
    pins["inputs"][regor_source.PIN_NAME]["sha256"] = digest
    return pins


@pytest.fixture
def fake_sdist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tarball with the header at the pinned top directory, pinned by its own digest."""
    pin = regor_source.sdist_pin()
    body = sdist_bytes(pin.top_dir, HEADER)
    pins = pins_with_digest(hashlib.sha256(body).hexdigest())
    monkeypatch.setattr(regor_source, "load_pins", lambda: pins)
    monkeypatch.setattr(build_input, "load_pins", lambda: pins)
    archive = tmp_path / pin.filename
    archive.write_bytes(body)
    return archive


def test_a_tarball_handed_over_that_fails_the_pinned_digest_is_refused(tmp_path: Path) -> None:
    pin = regor_source.sdist_pin()
    archive = tmp_path / pin.filename
    archive.write_bytes(sdist_bytes(pin.top_dir, HEADER))
    with pytest.raises(OrchestratorError, match="does not match the pinned digest"):
        regor_source.regor_text(regor_source.U85_INTERFACE, archive)


def test_the_header_of_the_sdist_handed_over_generates_u85_tables(fake_sdist: Path) -> None:
    text = regor_source.regor_text(regor_source.U85_INTERFACE, fake_sdist)
    assert text == HEADER
    tables = gen_regs.render_u85(text)
    assert "#define EM85_CMD0_NPU_SET_OFM_PRECISION 0x114u" in tables
    assert "#define EM85_ROUND_MODE_OFM_NATURAL 0x1u" in tables
    # scale:31 starts at bit 32: the data word of the cmd1
    assert ("#define EM85_F_NPU_SET_OFM_SCALE_SCALE(w) ((uint32_t)(((uint64_t)(w) >> 32) "
            "& 0x7fffffffu))") in tables
    assert "EM85_F_NPU_SET_OFM_SCALE_RESERVED" not in tables


def test_gen_regs_writes_both_tables_from_the_path_and_needs_one(fake_sdist: Path,
                                                                 tmp_path: Path) -> None:
    u55, u85 = tmp_path / "regs.h", tmp_path / "regs85.h"
    assert gen_regs.main(["gen_regs", str(u55), str(u85)]) == 2     # no path: no download
    assert not u85.exists()
    assert gen_regs.main(["gen_regs", str(u55), str(u85), str(fake_sdist)]) == 0
    assert "EM85_CMD0_NPU_SET_OFM_PRECISION" in u85.read_text()


def test_the_sdist_pin_is_the_pinned_vela_version() -> None:
    pin = regor_source.sdist_pin()
    version = load_pins()["python"]["ethos-u-vela"]
    assert pin.top_dir == f"ethos_u_vela-{version}"
    assert pin.filename == f"{pin.top_dir}.tar.gz"
    assert pin.url.startswith("https://files.pythonhosted.org/")
