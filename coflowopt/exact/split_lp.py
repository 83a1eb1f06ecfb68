"""The split node LP: the unplaced set's last completion separated from the rest (Lemma Z).

A branch-and-bound node fixes the last events ``E`` (the suffix); ``U`` is the set of unplaced
positive-weight coflows.  The node LP (:func:`.order_lp.build_event_lp` with ``block=U``) lets
every coflow of ``U`` and the suffix's early data share ``[0, t_B]`` in aggregate.  The split
LP has two block events instead: ``t_0``, by which every coflow of ``U`` but the last one has
completed, and ``t_1``, the last completion of ``U``; a convex weight ``z_k`` per coflow ``k``
that may complete last in ``U`` says how much of ``k``'s data may be sent in ``[t_0, t_1]``
(``x_{j,1} <= s_j z_k``), and ``U``'s own cost enters through constants ``c_k`` (a DP bound of
``U - k`` and the charges of ``proofs/bnb-split-block.md``).  Its optimum is a lower bound on
every schedule of the node's region (Lemma Z there); it is at most the least bound of the
node's children, which it relaxes in one LP.

Used by :class:`coflowopt.exact.branch_and_bound._Search` (``bnb(split_max=...)``).  The LP is
built in the instance's own units and only when those are the event LP's units
(``PairData.unit`` exponents 0): its data are then the instance's floats (a merged pair's
rounded size: its exact value on its demand row, the float above it elsewhere), and its bound
is certified by :func:`~coflowopt.formulations.certificates.certify_lp`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from ..formulations.certificates import certify_lp
from ..formulations.highs import HighsModel
from ..formulations.linear_program import LinearProgram, float_down
from .order_lp import EVENT_LP_OPTIONS, PairData

__all__ = ["SplitLP", "build_split_lp", "solve_split_lp", "split_lp_supported",
           "with_exact_costs"]


@dataclass
class SplitLP:
    """A split node LP and what its rows mean (for the exact proof)."""

    lp: LinearProgram
    last: list[int]          # coflows that may complete last in U (one z column each)
    cost: list[float]        # c_k per coflow of ``last`` (the z columns' objective)
    floor: list[float]       # m_k per coflow of ``last``: t_0 >= sum_k z_k m_k
    floor_last: float        # t_1 >= floor_last (at most M(U))
    weight: float            # W, the charge of t_0 and t_1


def split_lp_supported(pd: PairData) -> bool:
    """Whether the split LP is built for this instance: the event LP's units are the
    instance's (every exponent 0), so the floats below are the instance's data."""
    u = pd.unit or {}
    return not any(u.get(k, 0) for k in ("data_exp", "capacity_exp", "weight_exp"))


def build_split_lp(pd: PairData, U: Sequence[int], suffix: Sequence[int], rho: int,
                   last: Sequence[int], cost: Sequence[float], floor: Sequence[float],
                   floor_last: float, weight: float) -> SplitLP:
    """The split LP of the node ``(U, suffix)`` with release groups ``0..rho-1`` unplaced
    (they come first, at their times; the caller makes sure they precede ``t_0``: Lemma Z's
    condition).  ``last`` are the coflows of ``U`` that may complete last, with their
    constants ``cost`` and floors ``floor``; ``weight`` charges ``t_0`` and ``t_1``.

    Columns: event times (releases ``0..rho-1``, ``t_0``, ``t_1``, the suffix's events), the
    ``z`` columns, the amounts ``x_{j,n}`` of each pair in each interval it may use.  Rows:
    the events' order, ``t_0 - sum z_k m_k >= 0``, ``t_1 >= floor_last`` (a column bound),
    ``sum z_k = 1``, capacity per (interval, resource), demand per pair, and
    ``x_{j,n1} - s_j z_k <= 0`` for each pair of ``U`` (``n1`` the interval ``[t_0, t_1]``).
    """
    import scipy.sparse as sp
    inst = pd.instance
    Uset = set(int(k) for k in U)
    G = pd.num_groups
    # events: releases 0..rho-1, then t_0, t_1, then the suffix
    ev_time: list[float | None] = [float(pd.group_time[g]) for g in range(rho)]
    rel_ev = {g: g for g in range(rho)}
    i0 = rho
    i1 = rho + 1
    ev_time += [None, None]
    done: dict[int, int] = {k: i1 for k in Uset}
    ev_w = [0.0] * (rho + 2)
    ev_w[i0] = ev_w[i1] = float(weight)
    for c in suffix:
        c = int(c)
        n = len(ev_time)
        if c >= 0:
            done[c] = n
            ev_time.append(None)
            ev_w.append(float(inst.weight[c]))
        else:
            g = -c - 1
            rel_ev[g] = n
            ev_time.append(float(pd.group_time[g]))
            ev_w.append(0.0)
    N = len(ev_time)
    if len(rel_ev) != G or len(done) != inst.num_coflows:
        raise ValueError("split LP: the node does not place every release and coflow")
    zcol = {int(k): N + a for a, k in enumerate(last)}
    nz = len(last)
    # amount columns
    coflow = pd.coflow
    size = pd.size
    cols_j, cols_n = [], []
    for j in range(coflow.size):
        k = int(coflow[j])
        g = int(pd.coflow_group[k])
        lo = 0 if g < 0 else rel_ev[g] + 1
        for n in range(lo, done[k] + 1):
            cols_j.append(j)
            cols_n.append(n)
    X = len(cols_j)
    nv = N + nz + X
    c = np.zeros(nv)
    c[:N] = ev_w
    c[N:N + nz] = np.asarray(cost, dtype=float)
    col_lo = np.zeros(nv)
    col_hi = np.empty(nv)
    col_hi[:N] = pd.horizon
    for n, t in enumerate(ev_time):
        if t is not None:
            col_lo[n] = col_hi[n] = t
    col_lo[i1] = max(0.0, float(floor_last))
    col_hi[N:N + nz] = 1.0
    # a pair's size: the float, or where a merged pair's float sum is rounded the float
    # above its exact value for the column bound and the z row (looser: still a relaxation)
    # and the exact value on the demand row's sides (LinearProgram.exact)
    s_up = {}
    for j in set(cols_j):
        v, ex = float(size[j]), pd.exact_size(j)
        s_up[j] = v if Fraction(v) >= ex else math.nextafter(v, math.inf)
    col_hi[N + nz:] = [s_up[j] for j in cols_j]
    rows_i: list[int] = []
    rows_c: list[int] = []
    rows_v: list[float] = []
    lo: list[float] = []
    hi: list[float] = []

    def add(entries: dict, r_lo: float, r_hi: float) -> None:
        r = len(lo)
        for col, v in entries.items():
            rows_i.append(r)
            rows_c.append(col)
            rows_v.append(v)
        lo.append(r_lo)
        hi.append(r_hi)

    inf = math.inf
    for n in range(1, N):
        add({n: 1.0, n - 1: -1.0}, 0.0, inf)
    fl = {i0: 1.0}
    for k, m in zip(last, floor):
        if m:
            fl[zcol[int(k)]] = -float(m)
    add(fl, 0.0, inf)
    add({zcol[int(k)]: 1.0 for k in last}, 1.0, 1.0)
    cap: dict[tuple[int, int], dict] = {}
    for a in range(X):
        j, n = cols_j[a], cols_n[a]
        for p in pd.pair_resources(j):
            d = cap.setdefault((n, int(p)), {})
            d[N + nz + a] = 1.0
    for (n, p), d in sorted(cap.items()):
        cp = float(inst.capacity[p])
        d = dict(d)
        d[n] = -cp
        if n > 0:
            d[n - 1] = cp
        add(d, -inf, 0.0)
    by_pair: dict[int, list[int]] = {}
    for a in range(X):
        by_pair.setdefault(cols_j[a], []).append(a)
    exact_rhs: dict[int, Fraction] = {}
    for j, lst in by_pair.items():
        r = len(lo)
        sz = float(size[j])
        add({N + nz + a: 1.0 for a in lst}, sz, sz)
        ex = pd.exact_size(j)
        if Fraction(sz) != ex:
            exact_rhs[r] = ex
        k = int(coflow[j])
        if k in Uset:
            a1 = [a for a in lst if cols_n[a] == i1]
            if a1:
                d = {N + nz + a1[0]: 1.0}
                if k in zcol:
                    d[zcol[k]] = -s_up[j]
                add(d, -inf, 0.0)
    A = sp.csr_matrix((rows_v, (rows_i, rows_c)), shape=(len(lo), nv))
    A.sort_indices()
    exact = {}
    if exact_rhs:
        ex_lo = np.full(len(lo), None, dtype=object)
        for r, v in exact_rhs.items():
            ex_lo[r] = v
        exact = {"row_lo": ex_lo, "row_hi": ex_lo.copy()}
    lp = LinearProgram("split-lp", c=c, A=A, row_lo=np.asarray(lo), row_hi=np.asarray(hi),
                       col_lo=col_lo, col_hi=col_hi, exact=exact,
                       meta={"z_start": N})
    return SplitLP(lp=lp, last=[int(k) for k in last], cost=[float(v) for v in cost],
                   floor=[float(v) for v in floor], floor_last=float(floor_last),
                   weight=float(weight))


def new_split_lp_solver() -> HighsModel:
    """A HiGHS model configured as the event LPs' (dual simplex, no presolve)."""
    return HighsModel(algorithm="simplex", options=EVENT_LP_OPTIONS)


def solve_split_lp(slp: SplitLP, model: HighsModel | None = None,
                   time_limit: float | None = None
                   ) -> tuple[float, Fraction | None, np.ndarray | None]:
    """``(certified float bound, its exact value, HiGHS's row duals)`` of the split LP;
    ``(-inf, None, None)`` when HiGHS gives no optimum or the duals certify nothing."""
    from .order_lp import _load_event_lp
    hm = model if model is not None else new_split_lp_solver()
    _load_event_lp(hm, slp.lp)
    sol = hm.run(time_limit=time_limit)
    if sol.status != "optimal" or sol.row_dual is None:
        return -math.inf, None, None
    y = np.asarray(sol.row_dual, dtype=float)
    chk = certify_lp(slp.lp, y)
    if not chk.ok:
        return -math.inf, None, None
    return float_down(chk.value), chk.value, y


def with_exact_costs(slp: SplitLP, costs: Sequence[Fraction]) -> LinearProgram:
    """The split LP with the ``z`` columns' objective the exact constants ``costs`` (at least
    the floats it was solved with: a relaxation's optimum can only rise)."""
    lp = slp.lp
    start = lp.meta["z_start"]
    ex = [None] * lp.num_cols
    for a, v in enumerate(costs):
        ex[start + a] = Fraction(v)
    exact = dict(lp.exact)
    exact["c"] = np.asarray(ex, dtype=object)
    return LinearProgram(lp.name, c=lp.c, A=lp.A, row_lo=lp.row_lo, row_hi=lp.row_hi,
                         col_lo=lp.col_lo, col_hi=lp.col_hi, exact=exact, meta=lp.meta)
