"""The one (weighted) max-min progressive filling, in float64 or in exact Fractions.

Every caller that wants max-min fair rates of flows over resources goes through
:func:`progressive_filling`: the ``fair``/``wss`` policies' reference engine and the multi-level
queues (:func:`coflowopt.policies.flow_level.max_min_rates`), per-flow fairness in
:mod:`coflowopt.fairness` (:func:`coflowopt.fairness.drf.flow_max_min`, exact or float) and
the max-min rate normalisation (:mod:`coflowopt.normalization`).  The compiled event loop of
the ``fair`` policy (``coflowopt/policies/_flow_kernel.py``) does the same filling per event
over (ingress, egress) pairs or distinct paths for speed; its ``engine="python"`` twin is this
function, and ``tests/test_flow_level.py`` holds the two to the same flow completion times
(relative 1e-9).

The algorithm (Bertsekas & Gallager, *Data Networks*, Sec. 6.5.2): every live flow's rate
grows in proportion to its weight; the step is the largest one every resource can take
(``residual / (sum of the live weights through it)``, at its minimum); a resource that is
then full freezes every flow through it; repeat until no flow is live.  At most one round per
resource.  Float64 counts a resource as full when its residual is at most ``FULL_RTOL`` times
its capacity (relative to that resource, so that capacities of any ratio are served);
Fractions need no tolerance.

Examples
--------
Two flows share resource 0; the second also uses resource 1 with a third flow (unit
capacities):

>>> import numpy as np
>>> from fractions import Fraction as F
>>> row, col = np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])
>>> progressive_filling(row, col, 3, np.ones(2)).tolist()
[0.5, 0.5, 0.5]
>>> cap = np.array([F(1), F(2)], dtype=object)
>>> [str(r) for r in progressive_filling(row, col, 3, cap, np.array([1, 2, 1]))]
['1/3', '2/3', '4/3']
"""

from __future__ import annotations

import numpy as np

__all__ = ["progressive_filling", "FULL_RTOL"]

#: float64: a resource whose residual is at most this times its capacity is full.
FULL_RTOL = 1e-12


def progressive_filling(row: np.ndarray, col: np.ndarray, num_flows: int, capacity,
                        weights=None) -> np.ndarray:
    """Weighted max-min fair rates of ``num_flows`` flows by progressive filling.

    Parameters
    ----------
    row, col : ndarray of int (E,)
        The flow-resource incidence: entry ``x`` says that flow ``row[x]`` (``0 ..
        num_flows - 1``) uses resource ``col[x]``.  Every flow has at least one entry.
    num_flows : int
    capacity : ndarray (R,)
        Capacity (or residual capacity) of every resource: float64, or an object array of
        Fractions for exact arithmetic (the rates are then Fractions).
    weights : array_like (num_flows,), optional
        Positive weights (default 1: per-flow max-min fairness); ints or Fractions in exact
        mode.

    Returns
    -------
    ndarray (num_flows,)
        float64, or Fractions when ``capacity`` is an object array.

    Notes
    -----
    Exact mode accumulates with ``np.add.at`` on object arrays (slow, exact); float mode with
    ``np.bincount`` (the float sums per resource are in flow order, so the big switch written
    as one entry per port gives the same bits as two separate sums over ingress and egress).
    """
    row = np.asarray(row, dtype=np.int64)
    col = np.asarray(col, dtype=np.int64)
    cap = np.asarray(capacity)
    exact = cap.dtype == object
    P = cap.size
    if exact:
        w = np.ones(num_flows, dtype=np.int64).astype(object) if weights is None else \
            np.asarray(weights).astype(object)
        res = cap.copy()
        rate = np.zeros(num_flows, dtype=np.int64).astype(object)
        tol = np.zeros(P, dtype=np.int64).astype(object)
    else:
        w = np.ones(num_flows) if weights is None else np.asarray(weights, dtype=float)
        res = cap.astype(float)  # a copy
        rate = np.zeros(num_flows)
        tol = FULL_RTOL * res
    live = np.ones(num_flows, dtype=bool)
    while live.any():
        on = live[row]
        if exact:
            wsum = np.zeros(P, dtype=np.int64).astype(object)
            np.add.at(wsum, col[on], w[row[on]])
            used = wsum > 0
            d = min(res[used] / wsum[used])
        else:
            wsum = np.bincount(col[on], weights=w[row[on]], minlength=P)
            used = wsum > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                step = np.where(used, res / wsum, np.inf)
            d = float(step.min())
        rate[live] += w[live] * d
        res -= wsum * d
        full = (res <= tol) & used
        live &= np.bincount(row, weights=full[col], minlength=num_flows) == 0
    return rate
