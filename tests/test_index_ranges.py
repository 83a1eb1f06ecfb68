"""The shared CSR range gather (coflowopt._index_ranges) against its definition, a Python loop."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coflowopt._index_ranges import concat_ranges, run_offsets

pairs = st.lists(st.tuples(st.integers(-50, 10**6), st.integers(0, 6)), max_size=30)


@settings(max_examples=200, deadline=None)
@given(pairs)
def test_concat_ranges_is_the_concatenation_of_aranges(p):
    starts = np.array([s for s, _ in p], dtype=np.int64)
    lengths = np.array([n for _, n in p], dtype=np.int32)  # any integer dtype in, int64 out
    want = [s + j for s, n in p for j in range(n)]
    got = concat_ranges(starts, lengths)
    assert got.dtype == np.int64 and got.tolist() == want
    assert run_offsets(lengths).tolist() == [j for _, n in p for j in range(n)]


def test_empty_and_zero_lengths():
    assert concat_ranges(np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (0,)
    assert concat_ranges([5, 9], [0, 0]).shape == (0,)
    assert concat_ranges([5, 9], [0, 2]).tolist() == [9, 10]
