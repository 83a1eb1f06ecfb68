"""Certified lower bounds on the *integral* optimum from LP-A and LP-B (unit slots, or
geometric intervals with ``epsilon``).

``lp-a`` and ``lp-b`` (:mod:`coflowopt.formulations.time_indexed_integral`,
``formulations/lp_a_lp_b.md``) bound the optimum of the integral matching model only (not the
fluid optimum); they are listed with the integral model's bounds of ``coflowopt bound --model
integral`` (``commands/bound.py``, :data:`INTEGRAL_LP_BOUNDS`) and, like ``integral-lp``, are
not registry bounds (the registry's bounds are bounds on the fluid optimum, and the conformance
suite checks them so).

Each value is the figure HiGHS's row duals certify in exact arithmetic (the steps of
:func:`coflowopt.bounds.lp_bounds.solve_and_certify`, keeping the primal too, then
:func:`coflowopt.bounds.common.certified_result`: the LP is rebuilt from the instance, the dual
repaired into exact feasibility, the bound recomputed in rationals); the certificate's
``params`` say how to rebuild the LP.  ``extra["integral_value"]`` is that figure rounded up to
the lattice of integral objective values (multiples of ``gcd_k(w_k s)``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from ..limits import check_integer
from ..results import Result
from ..formulations.time_indexed_integral import (LP_NAMES, build_lp_a, build_lp_b,
                                                  geometric_boundaries, integral_loads,
                                                  weight_units)
from .common import check_objective, check_time_limit, weighted_release_sum

__all__ = ["lp_a_bound", "lp_b_bound", "integral_lp_solution", "IntegralLPSolution",
           "default_slots", "clean_cdfs", "cdf_value", "INTEGRAL_LP_BOUNDS", "MAX_NONZEROS"]

#: Refuse an LP with more estimated non-zeros (the time-indexed model is pseudo-polynomial).
MAX_NONZEROS = 5_000_000

BOUNDS_MODEL = "integral optimum (NOT the fluid optimum)"


def default_slots(instance: Instance, slot: float = 1.0) -> dict:
    """A number of slots that contains some optimal integral schedule:
    :func:`coflowopt.exact.integral_mip.integral_horizon` (the smaller of the compression
    horizon ``max_k a_k + sum_f d_f`` and the one an incumbent's cost proves) with a greedy
    incumbent in WSPT order (per slot, whole units), never below the latest ``e_k``."""
    from ..exact.integral_mip import greedy_units, integral_data, integral_horizon
    data = integral_data(instance, slot)
    K = instance.num_coflows
    span = (data.earliest + 1 - data.first).astype(float)
    w = instance.weight
    ratio = np.where(w > 0, span / np.where(w > 0, w, 1.0), np.inf)
    order = np.lexsort((np.arange(K), data.first, ratio))
    t, g, _ = greedy_units(data, order)
    last = np.full(K, -1, dtype=np.int64)
    np.maximum.at(last, data.gk[g], t)
    ub = sum((data.weight[k] * (int(last[k]) + 1) for k in range(K)), Fraction(0))
    hz = integral_horizon(data, ub)
    hz["slots"] = max(int(hz["safe"]), int(data.earliest.max()) + 1 if K else 1)
    return hz


@dataclass
class IntegralLPSolution:
    """A solved and certified LP-A / LP-B.

    Attributes
    ----------
    result : Result
        The certified bound (kind ``lower_bound``) or an uncertified result.
    X : ndarray, shape (K, L) or None
        The primal CDFs ``X[k,l]`` (fraction of ``k`` complete by the end of slot ``b_l``,
        ``l = 1..L`` in column ``l - 1``; ``b_l = l`` on unit slots), cleaned: clipped to
        [0, 1], made non-decreasing, ``X[k,L] = 1`` exactly (:func:`clean_cdfs`).
    lp_value : Fraction or None
        The LP objective of the cleaned CDFs, exactly (:func:`cdf_value`: the primal value the
        rounding guarantees of :mod:`coflowopt.lp_deadline` refer to).
    slots : int
    slot : float
    boundaries : ndarray of int64
        ``b_0 = 0 < ... < b_L = T`` (``0..T`` on unit slots).
    ready : ndarray of int64
        ``e_k`` (the cut-off; ``a_k + 1`` with ``cutoff=False``).
    U : ndarray, shape (G, L) or None
        LP-B only: the primal cumulative units ``U[g,l]`` of flow group ``g`` (the groups of
        ``groups``) sent by the end of ``b_l`` (column ``l - 1``), as the solver returned them
        (read by :mod:`coflowopt.lp_deadline_iterated`).
    groups : IntegralData or None
        LP-B only: :func:`coflowopt.exact.integral_mip.integral_data` of the instance (the flow
        groups of ``U``).
    """

    result: Result
    X: np.ndarray | None
    lp_value: Fraction | None
    slots: int
    slot: float
    boundaries: np.ndarray | None = None
    ready: np.ndarray | None = None
    U: np.ndarray | None = None
    groups: object = None


def clean_cdfs(X: np.ndarray) -> np.ndarray:
    """Solver CDFs made exact CDFs: clipped to [0, 1], entries below 1e-12 set to 0, running
    maximum (non-decreasing), last column 1."""
    X = np.clip(np.asarray(X, dtype=float), 0.0, 1.0)
    X[X < 1e-12] = 0.0
    X = np.maximum.accumulate(X, axis=1)
    X[:, -1] = 1.0
    return X


def cdf_value(instance: Instance, X: np.ndarray, slot: float, boundaries=None,
              ready=None) -> Fraction:
    """The LP objective of CDFs ``X``, exactly: ``sum_k w_k s sum_l c_kl (X[k,l] -
    X[k,l-1])`` with ``c_kl = max(b_{l-1} + 1, e_k)`` (``= sum_t t x[k,t]`` on unit slots
    where ``X`` is free)."""
    K, L = X.shape
    b = np.arange(L + 1) if boundaries is None else np.asarray(boundaries)
    e = np.ones(K, dtype=np.int64) if ready is None else np.asarray(ready)
    s = Fraction(float(slot))
    tot = Fraction(0)
    for k in range(K):
        w = Fraction(float(instance.weight[k]))
        if w == 0:
            continue
        cost = np.maximum(b[:-1] + 1, int(e[k])).tolist()
        prev = Fraction(0)
        for c, v in zip(cost, X[k].tolist()):
            fv = Fraction(v)
            tot += w * c * (fv - prev)
            prev = fv
    return tot * s


def integral_lp_solution(instance: Instance, which: str = "a", *, slot: float = 1.0,
                         slots: int | None = None, objective: str = "weighted_completion_time",
                         cutoff: bool = True, release_rows: bool = True,
                         load_rows: bool = False, epsilon: float | None = None,
                         backend: str = "highs",
                         algorithm: str | None = "simplex", crossover: bool | str = "auto",
                         time_limit: float | None = None, export: str | None = None,
                         max_nonzeros: int = MAX_NONZEROS) -> IntegralLPSolution:
    """Build, solve and certify LP-A (``which="a"``) or LP-B (``"b"``).

    Parameters
    ----------
    instance : Instance
        In the integral model at ``slot``.
    which : {"a", "b"}
    slot : float
        Slot length.
    slots : int, optional
        Horizon ``T`` in slots (default :func:`default_slots`, which contains some optimal
        integral schedule; a shorter one may not give a valid bound).
    objective : {"weighted_completion_time", "weighted_cct"}
    epsilon : float, optional
        Geometric intervals ``(1 + epsilon)^l`` instead of unit slots
        (:func:`~coflowopt.formulations.time_indexed_integral.geometric_boundaries`): a weaker
        bound on a polynomial number of intervals.
    cutoff, release_rows, load_rows :
        The builders' options (:func:`~coflowopt.formulations.time_indexed_integral.build_lp_a`,
        :func:`~coflowopt.formulations.time_indexed_integral.build_lp_b`).
    backend, algorithm, crossover, time_limit, export :
        Solver choice (default HiGHS simplex: a vertex solution, fewer distinct CDF values).
    max_nonzeros : int
        Refuse (``NotSupportedError``) a larger LP.

    Returns
    -------
    IntegralLPSolution
    """
    if which not in LP_NAMES:
        raise InvalidParameterError(f"which must be 'a' or 'b', got {which!r}")
    check_objective(objective)
    if time_limit is not None:
        check_time_limit(time_limit)
    check_integer(max_nonzeros, "max_nonzeros", 1)   # 0 or -1: every LP "too large"
    t0 = time.perf_counter()
    loads = integral_loads(instance, slot)
    K = instance.num_coflows
    G = loads.data.num_groups

    def estimate(T):
        est = 2 * K * T + int(loads.load.size) * T * (len(set(loads.first.tolist())) + 1)
        if which == "b":
            est += G * T * (4 + int(np.ceil(instance.path_length.mean())) * 2)
        return est
    t_lo = int(loads.ready.max()) if K else 1
    if epsilon is not None:
        t_lo = int(geometric_boundaries(t_lo, epsilon).size - 1)
    if estimate(t_lo) > max_nonzeros:       # before the default horizon's greedy run
        raise NotSupportedError(f"LP-{which.upper()} too large: at least {estimate(t_lo)} "
                                f"non-zeros ({K} coflows, {G} flow groups, >= {t_lo} slots) "
                                f"> max_nonzeros={max_nonzeros}")
    hz = None
    if slots is None:
        hz = default_slots(instance, slot)
        slots = hz["slots"]
    if isinstance(slots, bool) or not isinstance(slots, (int, np.integer)) or slots < 1:
        raise InvalidParameterError(f"slots must be a whole number of slots >= 1, got "
                                    f"{slots!r}")
    T = int(slots)
    boundaries = None if epsilon is None else geometric_boundaries(T, epsilon)
    est = estimate(T if boundaries is None else boundaries.size - 1)
    if est > max_nonzeros:
        raise NotSupportedError(f"LP-{which.upper()} too large: about {est} non-zeros ({K} "
                                f"coflows, {G} flow groups, {T} slots) > max_nonzeros="
                                f"{max_nonzeros}")
    inst_u, unit = weight_units(instance)
    if which == "a":
        lp = build_lp_a(inst_u, T, slot=slot, release_rows=release_rows, cutoff=cutoff,
                        boundaries=boundaries)
        cert_params = {"slots": T, "slot": float(slot), "release_rows": release_rows,
                       "cutoff": cutoff, "unit": unit}
    else:
        lp = build_lp_b(inst_u, T, slot=slot, cutoff=cutoff, load_rows=load_rows,
                        release_rows=release_rows, boundaries=boundaries)
        cert_params = {"slots": T, "slot": float(slot), "cutoff": cutoff,
                       "load_rows": load_rows, "release_rows": release_rows, "unit": unit}
    if boundaries is not None:
        cert_params["boundaries"] = boundaries.tolist()
    timings = {"build": time.perf_counter() - t0}
    name = "lp-" + which
    params = {"objective": objective, "slot": float(slot), "slots": T, "epsilon": epsilon,
              "intervals": T if boundaries is None else int(boundaries.size - 1),
              "cutoff": cutoff,
              "release_rows": release_rows, "backend": backend, "algorithm": algorithm,
              "time_limit": time_limit}
    if which == "b":
        params["load_rows"] = load_rows
    extra = {"model": "integral", "bounds_model": BOUNDS_MODEL, "lp": lp.summary()}
    if hz is not None:
        extra["horizons"] = {k: int(v) for k, v in hz.items()}
    res, x = _solve_and_certify(instance, lp, name=name, formulation=LP_NAMES[which],
                                cert_params=cert_params, objective=objective, params=params,
                                backend=backend, algorithm=algorithm, crossover=crossover,
                                time_limit=time_limit, export=export, timings=timings,
                                extra=extra)
    if res.kind == "lower_bound":
        from ..exact.integral_mip import objective_lattice, round_up_to_lattice
        shift = weighted_release_sum(instance) if objective == "weighted_cct" else Fraction(0)
        iv = round_up_to_lattice(Fraction(res.value) + shift,
                                 objective_lattice(instance, slot)) - shift
        res.extra["integral_value"] = float(iv)
        res.extra["integral_value_exact"] = str(iv)
        res.message = (f"certified lower bound on the {objective} of the INTEGRAL model (slot "
                       f"{float(slot):g}, {T} slots; LP-{which.upper()}, dual checked in exact "
                       "arithmetic), not on the fluid optimum")
    X = lp_value = U = None
    b = np.arange(T + 1, dtype=np.int64) if boundaries is None else boundaries
    ready = loads.ready if cutoff else loads.first + 1
    if x is not None and res.kind == "lower_bound":
        X = clean_cdfs(lp.col_block("X", x))
        lp_value = cdf_value(instance, X, slot, b, ready)
        res.extra["primal_value"] = float(lp_value)
        if which == "b":
            U = np.asarray(lp.col_block("U", x), dtype=float)
    return IntegralLPSolution(result=res, X=X, lp_value=lp_value, slots=T, slot=float(slot),
                              boundaries=b, ready=ready, U=U,
                              groups=loads.data if which == "b" else None)


def _solve_and_certify(instance, lp, *, name, formulation, cert_params, objective, params,
                       backend, algorithm, crossover, time_limit, export, timings, extra):
    """:func:`coflowopt.bounds.lp_bounds.solve_and_certify`'s steps, keeping the primal
    solution too (the CDFs the rounding of :mod:`coflowopt.lp_deadline` reads): solve, then
    certify the row duals exactly (:func:`~.common.certified_result`)."""
    from ..formulations.backends import check_dual_backend, solve_lp
    from ..formulations.certificates import LPCertificate, unit_factor
    from .common import certified_result, uncertified_result
    from .lp_bounds import _ran_out_building, resolve_crossover
    check_dual_backend(backend, name)
    crossover = resolve_crossover(crossover, lp)
    if time_limit is not None:
        time_limit = time_limit - sum(timings.values())
        if time_limit <= 0:
            return _ran_out_building(name, objective, params, timings, extra), None
    t0 = time.perf_counter()
    sol = solve_lp(lp, backend, algorithm=algorithm, crossover=crossover,
                   time_limit=time_limit, export=export)
    timings["solve"] = time.perf_counter() - t0
    extra = {**extra, "iterations": sol.iterations, "raw_status": sol.raw_status}
    f = float(unit_factor(cert_params.get("unit")))
    claimed = None if sol.objective is None else sol.objective * f
    if sol.row_dual is None:
        return uncertified_result(algorithm=name, objective=objective, status=sol.status,
                                  params=params, solver=sol.solver, timings=timings,
                                  extra=extra, claimed=claimed,
                                  reason=f"the solver returned no dual solution (status "
                                         f"{sol.status}: {sol.raw_status})"), None
    cert = LPCertificate(formulation=formulation, params=cert_params, row_duals=sol.row_dual,
                         claimed_value=claimed,
                         source=f"{sol.solver.get('name')}:{sol.solver.get('algorithm')}")
    res = certified_result(instance, cert, algorithm=name, objective=objective,
                           status=sol.status, params=params, solver=sol.solver,
                           timings=timings, extra=extra)
    return res, sol.x


def lp_a_bound(instance: Instance, *, slot: float = 1.0, slots: int | None = None,
               objective: str = "weighted_completion_time", cutoff: bool = True,
               release_rows: bool = True, epsilon: float | None = None,
               backend: str = "highs",
               algorithm: str | None = "simplex", crossover: bool | str = "auto",
               time_limit: float | None = None, export: str | None = None,
               max_nonzeros: int = MAX_NONZEROS) -> Result:
    """LP-A's certified bound on the integral optimum (``coflowopt bound --model integral
    --method lp-a``); parameters as :func:`integral_lp_solution`.

    Examples
    --------
    Two unit flows through one ingress: the integral optimum 1 + 2 = 3 is LP-A's value.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 1, 1)])])
    >>> res = lp_a_bound(inst)
    >>> res.kind, res.value, res.extra["bounds_model"]
    ('lower_bound', Fraction(3, 1), 'integral optimum (NOT the fluid optimum)')
    """
    return integral_lp_solution(instance, "a", slot=slot, slots=slots, objective=objective,
                                cutoff=cutoff, release_rows=release_rows, epsilon=epsilon,
                                backend=backend,
                                algorithm=algorithm, crossover=crossover,
                                time_limit=time_limit, export=export,
                                max_nonzeros=max_nonzeros).result


def lp_b_bound(instance: Instance, *, slot: float = 1.0, slots: int | None = None,
               objective: str = "weighted_completion_time", cutoff: bool = True,
               load_rows: bool = False, epsilon: float | None = None,
               backend: str = "highs",
               algorithm: str | None = "simplex", crossover: bool | str = "auto",
               time_limit: float | None = None, export: str | None = None,
               max_nonzeros: int = MAX_NONZEROS) -> Result:
    """LP-B's certified bound on the integral optimum (``coflowopt bound --model integral
    --method lp-b``); parameters as :func:`integral_lp_solution`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 1, 1)])])
    >>> lp_b_bound(inst).value
    Fraction(3, 1)
    """
    return integral_lp_solution(instance, "b", slot=slot, slots=slots, objective=objective,
                                cutoff=cutoff, load_rows=load_rows, epsilon=epsilon,
                                backend=backend,
                                algorithm=algorithm, crossover=crossover,
                                time_limit=time_limit, export=export,
                                max_nonzeros=max_nonzeros).result


#: name -> function, for ``coflowopt bound --model integral``
INTEGRAL_LP_BOUNDS = {"lp-a": lp_a_bound, "lp-b": lp_b_bound}
