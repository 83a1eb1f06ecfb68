"""Rate normalisation: an offered-rate (demand) matrix onto coupled capacities (seed 002, ASY).

Seed 002 (Sviridov, Bianco, Giaccone, "To sync or not to sync", Globecom 2018) controls a data
centre *asynchronously*: a central controller estimates the offered rate matrix
``R(t) = [r_ij]`` (server ``i`` to server ``j``, normalised by the link rate, Sec. II-B phase 1)
and *renormalises* it into a transmission rate matrix ``W(t) = [w_ij]`` that no server link
overloads -- ``sum_i w_ij <= 1`` and ``sum_j w_ij <= 1``, "a double sub-stochastic matrix"
(Sec. II-B phase 2).  The rows are the ingress (sending) links and the columns the egress
(receiving) links of a big switch: every entry counts on one row and one column at once, the
coupling of Sincronia's and Varys' big switch.  The seed runs "a simple algorithm based on
iterative matrix renormalization" after Sinkhorn (1964) (Sec. III-B, ref. [5]) and states that
it "maximizes the overall throughput ``sum_i sum_j w_ij``" (Sec. II-B); which Sinkhorn variant it
runs is not written (digest ``seeds-000-002.md`` Sec. 3.2.3), and the throughput claim is false
in general (digest T-A1, and the tests here).

This module computes ``W`` from ``R`` by six methods and reports, for each, the throughput
``sum w`` and Jain's fairness index; the capacities may be any positive numbers (``1`` is the
seed's normalisation).  Every method returns rates with ``0 <= w_e <= r_e`` on every entry
(except ``sinkhorn-knopp`` with ``cap_at_demand=False``, the uncapped classic iteration kept to
show why capping is needed) and with every row and column sum at most its capacity.

Methods (:data:`METHODS`)
-------------------------
``sinkhorn-cap``
    Cap-only Sinkhorn: divide a row by its sum over capacity when it exceeds its capacity, then
    the columns likewise, repeating until admissible (one of the two readings of Sec. III-B the
    digest names, Sec. 3.2.3).  One pass suffices: rows first, then columns; scaling a column
    down never raises a row, so the rows stay admissible (:func:`sinkhorn_cap`).
``sinkhorn-knopp``
    The classic Sinkhorn-Knopp iteration (Sinkhorn 1964): scale *every* row, then every column,
    to sum exactly to its capacity (up or down), each entry capped at its offered rate
    (``cap_at_demand``), until a sweep changes no entry by more than ``tol`` or ``max_iter``
    sweeps; then one cap-only pass, so the result is admissible even when the iteration has not
    converged (on a matrix with entries on no positive diagonal it converges only in the limit:
    digest T-A1).  The second reading of Sec. III-B (:func:`sinkhorn_knopp`).
``max-min``
    Max-min fair rates with demand caps by progressive filling: every entry rises at the same
    speed until its row or column is full or it reaches its offered rate.  Computed by the
    project's one progressive filling, :func:`coflowopt.policies.flow_level.max_min_rates`,
    with each entry's offered rate as a private resource of that capacity on its path.
``max-throughput``
    The LP ``max sum_e w_e  s.t.  0 <= w_e <= r_e,  sum_{e on p} w_e <= c_p`` (a transportation
    problem on a big switch; HiGHS), the optimum the seed's claim refers to.
``hug``
    HUG (Chowdhury's dissertation, Ch. 7, Algorithm 6) with every entry one entity whose
    correlation vector is its offered rate over each link's capacity, bounded by it (Sec.
    7.6.3): Stage 1 multi-round DRF, which is ``P* d_e`` with ``P* = 1 / max_p sum_e d_e^p``
    (Eq. 7.2) while no demand binds; Stage 2 ("work conservation") divides every link's spare
    by local max-min fairness, uncapped by default (``stage2="cooperative"``, Sec. 7.5.3: one
    operator's data centre, the seed's setting) or capped at the entity's largest share
    (``stage2="capped"``, non-cooperative Algorithm 6).  An entity uses the smallest of its
    links' allocations (:mod:`coflowopt.fairness`).
``madd``
    MADD (Varys, Pseudocode 1; dissertation Eq. 4.1) with the whole matrix as one coflow whose
    flow sizes are the offered rates: every entry gets ``r_e / Gamma`` with
    ``Gamma = max_p (sum_{e on p} r_e) / c_p``, capped at ``r_e`` (``Gamma < 1`` would scale
    up): ``w = R min(1, 1 / Gamma)``, one scalar for the whole matrix.

Resources
---------
:func:`normalize_flows` does the same for the flows of an :class:`~coflowopt.instance.Instance`
over shared resources (a topology): a flow's rate counts on every resource of its path
(``instance.flow_resource_ptr`` / ``flow_resource``), every resource ``p`` has
``sum_{f through p} w_f <= capacity[p]``.  ``max-min``, ``max-throughput``, ``hug`` and
``madd`` are stated per resource already.  The two Sinkhorn methods alternate rows and columns;
on resources they alternate *colour classes* of the resource conflict graph (two resources
conflict when a flow crosses both), coloured first-fit in resource order, so that within a
class every flow meets at most one resource and the class's scalings commute.  On a big switch
the classes are exactly the ingress ports then the egress ports, so a big switch written as
paths gives the big switch's values (tested).  This generalisation is a reconstruction: the
seed scales the rows and columns of a server-to-server matrix only (Sec. II-B), routing the
normalised rates by ECMP afterwards (Sec. III-B).

Jain's index
------------
``J(x) = (sum x)^2 / (n sum x^2)`` (Jain, Chiu, Hawe 1984) over the ``n`` entries with a positive
offered rate, ``x`` their rates (:func:`jain_index`).  The seed uses Jain's index (Sec. III-D,
Fig. 3) without saying over what; "over the active entries" is the digest's reading (T-A1:
0.931 for the cap-only result), so it is an interpretation.  ``None`` when no entry is active or
every rate is 0.

Exact arithmetic
----------------
``exact=True`` computes in :class:`fractions.Fraction` (floats convert exactly) for
``sinkhorn-cap``, ``sinkhorn-knopp``, ``hug`` and ``madd`` (:data:`EXACT_METHODS`);
``max-min`` (float progressive filling) and ``max-throughput`` (an LP solver) raise
:class:`~coflowopt.exceptions.NotSupportedError`.

References
----------
G. Sviridov, A. Bianco, P. Giaccone, "To sync or not to sync: why asynchronous traffic control is
good enough for your data center", IEEE Globecom 2018, DOI 10.1109/GLOCOM.2018.8647692: Sec. II-B
(ASY: offered rate matrix, rate normalisation to a doubly sub-stochastic matrix), Sec. III-B
(Sinkhorn renormalisation), Sec. III-D (Jain's index).  R. Sinkhorn, "A relationship between
arbitrary positive matrices and doubly stochastic matrices", Ann. Math. Statist. 35 (1964).
D. Bertsekas, R. Gallager, Data Networks, Sec. 6.5.2 (max-min fairness, progressive filling).
M. Chowdhury, "Coflow", PhD dissertation, UC Berkeley 2015: Ch. 7 (HUG, Algorithm 6, Eq. 7.2,
Sec. 7.6.3), Eq. 4.1 (Gamma).  R. Jain, D. Chiu, W. Hawe, "A quantitative measure of fairness",
DEC-TR-301, 1984.  Digest ``../shared/reference/seeds-000-002.md`` Sec. 3 (T-A1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .exceptions import InputError, InvalidParameterError, NotSupportedError, SolverError

__all__ = ["METHODS", "EXACT_METHODS", "Normalization", "normalize", "normalize_flows",
           "normalize_all", "jain_index", "read_demand_matrix", "sinkhorn_cap", "sinkhorn_knopp",
           "max_min", "max_throughput", "hug", "madd"]


# ------------------------------------------------------------------------------ the problem
@dataclass(frozen=True, eq=False)
class _Problem:
    """Entries (flows) over resources: the CSR incidence, capacities and offered rates.

    ``ptr`` / ``res``: entry ``e`` crosses resources ``res[ptr[e]:ptr[e+1]]`` (distinct).
    ``capacity`` (R,) and ``demand`` (n,) are float64, or object arrays of Fractions when
    ``exact``.
    """

    ptr: np.ndarray
    res: np.ndarray
    capacity: np.ndarray
    demand: np.ndarray
    exact: bool

    @property
    def num_entries(self) -> int:
        return int(self.demand.size)

    @property
    def num_resources(self) -> int:
        return int(self.capacity.size)

    @property
    def entry_of(self) -> np.ndarray:
        """The entry of every incidence element, shape (nnz,)."""
        return np.repeat(np.arange(self.num_entries), np.diff(self.ptr))

    def zeros(self, n: int) -> np.ndarray:
        if self.exact:
            out = np.empty(n, dtype=object)
            out[:] = Fraction(0)
            return out
        return np.zeros(n)

    def ones(self, n: int) -> np.ndarray:
        if self.exact:
            out = np.empty(n, dtype=object)
            out[:] = Fraction(1)
            return out
        return np.ones(n)

    def sums(self, values: np.ndarray, resources: np.ndarray) -> np.ndarray:
        """``out[p] = sum of values[k] with resources[k] == p``, shape (R,)."""
        if self.exact:
            out = self.zeros(self.num_resources)
            np.add.at(out, resources, values)
            return out
        return np.bincount(resources, weights=values, minlength=self.num_resources)

    def load(self, x: np.ndarray) -> np.ndarray:
        """Resource loads ``sum_{e on p} x_e`` of entry rates ``x``, shape (R,)."""
        return self.sums(x[self.entry_of], self.res)


def _as_kind(values, exact: bool) -> np.ndarray:
    """A float64 array, or an object array of Fractions (floats convert exactly)."""
    arr = np.asarray(values)
    if not exact:
        return np.asarray(arr, dtype=float)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1).tolist()):
        flat[i] = Fraction(v)
    return out


def _check_values(values: np.ndarray, what: str, *, zero: bool) -> None:
    """Refuse a value outside the capacity range of :mod:`coflowopt.limits` (``zero``: 0 is
    allowed too, meaning no entry), naming ``what[index]`` and the rule."""
    from .limits import CAPACITY_MAX, CAPACITY_MIN, value_rule
    if values.dtype == object:
        ok = np.array([bool((zero and v == 0) or (CAPACITY_MIN <= v <= CAPACITY_MAX))
                       for v in values.reshape(-1)], dtype=bool).reshape(values.shape)
    else:
        ok = (values >= CAPACITY_MIN) & (values <= CAPACITY_MAX)
        if zero:
            ok |= values == 0
    if ok.all():
        return
    idx = np.unravel_index(int(np.argmin(ok)), values.shape)
    v = values[idx]
    rule = value_rule(v if isinstance(v, Fraction) else float(v), "capacity") or \
        f"must be a number in the capacity range, got {v!r}"
    where = f"{what}[{', '.join(str(int(i)) for i in idx)}]" if values.ndim else what
    if zero:
        rule = "must be 0 (no entry) or " + rule.removeprefix("must be ")
    raise InvalidParameterError(f"{where} {rule}")


def _side_capacity(value, count: int, what: str, exact: bool) -> np.ndarray:
    """A capacity per port of one side: a scalar for all, or one per port (default 1)."""
    if value is None:
        value = 1
    arr = np.asarray(value, dtype=object if exact else float) if np.ndim(value) else None
    if arr is None:
        arr = np.full(count, value, dtype=object if exact else float)
    if arr.shape != (count,):
        raise InvalidParameterError(f"{what} must be one number or {count} numbers (one per "
                                    f"port), got shape {arr.shape}")
    _check_values(arr, what, zero=False)
    return _as_kind(arr, exact)


def _matrix_problem(demand, ingress_capacity, egress_capacity, exact: bool):
    """``(problem, shape, active)``: the positive entries of ``demand`` in row-major order,
    each on ``[row i, m_in + column j]``."""
    D = np.asarray(demand, dtype=object if exact else float)
    if D.ndim != 2 or D.shape[0] == 0 or D.shape[1] == 0:
        raise InvalidParameterError(f"the demand matrix must be two-dimensional and non-empty "
                                    f"(rows: ingress, columns: egress), got shape {D.shape}")
    _check_values(D, "demand", zero=True)
    D = _as_kind(D, exact)
    m_in, m_out = D.shape
    cin = _side_capacity(ingress_capacity, m_in, "ingress_capacity", exact)
    cout = _side_capacity(egress_capacity, m_out, "egress_capacity", exact)
    flat = D.reshape(-1)
    active = np.flatnonzero(np.array([bool(v > 0) for v in flat]) if exact else flat > 0)
    i, j = active // m_out, active % m_out
    res = np.empty(2 * active.size, dtype=np.int64)
    res[0::2] = i
    res[1::2] = m_in + j
    ptr = 2 * np.arange(active.size + 1, dtype=np.int64)
    p = _Problem(ptr=ptr, res=res, capacity=np.concatenate([cin, cout]),
                 demand=flat[active].copy(), exact=exact)
    return p, (m_in, m_out), active


def _flows_problem(instance, demand, flows, exact: bool):
    """The selected flows of ``instance`` over its resources (their paths)."""
    F = instance.num_flows
    fl = np.arange(F, dtype=np.int64) if flows is None else np.asarray(flows, dtype=np.int64)
    if fl.ndim != 1 or (fl.size and (fl.min() < 0 or fl.max() >= F)):
        raise InvalidParameterError(f"flows must be flow indices in 0..{F - 1}")
    if np.unique(fl).size != fl.size:
        raise InvalidParameterError("flows must not repeat a flow")
    if demand is None:
        # a backlogged flow offers what its path allows alone: the seed's r_ij = 1 when every
        # link has rate 1 (Sec. II-B: offered load normalised by the link rate)
        dem = np.asarray(instance.flow_bottleneck_capacity, dtype=float)[fl]
    else:
        dem = np.asarray(demand, dtype=object if exact else float)
        if dem.shape != (fl.size,):
            raise InvalidParameterError(f"demand must have one offered rate per selected flow "
                                        f"({fl.size}), got shape {dem.shape}")
    _check_values(dem, "demand", zero=False)
    fptr = instance.flow_resource_ptr
    length = fptr[fl + 1] - fptr[fl]
    ptr = np.zeros(fl.size + 1, dtype=np.int64)
    np.cumsum(length, out=ptr[1:])
    start = np.repeat(fptr[fl] - ptr[:-1], length)
    res = np.asarray(instance.flow_resource, dtype=np.int64)[start + np.arange(int(ptr[-1]))]
    return _Problem(ptr=ptr, res=res, capacity=_as_kind(instance.capacity, exact),
                    demand=_as_kind(dem, exact), exact=exact), fl


# ------------------------------------------------------------------------------ Sinkhorn
def _colour_classes(p: _Problem) -> list[tuple[np.ndarray, np.ndarray]]:
    """The incidence split by colour class of its resource: ``[(entries, resources), ...]``.

    Resources are coloured first-fit in index order in their conflict graph (two resources
    conflict when an entry crosses both), so every entry meets at most one resource of a class.
    On a big switch (paths ``[i, m_in + j]``) the rows take colour 0 (they conflict only with
    columns, not yet coloured) and every used column colour 1: rows, then columns.
    """
    import scipy.sparse as sp
    n, R = p.num_entries, p.num_resources
    if n == 0:
        return []
    ent = p.entry_of
    A = sp.csr_matrix((np.ones(ent.size), p.res, p.ptr), shape=(n, R))
    conflict = (A.T @ A).tocsr()
    colour = np.full(R, -1, dtype=np.int64)
    for r in np.unique(p.res).tolist():  # a loop over resources, once per call
        nb = colour[conflict.indices[conflict.indptr[r]:conflict.indptr[r + 1]]]
        nb = nb[nb >= 0]
        free = np.flatnonzero(np.bincount(nb, minlength=nb.size + 1) == 0)
        colour[r] = int(free[0])
    elem = colour[p.res]
    return [(ent[elem == c], p.res[elem == c]) for c in range(int(elem.max()) + 1)]


def _cap_pass(p: _Problem, x: np.ndarray, classes) -> np.ndarray:
    """One cap-only pass: class by class, every resource above its capacity is scaled down to
    it; a class made admissible stays admissible (later classes only lower rates)."""
    x = x.copy()
    for ent, res in classes:
        load = p.sums(x[ent], res)
        over = np.flatnonzero(np.array([bool(v > c) for v, c in zip(load, p.capacity)])
                              if p.exact else load > p.capacity)
        if over.size == 0:
            continue
        factor = p.ones(p.num_resources)
        factor[over] = p.capacity[over] / load[over]
        x[ent] = x[ent] * factor[res]
    return x


def sinkhorn_cap(p: _Problem) -> tuple[np.ndarray, dict]:
    """Cap-only Sinkhorn: rows (colour classes) above capacity scaled down, then columns.

    Seed 002 Sec. III-B ("iteratively renormalizes rows and columns"), the cap-only reading of
    the digest (Sec. 3.2.3): a row or column is divided by its sum over capacity only if the
    sum exceeds the capacity.  One pass reaches the fixed point (the result is admissible and
    no line exceeds its capacity), so ``passes`` is 1.
    """
    classes = _colour_classes(p)
    return _cap_pass(p, p.demand, classes), {"passes": 1 if classes else 0,
                                             "classes": len(classes)}


def _check_exact_growth(x: np.ndarray, sweeps: int) -> None:
    """Refuse to go on when exact Sinkhorn-Knopp's numbers outgrow ``MAX_NUMBER_DIGITS``:
    every sweep divides by line sums with new denominators, so the digits grow about
    geometrically with the sweeps (a 6 x 6 matrix of float-derived Fractions passes 1000 digits
    within a few sweeps)."""
    from .limits import MAX_NUMBER_DIGITS
    bits = max(max(v.numerator.bit_length(), v.denominator.bit_length()) for v in x)
    if bits * 0.30103 > MAX_NUMBER_DIGITS:
        raise NotSupportedError(
            f"exact sinkhorn-knopp: after {sweeps} sweeps the rates need more than "
            f"MAX_NUMBER_DIGITS = {MAX_NUMBER_DIGITS} digits (coflowopt.limits); use "
            "exact=False or fewer sweeps (max_iter)")


def sinkhorn_knopp(p: _Problem, *, max_iter: int = 1000, tol: float = 1e-9,
                   cap_at_demand: bool = True) -> tuple[np.ndarray, dict]:
    """Sinkhorn-Knopp with capping: every line scaled to its capacity, entries capped at their
    offered rate, then a cap-only pass.

    Parameters
    ----------
    max_iter : int
        Sweeps (every class once, rows then columns on a big switch), at least 1.
    tol : float
        Stop when a sweep changes no entry by more than ``tol * max(r)`` (0: only when it
        changes nothing).
    cap_at_demand : bool
        Cap every entry at its offered rate after each scaling (default).  ``False`` is the
        classic iteration, whose rates may exceed the offered ones (the digest's caution).

    Notes
    -----
    In exact arithmetic the digits grow about geometrically with the sweeps; past
    :data:`coflowopt.limits.MAX_NUMBER_DIGITS` the function raises ``NotSupportedError``.

    Classic Sinkhorn-Knopp converges to a doubly stochastic matrix on a positive square matrix
    with unit capacities (Sinkhorn 1964); on a matrix with an entry on no positive diagonal that
    entry tends to 0 only in the limit (digest T-A1: ``w_11 = 1/(2k+1)`` after ``k`` sweeps on
    ``[[1, 1], [1, 0]]``), so ``converged`` may be False after ``max_iter`` sweeps.  The final
    cap-only pass makes the returned rates admissible in every case.
    """
    if isinstance(max_iter, bool) or int(max_iter) != max_iter or max_iter < 1:
        raise InvalidParameterError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    if not (isinstance(tol, (int, float)) and not isinstance(tol, bool) and
            math.isfinite(tol) and tol >= 0):
        raise InvalidParameterError(f"tol must be a finite number >= 0, got {tol!r}")
    classes = _colour_classes(p)
    x = p.demand.copy()
    if not classes:
        return x, {"iterations": 0, "converged": True, "last_change": 0}
    R = p.num_resources
    limit = (Fraction(tol) if p.exact else float(tol)) * max(p.demand)
    converged, it, change = False, 0, None
    for it in range(1, int(max_iter) + 1):
        before = x.copy()
        for ent, res in classes:
            load = p.sums(x[ent], res)
            on = np.flatnonzero(np.array([bool(v > 0) for v in load]) if p.exact else load > 0)
            factor = p.ones(R)
            factor[on] = p.capacity[on] / load[on]
            y = x[ent] * factor[res]
            x[ent] = np.minimum(y, p.demand[ent]) if cap_at_demand else y
        change = max(abs(a - b) for a, b in zip(x, before)) if p.exact else \
            float(np.max(np.abs(x - before)))
        if p.exact:
            _check_exact_growth(x, it)
        if change <= limit:
            converged = True
            break
    last = _cap_pass(p, x, classes)
    return last, {"iterations": it, "converged": converged,
                  "last_change": change if p.exact else float(change),
                  "cap_at_demand": bool(cap_at_demand)}


# ------------------------------------------------------------------------------ max-min
def max_min(p: _Problem) -> tuple[np.ndarray, dict]:
    """Max-min fair rates with demand caps, by :func:`~coflowopt.policies.flow_level.max_min_rates`.

    Every entry gets a private resource of capacity ``r_e`` appended to its path, so the
    progressive filling freezes it at its offered rate, exactly as at a full row or column
    (Bertsekas & Gallager, Sec. 6.5.2: a demand is a link of its own).
    """
    if p.exact:
        raise NotSupportedError("max-min is computed in float (the project's progressive "
                                "filling, coflowopt.policies.flow_level.max_min_rates); use "
                                "exact=False")
    from .instance import Instance
    from .policies.flow_level import max_min_rates
    n, R = p.num_entries, p.num_resources
    if n == 0:
        return p.zeros(0), {}
    length = np.diff(p.ptr) + 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=ptr[1:])
    res = np.empty(int(ptr[-1]), dtype=np.int64)
    private = ptr[1:] - 1
    mask = np.ones(res.size, dtype=bool)
    mask[private] = False
    res[mask] = p.res
    res[private] = R + np.arange(n)
    cap = np.concatenate([p.capacity, p.demand])
    # sizes = each entry's bottleneck: every processing time is 1, far inside the dynamic range
    bottleneck = np.minimum.reduceat(cap[res], ptr[:-1])
    inst = Instance.from_paths(resource_capacity=cap, coflow_ids=["R"],
                               flow_coflow=np.zeros(n, dtype=np.int64),
                               flow_src=np.zeros(n, dtype=np.int64),
                               flow_dst=np.ones(n, dtype=np.int64), flow_size=bottleneck,
                               path_ptr=ptr, path_resource=res, host_ids=["from", "to"])
    rate = max_min_rates(inst, np.arange(n))
    return np.minimum(rate, p.demand), {}


# ------------------------------------------------------------------------------ the LP
def _unit_exponent(values: np.ndarray) -> int:
    """The power of two nearest the geometric middle of ``values`` (0 within 2^4 of 1): the
    LP's unit, so that HiGHS's absolute tolerances (1e-7) act on numbers near 1 (as
    :func:`coflowopt.formulations.certificates.unit_scaling` does for instances)."""
    v = values[values > 0]
    if v.size == 0:
        return 0
    e = round(0.5 * (math.log2(float(v.min())) + math.log2(float(v.max()))))
    return 0 if abs(e) <= 4 else int(e)


def max_throughput(p: _Problem, *, time_limit: float | None = None) -> tuple[np.ndarray, dict]:
    """The max-throughput LP ``max sum w  s.t.  0 <= w <= r,  load_p(w) <= c_p`` (HiGHS).

    The LP is solved in a power-of-two unit near the data (exact scaling); the solution is
    clipped to ``[0, r]`` and passed once through the cap-only pass, which only touches a
    resource that HiGHS's feasibility tolerance left above its capacity.  ``info`` has the LP
    objective (in the input's units), the status and the solver.

    Raises
    ------
    SolverError
        If HiGHS does not report an optimum.
    """
    if p.exact:
        raise NotSupportedError("max-throughput is an LP solved by HiGHS in float; use "
                                "exact=False")
    import scipy.sparse as sp

    from .formulations.highs import solve_with_highs
    from .formulations.linear_program import LinearProgram
    n, R = p.num_entries, p.num_resources
    if n == 0:
        return p.zeros(0), {"lp_objective": 0.0, "status": "optimal"}
    unit = 2.0 ** _unit_exponent(np.concatenate([p.capacity, p.demand]))
    # one row per resource: sum of the rates of the entries crossing it <= its capacity
    A = sp.csr_matrix((np.ones(p.res.size), (p.res, p.entry_of)), shape=(R, n))
    lp = LinearProgram("max-throughput", c=-np.ones(n), A=A, row_lo=np.full(R, -np.inf),
                       row_hi=p.capacity / unit, col_lo=np.zeros(n), col_hi=p.demand / unit)
    sol = solve_with_highs(lp, algorithm="simplex", time_limit=time_limit)
    if not sol.optimal or sol.x is None:
        raise SolverError(f"max-throughput LP: HiGHS returned {sol.raw_status} "
                          f"({sol.status}) on {n} entries over {R} resources")
    x = np.clip(sol.x * unit, 0.0, p.demand)
    x = _cap_pass(p, x, _colour_classes(p))
    return x, {"lp_objective": -sol.objective * unit, "status": sol.status,
               "solver": sol.solver, "unit": unit}


# ------------------------------------------------------------------------------ HUG, MADD
#: ``stage2`` values of :func:`hug` -> the spare policy of coflowopt.fairness.drf_with_spare.
HUG_STAGE2 = {"cooperative": "max-min", "capped": "hug"}


def hug(p: _Problem, *, stage2: str = "cooperative") -> tuple[np.ndarray, dict]:
    """HUG (Algorithm 6) with every entry one entity bounded by its offered rate.

    The entity's correlation vector is ``r_e / c_p`` on every resource ``p`` of its path (the
    fraction of the link its offered rate fills), a *bounded* demand (dissertation Sec. 7.6.3):
    Stage 1 is multi-round DRF (:func:`coflowopt.fairness.multi_round_drf`; with no demand
    binding it is ``P* d_e``, Eq. 7.2), Stage 2 divides every link's spare by local max-min
    (:func:`coflowopt.fairness.drf_with_spare`).  The entity's rate is the smallest
    ``consumption x capacity`` over its links (a flow cannot use more on one link than on
    another).  ``info`` has ``pstar`` (Eq. 7.2 on the elastic, max-1 normalised vectors) and
    the isolation guarantee ``min_e`` progress.
    """
    if stage2 not in HUG_STAGE2:
        raise InvalidParameterError(f"stage2 must be one of {', '.join(HUG_STAGE2)}, got "
                                    f"{stage2!r}")
    from .fairness import as_correlation_vectors, drf_with_spare, optimal_isolation_guarantee
    n = p.num_entries
    if n == 0:
        return p.zeros(0), {"pstar": None, "stage2": stage2}
    used, col = np.unique(p.res, return_inverse=True)
    ent = p.entry_of
    dem = np.empty((n, used.size), dtype=object) if p.exact else np.zeros((n, used.size))
    if p.exact:
        dem[:] = Fraction(0)
    dem[ent, col] = p.demand[ent] / p.capacity[p.res]
    ids = [str(e) for e in range(n)]
    cv = as_correlation_vectors(dem, ids=ids, bounded=True, exact=p.exact)
    alloc = drf_with_spare(cv, HUG_STAGE2[stage2], method="hug")
    usable = alloc.consumption[ent, col] * p.capacity[p.res]
    rate = np.minimum(np.minimum.reduceat(usable, p.ptr[:-1]), p.demand)
    pstar = optimal_isolation_guarantee(as_correlation_vectors(dem, ids=ids, exact=p.exact))
    return rate, {"pstar": pstar, "isolation_guarantee": alloc.isolation_guarantee,
                  "stage2": stage2}


def madd(p: _Problem) -> tuple[np.ndarray, dict]:
    """MADD's rates for the matrix as one coflow, capped at the offered rates.

    ``Gamma = max_p load_p(r) / c_p`` (dissertation Eq. 4.1, Varys' Gamma; :attr:`Instance.rho`
    of the coflow whose sizes are the offered rates) and ``w = r min(1, 1 / Gamma)``.
    """
    n = p.num_entries
    if n == 0:
        return p.zeros(0), {"gamma": None}
    load = p.load(p.demand)
    used = np.unique(p.res)
    gamma = max(load[r] / p.capacity[r] for r in used.tolist())
    factor = 1 / gamma if gamma > 1 else (Fraction(1) if p.exact else 1.0)
    return p.demand * factor, {"gamma": gamma if p.exact else float(gamma)}


#: name -> (function, one-line description).  Each function takes the problem and keyword
#: parameters and returns ``(rates of the entries, info)``.
METHODS: dict[str, tuple[Callable, str]] = {
    "sinkhorn-cap": (sinkhorn_cap, "cap-only Sinkhorn: lines above capacity scaled down, rows "
                                   "then columns (one pass)"),
    "sinkhorn-knopp": (sinkhorn_knopp, "Sinkhorn-Knopp: every line scaled to its capacity, "
                                       "entries capped at their offered rate, then cap-only"),
    "max-min": (max_min, "max-min fair with demand caps (progressive filling, max_min_rates)"),
    "max-throughput": (max_throughput, "the max-throughput LP (HiGHS)"),
    "hug": (hug, "HUG: multi-round DRF (P*, Eq. 7.2) then Stage 2 work conservation"),
    "madd": (madd, "MADD: w = r min(1, 1/Gamma), Gamma = max line load / capacity"),
}
#: Methods that compute in Fractions with ``exact=True``.
EXACT_METHODS = ("sinkhorn-cap", "sinkhorn-knopp", "hug", "madd")


# ------------------------------------------------------------------------------ the result
def jain_index(x) -> Any:
    """Jain's fairness index ``(sum x)^2 / (n sum x^2)`` of the rates ``x`` (``None`` if empty
    or all 0); exact for Fractions.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> jain_index([F(1, 3), F(1, 2), F(2, 3)])
    Fraction(27, 29)
    >>> jain_index([0.5, 0.5, 0.5])
    1.0
    """
    vals = list(x.tolist() if isinstance(x, np.ndarray) else x)
    if not vals:
        return None
    exact = all(isinstance(v, (Fraction, int)) for v in vals)
    if exact:
        s, q = sum(vals, Fraction(0)), sum((v * v for v in vals), Fraction(0))
        return None if q == 0 else s * s / (len(vals) * q)
    a = np.asarray(vals, dtype=float)
    q = float(np.dot(a, a))
    return None if q == 0 else float(a.sum()) ** 2 / (a.size * q)


@dataclass(frozen=True, eq=False)
class Normalization:
    """A normalised rate allocation with its throughput and Jain's index.

    Attributes
    ----------
    method : str
    rates : ndarray
        :func:`normalize`: the transmission rate matrix ``W`` (same shape as the demand, 0
        where the demand is 0).  :func:`normalize_flows`: one rate per selected flow.
    entry_rates, entry_demand : ndarray (n,)
        Rates and offered rates of the active entries (row-major order for a matrix).
    throughput : number
        ``sum w``.
    jain : number or None
        Jain's index over the active entries (:func:`jain_index`).
    load, capacity : ndarray (R,)
        Every resource's load ``sum_{e on p} w_e`` and capacity (rows then columns for a
        matrix: resource ``i`` is row ``i``, resource ``m_in + j`` column ``j``).
    exact : bool
        Fractions (True) or float64.
    params, info : dict
        The method's parameters; what it reports (iterations, convergence, LP objective, P*,
        Gamma, ...).
    """

    method: str
    rates: np.ndarray
    entry_rates: np.ndarray
    entry_demand: np.ndarray
    throughput: Any
    jain: Any
    load: np.ndarray
    capacity: np.ndarray
    exact: bool
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def violations(self, rtol: float = 1e-9) -> list[str]:
        """What makes the rates inadmissible: a negative rate, a rate above its offered rate
        (unless the method was asked not to cap), a resource above its capacity.  Exact
        results are checked exactly; float ones within ``rtol`` of the bound."""
        tol = 0 if self.exact else rtol
        out = []
        for e, (w, r) in enumerate(zip(self.entry_rates, self.entry_demand)):
            if w < 0:
                out.append(f"entry {e}: rate {w} < 0")
            elif w > r * (1 + tol) and self.params.get("cap_at_demand", True):
                out.append(f"entry {e}: rate {w} above its offered rate {r}")
        for p_, (v, c) in enumerate(zip(self.load, self.capacity)):
            if v > c * (1 + tol):
                out.append(f"resource {p_}: load {v} above its capacity {c}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; exact values that are not dyadic floats become ``"p/q"`` strings."""
        from ._numbers import plain_number

        def num(v):
            return None if v is None else plain_number(v)

        def plain(v):
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            if isinstance(v, (Fraction, float, int, np.floating, np.integer)) and \
                    not isinstance(v, bool):
                return plain_number(v)
            return v

        rates = np.vectorize(plain_number, otypes=[object])(self.rates).tolist() \
            if self.rates.size else self.rates.tolist()
        return {"method": self.method, "exact": self.exact, "rates": rates,
                "throughput": num(self.throughput), "jain": num(self.jain),
                "active_entries": int(self.entry_rates.size),
                "params": plain(dict(self.params)), "info": plain(dict(self.info))}


