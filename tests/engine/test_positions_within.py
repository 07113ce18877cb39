"""``positions_within`` (:mod:`meshsim.engine.scheduling.backfill`): the positions a Python loop
over the sizes would keep, in order, found by C iterators."""

from hypothesis import given
from hypothesis import strategies as st

from meshsim.engine.scheduling.backfill import positions_within


@given(
    st.lists(st.integers(min_value=1, max_value=64), max_size=40),
    st.integers(min_value=0, max_value=45),
    st.integers(min_value=0, max_value=45),
    st.integers(min_value=0, max_value=70),
)
def test_the_positions_whose_size_is_within_the_bound_in_order(sizes, a, b, bound):
    lo, hi = min(a, b, len(sizes)), min(max(a, b), len(sizes))
    expected = [p for p in range(lo, hi) if sizes[p] <= bound]
    assert list(positions_within(sizes, range(lo, hi), bound)) == expected
