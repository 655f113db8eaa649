"""Raw little-endian tensor files with JSON sidecars, in any dim order (numpy only)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.aot.tensors import load_array, read_tensor_dir, write_tensor


def test_nchw_tensor_stored_channels_last(tmp_path) -> None:
    array = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
    record = write_tensor(tmp_path, 0, array, (0, 2, 3, 1), "inputs[0]")
    sidecar = json.loads((tmp_path / "0.json").read_text())
    assert read_tensor_dir(tmp_path)[0].name == "inputs[0]"
    assert sidecar == {"file": "0.bin", "name": "inputs[0]", "dtype": "float32",
                       "shape": [2, 3, 2, 2],
                       "dim_order": [0, 2, 3, 1], "nbytes": 96, "byteorder": "little"}
    raw = np.frombuffer((tmp_path / "0.bin").read_bytes(), dtype="<f4")
    np.testing.assert_array_equal(raw, array.transpose(0, 2, 3, 1).ravel())
    np.testing.assert_array_equal(load_array(record), array)


def test_big_endian_input_is_stored_little_endian(tmp_path) -> None:
    array = np.array([1, 256, -2], dtype=">i4")
    write_tensor(tmp_path, 0, array)
    assert (tmp_path / "0.bin").read_bytes() == np.array([1, 256, -2], "<i4").tobytes()


def test_directory_reads_in_index_order(tmp_path) -> None:
    for index in (10, 2, 0):
        write_tensor(tmp_path, index, np.full((1,), index, dtype=np.int8))
    assert [int(load_array(t)[0]) for t in read_tensor_dir(tmp_path)] == [0, 2, 10]


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=4),
       dtype=st.sampled_from(["float32", "int8", "int16", "int32", "uint8"]),
       data=st.data())
def test_roundtrip_any_shape_dtype_and_order(tmp_path_factory, shape, dtype, data) -> None:
    order = data.draw(st.permutations(range(len(shape))))
    array = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    folder = tmp_path_factory.mktemp("t")
    record = write_tensor(folder, 0, array, tuple(order))
    assert record.nbytes == array.nbytes
    np.testing.assert_array_equal(load_array(record), array)
