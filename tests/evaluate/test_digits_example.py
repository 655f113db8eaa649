"""The digits example is one command from nothing to a data set: `python
examples/digits/digits_cnn.py DIR [COUNT]` writes COUNT unseen samples (never trained on) as
.npy input sets with labels.txt, in the form `invoke evaluate --data` reads, and prints the
evaluate command; a bad COUNT writes nothing (exit 2). The whole path through a QEMU session
is tests/runner/test_evaluate_qemu.py, whose data set this same command writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from orchestrator.evaluate.dataset import data_files, read_labels
from orchestrator.foundation.paths import repo_root

pytest.importorskip("sklearn", reason="scikit-learn is in the test extra: pip install -e "
                                      "'.[test]'")

MODEL = repo_root() / "examples" / "digits" / "digits_cnn.py"
FIRST_UNSEEN = 1000       # digits_cnn.TRAIN


def write(folder: Path, *count: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(MODEL), str(folder), *count], cwd=repo_root(),
                          capture_output=True, text=True, timeout=300, check=False)


def test_one_command_writes_a_labelled_data_set_evaluate_reads(tmp_path: Path) -> None:
    from sklearn.datasets import load_digits

    done = write(tmp_path / "digits", "3")
    assert done.returncode == 0, done.stderr
    files = data_files(str(tmp_path / "digits"))
    assert [f.name for f in files] == ["1000.npy", "1001.npy", "1002.npy"]
    expected = load_digits()
    assert read_labels(tmp_path / "digits" / "labels.txt", files) == \
        [int(label) for label in expected.target[FIRST_UNSEEN:FIRST_UNSEEN + 3]]
    first = np.load(files[0])
    assert first.shape == (1, 1, 8, 8) and first.dtype == np.float32
    assert np.array_equal(first[0, 0], expected.images[FIRST_UNSEEN] / 16.0)
    assert f"invoke evaluate --model {MODEL}" in done.stdout
    assert f"--data {tmp_path / 'digits'}" in done.stdout


@pytest.mark.parametrize("count", ["0", "798"])
def test_a_count_beyond_the_unseen_samples_writes_nothing(count: str, tmp_path: Path) -> None:
    done = write(tmp_path / "digits", count)
    assert done.returncode == 2
    assert "is not a whole number from 1 to 797" in done.stderr
    assert not (tmp_path / "digits").exists()