def _run(p: _Problem, method: str, params: dict):
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(METHODS)}; got "
                                    f"{method!r}")
    if p.exact and method not in EXACT_METHODS:
        raise NotSupportedError(f"method {method!r} has no exact mode (exact methods: "
                                f"{', '.join(EXACT_METHODS)}); use exact=False")
    func = METHODS[method][0]
    rates, info = func(p, **params)
    load = p.load(rates)
    total = sum(rates.tolist(), Fraction(0)) if p.exact else float(np.sum(rates))
    return rates, load, total, info


def normalize(demand, method: str = "sinkhorn-cap", *, ingress_capacity=None,
              egress_capacity=None, exact: bool = False, **params) -> Normalization:
    """Normalise an offered-rate matrix onto the capacities of a big switch's ports.

    Parameters
    ----------
    demand : array_like (m_in, m_out)
        Offered rates ``r_ij >= 0``: rows are ingress (sending) ports, columns egress
        (receiving) ports; 0 means no entry.  Positive values lie in coflowopt's capacity range.
    method : str
        One of :data:`METHODS`.
    ingress_capacity, egress_capacity : number or array_like, optional
        Capacities of the rows and columns (one number for all, or one per port; default 1,
        the seed's normalisation by the link rate).
    exact : bool
        Compute in Fractions (:data:`EXACT_METHODS` only).
    **params
        The method's parameters (``max_iter``, ``tol``, ``cap_at_demand`` for
        ``sinkhorn-knopp``; ``stage2`` for ``hug``; ``time_limit`` for ``max-throughput``).

    Returns
    -------
    Normalization

    Raises
    ------
    InvalidParameterError
        Unknown method or parameter value, a malformed matrix or capacity.
    NotSupportedError
        ``exact=True`` with ``max-min`` or ``max-throughput``.
    SolverError
        The LP was not solved to optimality.

    Examples
    --------
    Digest T-A1, ``R = [[1, 1], [1, 0]]`` with unit capacities:

    >>> from fractions import Fraction as F
    >>> R = [[1, 1], [1, 0]]
    >>> cap = normalize(R, "sinkhorn-cap", exact=True)
    >>> [[str(w) for w in row] for row in cap.rates], cap.throughput, cap.jain
    ([['1/3', '1/2'], ['2/3', '0']], Fraction(3, 2), Fraction(27, 29))
    >>> mm = normalize(R, "max-min")
    >>> mm.rates.tolist(), mm.throughput, mm.jain
    ([[0.5, 0.5], [0.5, 0.0]], 1.5, 1.0)
    >>> normalize(R, "max-throughput").throughput
    2.0
    """
    p, shape, active = _matrix_problem(demand, ingress_capacity, egress_capacity, exact)
    rates, load, total, info = _run(p, method, params)
    W = np.empty(shape[0] * shape[1], dtype=object) if exact else np.zeros(shape[0] * shape[1])
    if exact:
        W[:] = Fraction(0)
    W[active] = rates
    return Normalization(method=method, rates=W.reshape(shape), entry_rates=rates,
                         entry_demand=p.demand, throughput=total,
                         jain=jain_index(rates), load=load, capacity=p.capacity, exact=exact,
                         params=dict(params), info=info)


