"""Model references and product keys: content-addressed, no torch needed."""

from __future__ import annotations

import pytest

from orchestrator.aot import request_for
from orchestrator.aot.models.sources import BUILTINS, ZOO_DIR, resolve_model, tensor_files
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices


def test_every_builtin_has_a_zoo_module() -> None:
    assert sorted(p.stem for p in ZOO_DIR.glob("*.py") if p.stem not in ("__init__", "common")) \
        == sorted(BUILTINS)


def test_unknown_model_names_the_closest_models() -> None:
    with pytest.raises(OrchestratorError, match="unknown model 'mv9' \\(did you mean mv3 or mv2"):
        resolve_model("mv9")


def test_missing_model_file_is_one_sentence(tmp_path) -> None:
    with pytest.raises(OrchestratorError, match=r"model file .*nope\.py does not exist"):
        resolve_model(str(tmp_path / "nope.py"))


def test_missing_module_for_function_spec() -> None:
    with pytest.raises(OrchestratorError, match="cannot find Python module 'no_such_mod'"):
        resolve_model("no_such_mod:build")


def test_file_key_follows_content_not_path(tmp_path) -> None:
    first, second = tmp_path / "a.py", tmp_path / "b" / "a.py"
    second.parent.mkdir()
    first.write_text("X = 1\n")
    second.write_text("X = 1\n")
    key = request_for(str(first), "cortex-m55").key()
    assert request_for(str(second), "cortex-m55").key() == key
    second.write_text("X = 2\n")
    assert request_for(str(second), "cortex-m55").key() != key


def test_key_changes_with_every_option(tmp_path) -> None:
    base = request_for("add", "ethos-u55-128").key()
    variants = [request_for("add", "ethos-u55-256"),
                request_for("add", "ethos-u55-128", CompileChoices(quantize="none")),
                request_for("add", "ethos-u55-128", CompileChoices(delegate=False)),
                request_for("add", "ethos-u55-128", CompileChoices(memory_mode="Sram_Only")),
                request_for("add", "ethos-u55-128", CompileChoices(vela_flags="--optimise Size")),
                request_for("add", "ethos-u55-128", CompileChoices(tosa=True))]
    keys = {request.key() for request in variants}
    assert base not in keys and len(keys) == len(variants)
    assert request_for("add", "ethos-u55-128").key() == base


def test_tensor_files_accepts_files_and_directories(tmp_path) -> None:
    (tmp_path / "b.npy").write_bytes(b"")
    (tmp_path / "a.pt").write_bytes(b"")
    (tmp_path / "ignored.txt").write_text("")
    assert [p.name for p in tensor_files(str(tmp_path), "calibration")] == ["a.pt", "b.npy"]
    with pytest.raises(OrchestratorError, match="is not .pt, .pth, .npy or .npz"):
        tensor_files(str(tmp_path / "ignored.txt"), "input")
    with pytest.raises(OrchestratorError, match="holds no .pt, .npy or .npz"):
        tensor_files(str((tmp_path / "empty").mkdir() or tmp_path / "empty"), "calibration")


def test_calibration_without_quantization_is_refused(tmp_path) -> None:
    (tmp_path / "c.pt").write_bytes(b"")
    with pytest.raises(OrchestratorError, match="calibration data only applies"):
        request_for("add", "cortex-m55", CompileChoices(quantize="none",
                                                        calibration=str(tmp_path / "c.pt")))
