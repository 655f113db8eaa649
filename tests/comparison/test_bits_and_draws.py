"""Array equality is bits everywhere (the toolset A/B's agreement too), the departure sentence
is one, and partition inputs come from one seeded drawer with one set of ranges."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.comparison.departure import (
    all_bit_equal,
    bit_equal,
    departure,
    departure_sentence,
    differing_elements,
)
from orchestrator.tosa.random_inputs import WIDE_INPUT_RANGE, draw_inputs, random_range


def test_bits_tell_negative_zero_from_zero_and_dtypes_apart() -> None:
    zero, negative = np.array([0.0, 1.0], np.float32), np.array([-0.0, 1.0], np.float32)
    assert np.array_equal(zero, negative)          # what values say
    assert not bit_equal(zero, negative)           # what bits say
    assert differing_elements(zero, negative) == 1
    assert bit_equal(np.array([np.nan]), np.array([np.nan]))
    assert not bit_equal(np.array([1], np.int8), np.array([1], np.int16))
    assert differing_elements(np.zeros(3, np.int8), np.zeros(4, np.int8)) == 4
    assert all_bit_equal([zero, zero], [zero.copy(), zero.copy()])
    assert not all_bit_equal([zero], [zero, zero])


def test_one_departure_sentence_names_first_and_worst() -> None:
    device = np.array([1, 5, 3, 9], np.int8)
    reference = np.array([1, 4, 3, 2], np.int8)
    found = departure(device, reference)
    assert found is not None
    assert departure_sentence(found.to_json(), "NPU", "TOSA") == (
        "2/4 elements differ, first at [1] NPU 5 vs TOSA 4, worst at [3] NPU 9 vs TOSA 2")
    floats = departure(np.array([0.5, 2.0]), np.array([0.5, 1.25]))
    assert floats is not None
    assert departure_sentence(floats.to_json()).endswith("device 2 vs reference 1.25")


@dataclass(frozen=True)
class Tensor:
    dtype: str
    shape: tuple[int, ...]


def test_one_drawer_one_range_for_every_partition_input() -> None:
    assert random_range("int8") == (-128, 127) and random_range("int16") == (-32768, 32767)
    assert random_range("int32") == WIDE_INPUT_RANGE == (-32768, 32767)
    tensors = [Tensor("int8", (2, 3)), Tensor("int32", (1000,)), Tensor("float32", (4,))]
    first, second = draw_inputs(tensors, 7), draw_inputs(tensors, 7)
    assert all_bit_equal(first, second)
    assert [a.dtype.name for a in first] == ["int8", "int32", "float32"]
    wide = first[1]
    assert wide.min() >= WIDE_INPUT_RANGE[0] and wide.max() <= WIDE_INPUT_RANGE[1]
    assert wide.max() > 4096           # the range is int16's, not a narrower one
    assert not all_bit_equal(first, draw_inputs(tensors, 8))


def test_one_classifier_rule_for_agreement_and_predicted_classes() -> None:
    from orchestrator.comparison.accuracy import classifier_rows, predicted_class, top_k_agree

    one = np.array([[0.1, 0.7, 0.2]])
    assert predicted_class(one) == 1 and predicted_class(one[0]) == 1
    batch = np.array([[0.1, 0.7, 0.2], [0.9, 0.0, 0.1]])
    rows = classifier_rows(batch)
    assert rows is not None and rows.shape == (2, 3)
    assert predicted_class(batch) is None          # one sample's class, not a batch's
    assert top_k_agree(batch, batch, 1) is True    # agreement covers every row
    for not_scores in (np.array(3.0), np.array([5.0]), np.zeros((1, 2, 3))):
        assert classifier_rows(not_scores) is None and predicted_class(not_scores) is None
