"""KeyedOrder (coflowopt.policies._keyed_order) gives the order of a full stable sort."""

import numpy as np
from hypothesis import given, settings, strategies as st

from coflowopt.policies._keyed_order import KeyedOrder


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 12))
def test_matches_full_sort_over_events(seed, K, steps):
    rng = np.random.default_rng(seed)
    rank = rng.permutation(K)
    # few distinct keys, so that ties (broken by rank) are frequent
    key = rng.integers(0, 4, K).astype(float)
    order = KeyedOrder(rank)
    active = np.flatnonzero(rng.random(K) < 0.5)
    for _ in range(steps):
        got = order.order(active, lambda c: key[c])
        want = active[np.lexsort((rank[active], key[active]))]
        assert got.tolist() == want.tolist()
        # next event: some coflows leave, some arrive, some change key (and are marked)
        active = np.union1d(active[rng.random(active.size) < 0.8],
                            np.flatnonzero(rng.random(K) < 0.1))
        changed = rng.choice(K, size=rng.integers(0, K + 1), replace=False)
        key[changed] = rng.integers(0, 4, changed.size) + rng.choice([0.0, 0.5], changed.size)
        order.mark(changed)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 8))
def test_infinite_and_nan_keys_sort_as_numpy_sorts_them(seed, K, steps):
    # remaining Gamma is inf where a needed port offers nothing; numpy's sorts put NaN last
    rng = np.random.default_rng(seed)
    rank = rng.permutation(K)
    values = np.array([0.0, 1.0, np.inf, -np.inf, np.nan])
    key = values[rng.integers(0, values.size, K)]
    order = KeyedOrder(rank)
    active = np.flatnonzero(rng.random(K) < 0.6)
    for _ in range(steps):
        got = order.order(active, lambda c: key[c])
        assert got.tolist() == active[np.lexsort((rank[active], key[active]))].tolist()
        active = np.union1d(active[rng.random(active.size) < 0.8],
                            np.flatnonzero(rng.random(K) < 0.2))
        changed = np.flatnonzero(rng.random(K) < 0.3)
        key[changed] = values[rng.integers(0, values.size, changed.size)]
        order.mark(changed)


def test_unmarked_key_change_is_not_seen():
    # the contract: keys are recomputed only for new or marked coflows
    key = np.array([1.0, 2.0])
    order = KeyedOrder(np.arange(2))
    assert order.order(np.arange(2), lambda c: key[c]).tolist() == [0, 1]
    key[0] = 3.0
    assert order.order(np.arange(2), lambda c: key[c]).tolist() == [0, 1]
    order.mark([0])
    assert order.order(np.arange(2), lambda c: key[c]).tolist() == [1, 0]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 12))
def test_order_alive_matches_order_and_full_sort(seed, K, steps):
    # order_alive is told what arrived and what finished (as the simulator knows them), not
    # the list of active coflows; it must give what order(active) and a full sort give
    rng = np.random.default_rng(seed)
    rank = rng.permutation(K)
    key = rng.integers(0, 4, K).astype(float)
    key[rng.random(K) < 0.1] = np.nan
    by_release = rng.permutation(K)
    alive, listed = KeyedOrder(rank), KeyedOrder(rank)
    finished = np.zeros(K, dtype=bool)
    arrived_upto = 0
    for _ in range(steps):
        n_new = int(rng.integers(0, K - arrived_upto + 1))
        arrived = by_release[arrived_upto:arrived_upto + n_new]
        arrived_upto += n_new
        # a coflow may arrive and finish before the next call (then it is never listed)
        finished[arrived[rng.random(arrived.size) < 0.1]] = True
        active = np.sort(by_release[:arrived_upto][~finished[by_release[:arrived_upto]]])
        got = alive.order_alive(finished, arrived, lambda c: key[c])
        assert got.tolist() == listed.order(active, lambda c: key[c]).tolist()
        assert got.tolist() == active[np.lexsort((rank[active], key[active]))].tolist()
        # next event: some active coflows finish, some that arrived change key (marked)
        finished[active[rng.random(active.size) < 0.2]] = True
        seen = by_release[:arrived_upto]
        changed = seen[rng.random(seen.size) < 0.4]
        key[changed] = rng.integers(0, 4, changed.size) + rng.choice([0.0, 0.5], changed.size)
        alive.mark(changed)
        listed.mark(changed)