def normalize_flows(instance, method: str = "sinkhorn-cap", *, demand=None, flows=None,
                    exact: bool = False, **params) -> Normalization:
    """Normalise the offered rates of an instance's flows onto its resources.

    Every flow's rate counts on every resource of its path (``instance.flow_resource_ptr`` /
    ``flow_resource``); the capacities are ``instance.capacity``.

    Parameters
    ----------
    instance : Instance
        A big switch or an instance over resources (a topology).
    method : str
        One of :data:`METHODS` (the Sinkhorn methods scale colour classes of resources: see the
        module docstring; on a big switch these are rows then columns).
    demand : array_like (n,), optional
        The offered rate of every selected flow (default: its path's bottleneck capacity, the
        rate it would take alone).
    flows : array_like of int, optional
        The flows to normalise (default: all), each an entry of its own.
    exact : bool
    **params
        As for :func:`normalize`.

    Returns
    -------
    Normalization
        ``rates`` has one rate per selected flow; ``load`` / ``capacity`` are per resource.

    Examples
    --------
    On a line ``a -(1)- s -(2)- b`` with flows a->b (links 0, 1) and s->b (link 1), both
    backlogged, max-min holds the first at 1 (link 0) and gives the second the rest of link 1:

    >>> from coflowopt import Instance
    >>> line = Instance.from_paths(resource_capacity=[1.0, 2.0], coflow_ids=["A"],
    ...     flow_coflow=[0, 0], flow_src=[0, 1], flow_dst=[2, 2], flow_size=[1.0, 1.0],
    ...     path_ptr=[0, 2, 3], path_resource=[0, 1, 1], host_ids=["a", "s", "b"])
    >>> r = normalize_flows(line, "max-min")
    >>> r.rates.tolist(), r.throughput
    ([1.0, 1.0], 2.0)
    """
    p, fl = _flows_problem(instance, demand, flows, exact)
    rates, load, total, info = _run(p, method, params)
    return Normalization(method=method, rates=rates, entry_rates=rates, entry_demand=p.demand,
                         throughput=total, jain=jain_index(rates), load=load,
                         capacity=p.capacity, exact=exact, params=dict(params),
                         info={**info, "flows": fl.size})


