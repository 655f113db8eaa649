"""A replay stand-in installed where an FVP would be (tests only): models/<dir>/<binary>
plays a real recorded transcript (replay_fvp.py) and records argv, environment and cwd."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orchestrator.targets import load_catalogue

HERE = Path(__file__).resolve().parent
TRANSCRIPTS = HERE.parent / "fixtures" / "transcripts"
REPLAY = HERE / "replay_fvp.py"


def install_replay(root: Path, simulator_name: str, transcript: str, exit_code: int,
                   silences: dict[int, float] | None = None, **pace: float) -> Path:
    """An FVP-shaped install (models/<dir>/<binary>, python/lib) whose binary replays;
    `silences`: seconds of silence after the line with that index (an NPU at work)."""
    simulator = load_catalogue().simulators[simulator_name]
    models = root / "FVP" / "models" / "Linux64_GCC-9.3"
    models.mkdir(parents=True)
    (root / "FVP" / "python" / "lib").mkdir(parents=True)
    binary = models / simulator.binary
    # -E: the FVP's PYTHONHOME (its bundled python) must not break the stand-in's python
    binary.write_text(f"#!{sys.executable} -E\n" + REPLAY.read_text())
    binary.chmod(0o755)
    plan = {"transcript": str(TRANSCRIPTS / transcript), "exit_code": exit_code,
            "startup_s": 0.3, "line_s": 0.005, **pace,
            "silences": {str(index): s for index, s in (silences or {}).items()}}
    Path(f"{binary}.replay.json").write_text(json.dumps(plan))
    return binary


def invocation(binary: Path) -> dict:
    """How the replay was started: argv, env, cwd."""
    return json.loads(Path(f"{binary}.invocation.json").read_text())
