"""The max-min LP of the isolation guarantee (HiGHS; cvxpy as an optional cross-check).

Stage 1 of HUG "requires solving a linear program to determine the optimal isolation guarantee"
(Sec. 7.6.1); for elastic coflows the LP's optimum is the closed form P* of Eq. (7.2).  Two
versions, both documented in ``formulations/hug-maxmin-lp.md``:

``level="link"`` (any correlation vectors)
    variables ``t`` and ``a_k^i >= 0`` for every ``d_k^i > 0``;
    ``sum_k a_k^i <= 1`` per link, ``a_k^i >= t w_k d_k^i`` per (k, i); maximise ``t``.
``level="flow"`` (an instance)
    variables ``t`` and flow rates ``r_f >= 0``; ``sum_{f at p} r_f <= C_p`` per port and
    ``sum_{f of k at p} r_f >= t w_k L_k^p / rho_k`` per coflow and port it uses; maximise ``t``.
    Its optimum is the isolation guarantee achievable by *flow rates* on the big switch, and it
    equals P* because MADD rates realise ``a_k = P* d_k`` exactly
    (``proofs/hug-pstar-optimal.md``).  On an instance over resources (a topology) "port" is
    "resource": a flow's rate enters the capacity row of every resource of its path and the
    progress row of its coflow at each of them; MADD rates over resources still realise
    ``P* d_k`` (each resource of a coflow's paths carries ``L_k^p / Gamma_k``), so the optimum is
    again P* of the vectors over resources.

References
----------
Chowdhury's dissertation, Sec. 7.3.2 (progress and isolation guarantee), 7.6.1 (Eq. 7.2; Stage 1
as an LP), App. D.1 (the optimisation problems O1/O2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..exceptions import InvalidParameterError, SolverError, SolverNotAvailableError
from ..instance import Instance
from .correlation import CorrelationVectors, as_correlation_vectors

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["MaxMinLPResult", "max_min_lp", "max_min_lp_cvxpy"]


@dataclass(frozen=True)
class MaxMinLPResult:
    """Optimum of the max-min LP.

    Attributes
    ----------
    value : float
        The optimal isolation guarantee ``t*``.
    level : str
        ``"link"`` or ``"flow"``.
    allocation : ndarray
        An optimal ``a`` (K, L) for ``level="link"``; optimal flow rates (F,) for ``"flow"``.
    status : str
        The solver's model status, read back.
    solver : dict
    """

    value: float
    level: str
    allocation: np.ndarray
    status: str
    solver: dict = field(default_factory=dict)


def _solve_highs(num_cols: int, rows: sp.csr_matrix, row_lo, row_hi, col_hi, objective_col: int):
    import highspy

    from ..formulations.highs import new_highs
    h = new_highs()
    inf = highspy.kHighsInf
    lo = np.zeros(num_cols)
    hi = np.where(np.isfinite(col_hi), col_hi, inf)
    h.addVars(num_cols, lo, hi)
    h.changeColsCost(1, np.array([objective_col], dtype=np.int32), np.array([1.0]))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    rows = rows.tocsr()
    rows.sort_indices()
    h.addRows(rows.shape[0], np.where(np.isfinite(row_lo), row_lo, -inf),
              np.where(np.isfinite(row_hi), row_hi, inf), rows.nnz,
              rows.indptr[:-1].astype(np.int32), rows.indices.astype(np.int32),
              rows.data.astype(float))
    h.run()
    status = h.getModelStatus()
    name = h.modelStatusToString(status)
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS did not solve the max-min LP to optimality: {name}")
    x = np.asarray(h.getSolution().col_value)
    return float(h.getInfo().objective_function_value), x, name, \
        {"name": "highspy", "version": _version("highspy")}


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(dist)
    except PackageNotFoundError:  # pragma: no cover
        return None


def max_min_lp(source, *, level: str | None = None, weighted: bool = False) -> MaxMinLPResult:
    """Solve the max-min LP of the isolation guarantee with HiGHS.

    Parameters
    ----------
    source : Instance, CorrelationVectors or array_like (K, L)
    level : {"link", "flow"}, optional
        Default: ``"flow"`` for an instance, ``"link"`` otherwise.
    weighted : bool
        Require progress ``>= t w_k`` (the LP of ``w_k d_k``).  For vectors that are already
        weighted, their ``weighted`` flag decides.

    Returns
    -------
    MaxMinLPResult

    Raises
    ------
    InvalidParameterError
        ``level="flow"`` without an instance, or bounded demands.
    SolverError
        If HiGHS does not report an optimal solution.

    Examples
    --------
    >>> round(max_min_lp([[0.5, 1.0], [1.0, 1 / 6]]).value, 9)
    0.666666667
    """
    if isinstance(source, Instance):
        level = level or "flow"
        if level == "flow":
            return _flow_lp(source, weighted)
        from .correlation import correlation_vectors
        cv = correlation_vectors(source, weighted=weighted)
    else:
        if (level or "link") != "link":
            raise InvalidParameterError("level='flow' needs an Instance (flows); vectors given "
                                        "directly only have the link-level LP")
        cv = as_correlation_vectors(source)
        if weighted and not cv.weighted:
            from dataclasses import replace
            cv = replace(cv, weighted=True)
    return _link_lp(cv)


def _link_lp(cv: CorrelationVectors) -> MaxMinLPResult:
    if cv.bounded:
        raise InvalidParameterError("the max-min LP here is the elastic one (Eq. 7.2); bounded "
                                    "demands use multi-round DRF")
    dd = np.asarray(cv.as_float().scaled(), dtype=float)
    K, L = dd.shape
    kk, ii = np.nonzero(dd > 0)
    n = kk.size
    cols = 1 + np.arange(n)              # column 0 is t
    # capacity rows: sum_k a_k^i <= 1
    import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
    cap = sp.csr_matrix((np.ones(n), (ii, cols)), shape=(L, 1 + n))
    # progress rows: a_k^i - t * dd_k^i >= 0
    r = np.arange(n)
    prog = sp.csr_matrix((np.concatenate([np.ones(n), -dd[kk, ii]]),
                          (np.concatenate([r, r]), np.concatenate([cols, np.zeros(n, int)]))),
                         shape=(n, 1 + n))
    rows = sp.vstack([cap, prog]).tocsr()
    lo = np.concatenate([np.full(L, -np.inf), np.zeros(n)])
    hi = np.concatenate([np.ones(L), np.full(n, np.inf)])
    val, x, status, solver = _solve_highs(1 + n, rows, lo, hi, np.full(1 + n, np.inf), 0)
    a = np.zeros((K, L))
    a[kk, ii] = x[1:]
    return MaxMinLPResult(value=val, level="link", allocation=a, status=status, solver=solver)


def _flow_lp(inst: Instance, weighted: bool) -> MaxMinLPResult:
    F, P = inst.num_flows, inst.num_ports
    k_of = inst.flow_coflow
    w = inst.weight if weighted else np.ones(inst.num_coflows)
    cols = 1 + np.arange(F)
    if inst.is_big_switch:
        src, dst = inst.flow_src, inst.flow_egress_port
        ent_port = np.concatenate([src, dst])
        ent_col = np.concatenate([cols, cols])
        key = np.concatenate([k_of * P + src, k_of * P + dst])
    else:
        # one entry per (flow, resource of its path)
        length = inst.path_length
        ent_port = inst.flow_resource
        ent_col = np.repeat(cols, length)
        key = np.repeat(k_of, length) * P + ent_port
    NE = ent_port.size
    # capacity rows: sum_{f at p} r_f <= C_p
    import scipy.sparse as sp  # lazily (see above)
    cap = sp.csr_matrix((np.ones(NE), (ent_port, ent_col)), shape=(P, 1 + F))
    # progress rows, one per (coflow, port) with load: sum r_f - t w_k L_k^p / rho_k >= 0
    uniq, row_of = np.unique(key, return_inverse=True)
    n = uniq.size
    kk, pp = uniq // P, uniq % P
    need = w[kk] * inst.port_loads[kk, pp] / inst.rho[kk]
    prog = sp.csr_matrix((np.concatenate([np.ones(NE), -need]),
                          (np.concatenate([row_of, np.arange(n)]),
                           np.concatenate([ent_col, np.zeros(n, int)]))), shape=(n, 1 + F))
    rows = sp.vstack([cap, prog]).tocsr()
    rows.sum_duplicates()
    lo = np.concatenate([np.full(P, -np.inf), np.zeros(n)])
    hi = np.concatenate([inst.capacity.astype(float), np.full(n, np.inf)])
    val, x, status, solver = _solve_highs(1 + F, rows, lo, hi, np.full(1 + F, np.inf), 0)
    return MaxMinLPResult(value=val, level="flow", allocation=x[1:], status=status,
                          solver=solver)


def max_min_lp_cvxpy(source, *, weighted: bool = False, solver: str | None = None) -> float:
    """The link-level max-min LP with cvxpy (an independent cross-check of :func:`max_min_lp`).

    Raises
    ------
    SolverNotAvailableError
        If cvxpy is not installed (``pip install coflowopt[fairness]``).
    SolverError
        If the solver does not report an optimal status.
    """
    try:
        import cvxpy as cp
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise SolverNotAvailableError("cvxpy is not installed: pip install "
                                      "'coflowopt[fairness]'") from e
    if isinstance(source, Instance):
        from .correlation import correlation_vectors
        cv = correlation_vectors(source, weighted=weighted)
    else:
        cv = as_correlation_vectors(source)
        if weighted and not cv.weighted:
            from dataclasses import replace
            cv = replace(cv, weighted=True)
    dd = np.asarray(cv.as_float().scaled(), dtype=float)
    mask = dd > 0
    a = cp.Variable(dd.shape, nonneg=True)
    t = cp.Variable()
    cons = [cp.sum(a, axis=0) <= 1, a[mask] >= t * dd[mask]]
    prob = cp.Problem(cp.Maximize(t), cons)
    prob.solve(solver=solver)
    if prob.status != cp.OPTIMAL:
        raise SolverError(f"cvxpy ({prob.solver_stats.solver_name}) status {prob.status}")
    return float(t.value)