def normalize_all(demand, *, methods=None, ingress_capacity=None, egress_capacity=None,
                  exact: bool = False) -> dict[str, Normalization]:
    """Every method of :data:`METHODS` (or ``methods``) on the same matrix, by name; with
    ``exact`` the methods outside :data:`EXACT_METHODS` run in float, and so does an exact
    run refused for its number of digits (its ``info["exact_refused"]`` says why)."""
    names = list(METHODS) if methods is None else list(methods)
    out = {}
    for m in names:
        kw = dict(ingress_capacity=ingress_capacity, egress_capacity=egress_capacity)
        try:
            out[m] = normalize(demand, m, exact=exact and m in EXACT_METHODS, **kw)
        except NotSupportedError as e:
            if not (exact and m in EXACT_METHODS):
                raise
            # exact Sinkhorn-Knopp outgrew the digit limit: the float run, saying why
            r = normalize(demand, m, **kw)
            out[m] = Normalization(**{**r.__dict__, "info": {**r.info,
                                                              "exact_refused": str(e)}})
    return out


# ------------------------------------------------------------------------------ the file
def read_demand_matrix(path, *, exact: bool = False) -> np.ndarray:
    """Read a demand matrix file: a JSON array of rows (ingress ports), each an array of the
    offered rates to every egress port.

    Parameters
    ----------
    path : str or Path
    exact : bool
        Return an object array of Fractions (every JSON number converts exactly) instead of
        float64.

    Returns
    -------
    ndarray (m_in, m_out)

    Raises
    ------
    InputError
        Naming the file, the row and column (counted from 0) and the rule: not a JSON array,
        a row that is not an array or has another length than row 0, an entry that is not a
        number, negative, or positive outside the capacity range of
        :mod:`coflowopt.limits`, more rows or columns than ``MAX_PORTS``.

    Examples
    --------
    >>> import json, tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
    ...     json.dump([[1, 1], [1, 0]], fh)
    >>> read_demand_matrix(fh.name).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    >>> os.unlink(fh.name)
    """
    from . import limits
    from .formats._files import expect_kind
    from .formats.instance_json import load_json_document
    path = str(path)
    expected = "a JSON array of rows (ingress) of offered rates per egress, e.g. [[1, 1], [1, 0]]"
    expect_kind(path, ("json",), expected, InputError)
    doc = load_json_document(path, error=InputError)

    def bad(rule, fld=None):
        raise InputError(rule, file=path, field=fld)

    if not isinstance(doc, list):
        bad(f"the document must be {expected}, got {_json_kind(doc)}", "(top level)")
    if not doc:
        bad("the matrix has no rows: give at least one row (ingress port)", "(top level)")
    rule = limits.count_rule("rows (ingress ports)", len(doc), limits.MAX_PORTS, "MAX_PORTS")
    if rule:
        bad(rule, "(top level)")
    for i, row in enumerate(doc):
        if not isinstance(row, list):
            bad(f"must be an array of offered rates (one per egress port), got "
                f"{_json_kind(row)}", f"row {i}")
        if len(row) != len(doc[0]):
            bad(f"has {len(row)} entries but row 0 has {len(doc[0])}: every row needs one "
                "offered rate per egress port", f"row {i}")
    m_out = len(doc[0])
    if m_out == 0:
        bad("the rows are empty: give at least one column (egress port)", "row 0")
    rule = limits.count_rule("columns (egress ports)", m_out, limits.MAX_PORTS, "MAX_PORTS")
    if rule:
        bad(rule, "row 0")
    out = np.empty((len(doc), m_out), dtype=object if exact else float)
    for i, row in enumerate(doc):
        for j, v in enumerate(row):
            where = f"row {i}, column {j}"
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                bad(f"must be a number (an offered rate), got {_json_kind(v)}", where)
            if isinstance(v, float) and not math.isfinite(v):
                bad(f"must be a finite number, got {v!r}", where)
            if v < 0:
                bad(f"must be 0 (no traffic) or a positive offered rate, got {v!r}", where)
            if v != 0:
                r = limits.value_rule(v, "capacity")
                if r is not None:
                    bad(f"an offered rate {r}", where)
            # in range, an int is at most 1e12: exact as a float too
            out[i, j] = Fraction(v) if exact else float(v)
    return out


def _json_kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"{str(v).lower()} (a boolean)"
    if isinstance(v, str):
        return f"the string {v!r}" if len(v) <= 40 else "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return repr(v)
