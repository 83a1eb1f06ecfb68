"""Compiled steps of the generic event loop (:func:`coflowopt.simulate.simulate`): one pass over
its sorted flow lists where the numpy form sorted, searched or made several passes.

Every step is exact (comparisons, maxima, minima, and the clock's ``rem - rate * (min(end, t')
- t)`` with the same IEEE operations), so the schedule is the same bit for bit whichever form
runs; the numpy forms stay in :mod:`coflowopt.simulate` (``compiled=False``) as the reference and
for a process without numba, and ``tests/test_simulate.py`` holds the two equal.

Why: at 50,000 coflows ``ps-p`` calls its policy at each of ~50,000 coflow events with ~10^5
active flows; the two binary searches of ``_same_rate`` were 27 % of the whole process, the
argsort of flows already sorted 4.5 %, the ``reduceat`` of the next coflow completion 4.3 %
(``experiments/results/psp_50k_profile.md``).
"""

from __future__ import annotations

import numpy as np

from .rates._jit import njit


@njit(cache=True)
def rate_changes(old_f, old_r, new_f, new_r, same_old, same_new):
    """For sorted distinct ``old_f`` and ``new_f``: ``same_old[i]`` whether ``old_f[i]`` is in
    ``new_f`` with the same rate, ``same_new[j]`` whether ``new_f[j]`` is in ``old_f`` with the
    same rate (``_same_rate`` both ways, by one merge instead of two binary searches)."""
    n1 = old_f.shape[0]
    n2 = new_f.shape[0]
    i = 0
    j = 0
    while i < n1 and j < n2:
        a = old_f[i]
        b = new_f[j]
        if a == b:
            s = old_r[i] == new_r[j]
            same_old[i] = s
            same_new[j] = s
            i += 1
            j += 1
        elif a < b:
            same_old[i] = False
            i += 1
        else:
            same_new[j] = False
            j += 1
    while i < n1:
        same_old[i] = False
        i += 1
    while j < n2:
        same_new[j] = False
        j += 1


@njit(cache=True)
def next_coflow_completion(flows, fin, coflow_of, unfinished_count):
    """The earliest end among the coflows whose every unfinished flow is in ``flows`` (sorted,
    a coflow's flows contiguous), ``fin`` their ends; ``inf`` when there is none."""
    best = np.inf
    n = flows.shape[0]
    i = 0
    while i < n:
        c = coflow_of[flows[i]]
        last = fin[i]
        j = i + 1
        while j < n and coflow_of[flows[j]] == c:
            if fin[j] > last:
                last = fin[j]
            j += 1
        if j - i == unfinished_count[c] and last < best:
            best = last
        i = j
    return best


@njit(cache=True)
def strictly_increasing(a):
    """Whether ``a`` is sorted without repeats (then its stable argsort is the identity)."""
    for i in range(1, a.shape[0]):
        if not a[i - 1] < a[i]:
            return False
    return True


@njit(cache=True)
def allocation_ok(flows, rates, done, released, coflow_of):
    """Whether a policy's answer passes ``simulate._check_allocation`` (every rate finite and
    non-negative; a positive rate only for an unfinished flow of a released coflow), in one
    pass; False also for a flow index out of range (the numpy check then names the fault)."""
    F = done.shape[0]
    for i in range(flows.shape[0]):
        r = rates[i]
        if not (r >= 0 and r < np.inf):
            return False
        f = flows[i]
        if f < 0 or f >= F:
            return False
        if r > 0 and (done[f] or not released[coflow_of[f]]):
            return False
    return True


@njit(cache=True)
def advance(flows, rates, fin, rem, size, t, t_next, rtol, fin_now):
    """The bytes each flow of ``flows`` (distinct) sends from ``t`` to ``t_next`` (or its end
    ``fin``) taken off ``rem``, and ``fin_now[i]`` whether it is done then: the numpy lines
    ``rem[flows] -= rates * (np.minimum(fin, t_next) - t)`` and
    ``(fin <= t_next) | (rem[flows] <= rtol * size[flows])`` with the same operations."""
    for i in range(flows.shape[0]):
        f = flows[i]
        e = fin[i] if fin[i] < t_next else t_next
        rem[f] = rem[f] - rates[i] * (e - t)
        fin_now[i] = fin[i] <= t_next or rem[f] <= rtol * size[f]
