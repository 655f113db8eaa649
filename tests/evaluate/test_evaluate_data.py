"""A data set for `invoke evaluate`: which files, their input sets, their labels, the split
from calibration, and the refusal of an input set that does not fit (before anything runs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orchestrator.aot.models.sources import resolve_model
from orchestrator.evaluate.dataset import (
    InputShape,
    calibration_files,
    data_files,
    load_input_sets,
    preprocess_hook,
    read_input_set,
    read_labels,
)
from orchestrator.foundation.errors import OrchestratorError

WANTED = [InputShape("float32", (1, 1, 8, 8))]


def sample(value: float = 0.5) -> np.ndarray:
    return np.full((1, 1, 8, 8), value, dtype=np.float32)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for index in range(3):
        np.save(tmp_path / f"{index:02d}.npy", sample(index))
    (tmp_path / "labels.txt").write_text("00.npy 7\n01.npy 1\n02.npy 4\n")
    (tmp_path / ".hidden").write_text("editor state")
    return tmp_path


def test_data_files_are_sorted_and_leave_out_labels_and_hidden_files(folder):
    assert [p.name for p in data_files(str(folder))] == ["00.npy", "01.npy", "02.npy"]


def test_a_missing_data_set_is_one_line_naming_it(tmp_path):
    with pytest.raises(OrchestratorError) as caught:
        data_files(str(tmp_path / "nope"))
    assert "nope does not exist" in caught.value.cause and "\n" not in caught.value.message


def test_input_sets_from_npy_npz_and_pt(tmp_path):
    import torch

    np.save(tmp_path / "a.npy", sample(1))
    np.savez(tmp_path / "b.npz", sample(2), np.arange(3, dtype=np.int8))
    torch.save((torch.ones(2, 2), torch.zeros(3)), tmp_path / "c.pt")
    (a,) = read_input_set(tmp_path / "a.npy", None)
    b = read_input_set(tmp_path / "b.npz", None)
    c = read_input_set(tmp_path / "c.pt", None)
    assert a.dtype == np.float32 and float(a.max()) == 1.0
    assert [x.dtype.name for x in b] == ["float32", "int8"]
    assert [x.shape for x in c] == [(2, 2), (3,)]


def test_other_files_go_through_the_models_preprocess_hook(tmp_path):
    model = tmp_path / "model.py"
    model.write_text("import torch\n"
                     "ModelUnderTest = torch.nn.Identity()\n"
                     "ModelInputs = (torch.zeros(1, 4),)\n"
                     "def preprocess(path):\n"
                     "    values = [float(v) for v in path.read_text().split()]\n"
                     "    return torch.tensor([values])\n")
    text = tmp_path / "x.txt"
    text.write_text("1 2 3 4")
    hook = preprocess_hook(resolve_model(str(model)))
    assert hook is not None
    (tensor,) = read_input_set(text, hook)
    assert tensor.tolist() == [[1.0, 2.0, 3.0, 4.0]]


def test_a_non_tensor_file_without_a_hook_is_refused_naming_the_fix(tmp_path):
    image = tmp_path / "cat.png"
    image.write_bytes(b"\x89PNG")
    with pytest.raises(OrchestratorError) as caught:
        read_input_set(image, None)
    assert "cat.png is not a tensor file" in caught.value.cause
    assert "preprocess(path)" in caught.value.next_step


def test_an_input_set_that_does_not_fit_is_refused_in_one_line(folder):
    np.save(folder / "03.npy", np.zeros((8, 8)))
    files = data_files(str(folder))
    with pytest.raises(OrchestratorError) as caught:
        load_input_sets(files, WANTED, None, "invoke evaluate ...")
    message = caught.value.message
    assert "\n" not in message
    assert "input set 3 (03.npy) input 0 is float64[8, 8], the model takes " \
           "float32[1, 1, 8, 8]" in message


def test_too_many_tensors_are_refused(folder):
    np.savez(folder / "04.npz", sample(), sample())
    with pytest.raises(OrchestratorError, match="holds 2 tensor"):
        load_input_sets([folder / "04.npz"], WANTED, None, "rerun")


def test_labels_by_name_in_order_and_from_npy(folder, tmp_path):
    files = data_files(str(folder))[:3]
    assert read_labels(folder / "labels.txt", files) == [7, 1, 4]
    plain = tmp_path / "plain.txt"
    plain.write_text("3\n2\n1\n0\n")
    assert read_labels(plain, files) == [3, 2, 1]
    array = tmp_path / "labels.npy"
    np.save(array, np.array([5, 6, 7]))
    assert read_labels(array, files) == [5, 6, 7]


def test_a_file_without_a_label_is_named(folder, tmp_path):
    files = data_files(str(folder))
    partial = tmp_path / "partial.txt"
    partial.write_text("00.npy 1\n")
    with pytest.raises(OrchestratorError, match="no label for 01.npy and 1 more"):
        read_labels(partial, files)


def test_calibration_leaves_out_the_evaluated_files_unless_asked(folder):
    files = data_files(str(folder))
    evaluated = files[:2]
    assert calibration_files(files, evaluated, overlap=False) == files[2:]
    assert calibration_files(files, evaluated, overlap=True) == files
    with pytest.raises(OrchestratorError, match="nothing is left to calibrate on"):
        calibration_files(files, files, overlap=False)


NESTED = [InputShape("float32", (1, 4), "inputs[0]"),
          InputShape("float32", (1, 4), "inputs[1][0]"),
          InputShape("int32", (2,), "inputs[1][1]")]


def _nested_set() -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    return (np.ones((1, 4), np.float32),
            (np.full((1, 4), 2, np.float32), np.array([5, 1], np.int32)))


def test_nested_input_sets_flatten_in_the_programs_order(tmp_path: Path) -> None:
    import torch

    x, (h, lengths) = _nested_set()
    torch.save((torch.from_numpy(x), (torch.from_numpy(h), torch.from_numpy(lengths))),
               tmp_path / "a.pt")
    # keys naming the leaf paths, stored out of order: read in the model's order
    np.savez(tmp_path / "b.npz", **{"inputs[1][1]": lengths, "inputs[0]": x,
                                    "inputs[1][0]": h})
    for name in ("a.pt", "b.npz"):
        (got,) = load_input_sets([tmp_path / name], NESTED, None, "rerun")
        assert [a.dtype.name for a in got] == ["float32", "float32", "int32"]
        assert got[1][0, 0] == 2 and got[2].tolist() == [5, 1]


def test_a_nested_leaf_that_does_not_fit_is_named_by_its_path(tmp_path: Path) -> None:
    x, (h, lengths) = _nested_set()
    np.savez(tmp_path / "c.npz", **{"inputs[0]": x, "inputs[1][0]": h,
                                    "inputs[1][1]": lengths.astype(np.int64)})
    with pytest.raises(OrchestratorError, match=r"input inputs\[1\]\[1\] is int64\[2\], the "
                                                r"model takes int32\[2\]"):
        load_input_sets([tmp_path / "c.npz"], NESTED, None, "rerun")
