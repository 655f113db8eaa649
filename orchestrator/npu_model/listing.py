"""The command stream as the NPU model decodes it, and as Vela lists it (the decoder oracle).

Vela's --verbose-register-command-stream prints every command with its offset, payload,
param and code; the model's npu_model_list prints offset, name, param and payload. Both
become (offset, name, param, payload-or-None) tuples that must be equal.
"""

from __future__ import annotations

import ctypes
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.hostlib import load_library

Command = tuple[int, str, int, int | None]
VELA_LINE = re.compile(
    r"^0x([0-9a-f]+):\s+(?:([0-9a-f]{8}) )?\s*([0-9a-f]{4}) ([0-9a-f]{4}) - (\w+)")
LISTING_BYTES_PER_COMMAND = 64


def model_listing(cmd_data: bytes) -> list[Command]:
    """The commands of a COP1 payload as the C core decodes them."""
    library = load_library()
    function = library.npu_model_list
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    size = len(cmd_data) * LISTING_BYTES_PER_COMMAND // 4 + 1
    out = ctypes.create_string_buffer(size)
    if function(cmd_data, len(cmd_data), out, size) < 0:
        raise OrchestratorError("the NPU model cannot list this command stream (malformed)",
                                "recompile the model: invoke compile --model <model>")
    commands: list[Command] = []
    for line in out.value.decode().splitlines():
        offset, name, param, data = line.split()
        commands.append((int(offset, 16), name, int(param, 16),
                         None if data == "-" else int(data, 16)))
    return commands


def parse_vela_listing(text: str) -> list[Command]:
    """(offset, name, param, payload) per command of Vela's verbose register listing."""
    commands: list[Command] = []
    for line in text.splitlines():
        match = VELA_LINE.match(line.strip())
        if match:
            offset, payload, param, _code, name = match.groups()
            commands.append((int(offset, 16), name, int(param, 16),
                             None if payload is None else int(payload, 16)))
    return commands


def vela_listing(tosa: Path, vela_args: list[str]) -> list[Command]:
    """Run Vela on a partition's TOSA flatbuffer with the verbose register listing."""
    return parse_vela_listing(vela_listing_text(tosa, vela_args))


def vela_listing_text(tosa: Path, vela_args: list[str]) -> str:
    """Vela's verbose register listing of a TOSA flatbuffer, as printed (fields by name)."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "ethosu.vela", *vela_args,
                   "--verbose-register-command-stream", f"--output-dir={out}", str(tosa)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OrchestratorError(f"Vela failed to list the command stream: "
                                f"{(done.stdout + done.stderr).strip().splitlines()[-1:]}",
                                f"run it by hand: {' '.join(command)}")
    return done.stdout


def vela_args(manifest: dict[str, object]) -> list[str]:
    """The Vela flags a product was compiled with (as ExecuTorch's compile spec passes them)."""
    from orchestrator.aot.lower.lowering import DEFAULT_VELA_CONFIG

    options = manifest["options"]
    assert isinstance(options, dict)
    return [f"--accelerator-config={options['target']}",
            f"--config={options.get('vela_config') or DEFAULT_VELA_CONFIG}",
            "--output-format=raw", f"--system-config={options['system_config']}",
            f"--memory-mode={options['memory_mode']}", *options.get("vela_flags", [])]
