"""The slotted time-indexed MIP (Varys appendix) solved exactly, and its naive Pyomo twin.

Time is cut into slots of length ``delta``; in each slot a flow sends at a constant rate, a
coflow may use only the slots that start at or after its release, and it completes at the end
of the slot in which its last flow finishes.  The MIP over cumulative amounts ``X`` and
completion indicators ``z`` (solver-interfaces.md section 3; the matrix is built by
:func:`coflowopt.formulations.time_indexed.build_time_indexed` with ``model="slotted"``,
``mip=True``) is **exact for the slotted model**, and its optimum is an **upper bound on the
fluid optimum**: the slotted solution, run at the constant rate ``x / delta`` in each slot, is a
feasible fluid schedule (it is verified) whose completion times are at most the slot ends.

Horizon.  The MIP only sees slots ``1..T``.  ``horizon="safe"`` takes the smaller of two
numbers of slots that provably contain an optimal slotted schedule (proofs/completion-order-lp-
exact.md, Lemma 8):

* compression: ``ceil(max r / delta) + K + ceil(sum_f d_f / (b_f delta))``, ``b_f`` the
  smallest capacity on flow ``f``'s path (``min(c_src, c_dst)`` on a big switch):
  after the last release, the work between consecutive completion slots can be re-spread
  uniformly over just enough slots (one more than its length per busiest port, at most);
* the incumbent: with every weight positive, an optimal schedule costs at most ``UB`` (a slotted
  schedule built from a greedy one), so no coflow completes after
  ``max_k (UB - sum_{j != k} w_j LB_j) / w_k`` with ``LB_j`` the slotted isolation bound.

An integer ``horizon`` is used as given; the result then says whether it is proven safe.

The naive twin (:func:`pyomo_slotted_mip`) writes the same MIP as a readable Pyomo model (sets,
variables, rules) and solves it with HiGHS through Pyomo; it exists for the benchmark "largest
instance solved within 60 s, side by side with the naive time-indexed MIP through Pyomo" and as
an independent cross-check of the matrix builder (the tests compare optima).

References
----------
M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014,
appendix A, (2)-(5); Chowdhury's dissertation, App. B.1, (B.1)-(B.4); solver-interfaces.md,
sections 3 and 4.4 (the cumulative formulation; the naive MIP does not solve 8 coflows in 120 s).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, SolverNotAvailableError
from ..formulations.certificates import normalised, time_factor, unit_factor
from ..formulations.highs import HighsModel, highs_version, run_on_thread_pool
from ..formulations.time_indexed import (MAX_SLOTS, TimeGrid, build_time_indexed,
                                         slotted_schedule)
from ..instance import Instance
from ..schedule import Schedule
from ..bounds.common import check_time_limit
from ..registry import register
from ..results import OPTIMALITY_RTOL, Result, relative_gap, schedule_result

__all__ = ["slotted_mip", "slotted_horizon", "pyomo_slotted_mip", "slotted_upper_bound"]


def _slotted_releases(instance: Instance, delta: float) -> np.ndarray:
    """Release times rounded up to slot boundaries (a coflow may use a slot only from its
    start, so in the slotted model it is effectively released at the next boundary)."""
    return np.ceil(instance.release / delta - 1e-12) * delta


def slotted_upper_bound(instance: Instance, delta: float) -> tuple[float, float]:
    """A feasible slotted schedule's cost and makespan: greedy (FIFO order) on the instance
    with releases rounded up to slot boundaries, each completion rounded up to a slot end.

    A fluid schedule that never sends before a slot boundary ``>= r_k`` sends at most
    ``c_p delta`` through port ``p`` in every slot, so it is a slotted schedule once each
    completion is rounded up to the end of its slot.
    """
    from ..rates.greedy import greedy
    from ..rates.madd import madd
    from ..verify import verify_schedule
    rel = _slotted_releases(instance, delta)
    inst = instance.replace(release=rel, deadline=np.full(instance.num_coflows, np.nan))
    order = np.lexsort((np.arange(instance.num_coflows), rel))
    # greedy where it runs (on resources it may still be big_switch_only), else MADD: any
    # feasible fluid schedule gives a valid slotted upper bound
    alloc = greedy if inst.is_big_switch or not getattr(greedy, "big_switch_only", False) \
        else madd
    rep = verify_schedule(inst, alloc(inst, order))
    C = np.ceil(np.asarray(rep.coflow_completion, dtype=float) / delta - 1e-9) * delta
    return float(np.sum(instance.weight * C)), float(C.max())


def slotted_horizon(instance: Instance, delta: float) -> dict[str, Any]:
    """Numbers of slots that provably contain an optimal slotted schedule (module docstring).

    Returns
    -------
    dict
        ``compression`` and ``incumbent`` (``None`` when some weight is 0) slot counts and
        ``safe``, the smaller one.
    """
    if not (delta > 0 and math.isfinite(delta)):
        raise InvalidParameterError(f"delta must be a finite slot length > 0, got {delta!r}")
    from ..limits import check_time_length   # delta = 1e30: exit 4 from HiGHS before
    check_time_length("delta", delta, instance.flow_size, instance.flow_bottleneck_capacity)
    K = instance.num_coflows
    # each flow alone at its path's smallest capacity (min(c_src, c_dst) on a big switch)
    cmin = instance.flow_bottleneck_capacity
    work = math.fsum((instance.flow_size / cmin).tolist()) * (1 + 1e-12)
    # the slot counts in floats first: delta = 1e-320 made them infinite (an OverflowError in
    # int()) and 1e-300 a grid no array can hold; the grid's own rule (MAX_SLOTS) refuses both
    ratio = float(instance.release.max()) / delta + work / delta
    if not ratio <= MAX_SLOTS:
        count = f"more than {MAX_SLOTS}" if ratio > 1e15 else f"about {math.ceil(ratio)}"
        raise InvalidParameterError(f"delta = {delta!r} needs {count} slots for the "
                                    f"instance's releases and work (at most {MAX_SLOTS}): "
                                    "choose a larger slot length")
    R = int(math.ceil(float(instance.release.max()) / delta - 1e-12))
    comp = R + K + int(math.ceil(work / delta))
    inc = None
    w = instance.weight
    if np.all(w > 0):
        ub, _ = slotted_upper_bound(instance, delta)
        rel = _slotted_releases(instance, delta)
        lb = np.ceil((rel + instance.rho) / delta - 1e-9) * delta
        # slack for the float sums: 1e-9 relative, rounded up to whole slots
        wl = w * lb
        tot = math.fsum(wl.tolist())
        cmax = max((ub - (tot - wl[k])) / w[k] for k in range(K)) * (1 + 1e-9)
        inc = int(math.ceil(cmax / delta))
    safe = comp if inc is None else min(comp, inc)
    return {"compression": comp, "incumbent": inc, "safe": max(1, safe)}


@register("exact", "slotted-mip",
          summary="time-indexed MIP of the slotted model (slot length delta): exact for the "
                  "slotted model, an upper bound on the fluid optimum",
          reference="Varys (SIGCOMM 2014) appendix A (2)-(5); dissertation App. B.1; "
                    "solver-interfaces.md section 3",
          guarantee="slotted optimum (MIP status optimal) with a provably safe horizon; the "
                    "fluid schedule it yields is verified and costs at most that optimum",
          tags=("exponential", "needs_solver", "release_dates", "weights",
                "heterogeneous_capacities", "slow"))
def slotted_mip(instance: Instance, *, delta: float = 1.0, horizon: str | int = "safe",
                time_limit: float = 60.0, mip_rel_gap: float = 0.0,
                threads: int | None = None) -> Result:
    """Solve the slotted time-indexed MIP with HiGHS and return its verified fluid schedule.

    Parameters
    ----------
    instance : Instance
    delta : float
        Slot length (a power of two keeps every slot boundary an exact float); the
        instance's releases and work must fit in ``MAX_SLOTS`` slots of it.
    horizon : "safe" or int
        Number of slots, at most ``MAX_SLOTS``; ``"safe"`` is :func:`slotted_horizon`'s
        provably safe count.
    time_limit : float
        Seconds for HiGHS.
    mip_rel_gap : float
        HiGHS's relative MIP gap, a finite number >= 0 (0: prove the slotted optimum).  The
        status says ``slotted_optimal`` only when the MIP gap is within
        :data:`coflowopt.results.OPTIMALITY_RTOL`, whatever this value.
    threads : int, optional
        HiGHS's ``threads``; a count HiGHS's process-wide thread pool cannot honour is
        ignored with a warning and noted in ``extra["threads_note"]``.

    Returns
    -------
    Result
        Kind ``feasible`` for the fluid objective (the verified schedule; the slotted optimum is
        an upper bound on the fluid optimum, never a lower bound), ``status``
        ``"slotted_optimal"`` when HiGHS proved the slotted optimum within the safe horizon,
        else HiGHS's mapped status; ``extra`` holds ``slotted_value`` (the MIP objective),
        ``slotted_bound`` (HiGHS's dual bound on the *slotted* optimum), the horizon and whether
        it is proven safe.  ``bound`` is the best certified bound on the *fluid* optimum of
        :mod:`coflowopt.bounds` (computed within 20 % of ``time_limit``) and ``gap`` the
        verified schedule's distance to it.  When HiGHS finds no slotted schedule in time, the
        result is the verified greedy SEBF schedule (MADD SEBF on resources while greedy
        is big-switch only) with status ``time_limit`` (``extra``
        ``incumbent_source``).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
    ...                               Coflow("B", [(0, 0, 2), (1, 1, 2)])])
    >>> res = slotted_mip(inst, delta=1.0, time_limit=10)
    >>> res.kind, res.status, res.extra["slotted_value"]
    ('feasible', 'slotted_optimal', 4.0)
    """
    check_time_limit(time_limit)
    # HiGHS's own range; a value outside it was a solver failure (exit 4), not a usage error
    from ..limits import check_tolerance
    mip_rel_gap = check_tolerance(mip_rel_gap, "mip_rel_gap", 0.0)
    t0 = time.perf_counter()
    # the horizon first, so that a delta or horizon out of range is refused before any solver
    # runs.  The MIP is built and solved in the LP units of the instance (HiGHS's tolerances
    # are absolute: at sizes ~1e-9 every amount was below them); slot counts are scale invariant
    inst_u, unit = _normalised(instance)
    tf = time_factor(unit)
    delta_u = float(delta) / tf
    hz = slotted_horizon(inst_u, delta_u)
    if horizon == "safe":
        T, proven_safe = hz["safe"], True
    elif (isinstance(horizon, (int, np.integer)) and not isinstance(horizon, bool)
          and 0 < horizon <= MAX_SLOTS):
        T, proven_safe = int(horizon), int(horizon) >= hz["safe"]
    else:
        raise InvalidParameterError(f"horizon must be 'safe' or a number of slots in [1, "
                                    f"{MAX_SLOTS}], got {horizon!r}")
    from ..bounds.best import best_certified_bound, seed_value
    t_h = time.perf_counter()
    seed_res, seed_runs = best_certified_bound(instance, time_limit=0.2 * time_limit)
    seed = seed_value(seed_res)
    t_seed = time.perf_counter() - t_h
    grid = TimeGrid(delta=delta_u, T=T)
    lp = build_time_indexed(inst_u, grid, model="slotted", mip=True)
    t1 = time.perf_counter()
    options: dict[str, Any] = {"mip_rel_gap": float(mip_rel_gap)}
    thread_notes: list[str] = []
    hm, sol = run_on_thread_pool(
        lambda th: HighsModel(lp, algorithm="choose", threads=th, options=options),
        max(1e-3, time_limit - (t1 - t0)), threads, thread_notes, "slotted-mip")
    t2 = time.perf_counter()
    params = {"delta": float(delta), "horizon": horizon, "time_limit": time_limit,
              "mip_rel_gap": mip_rel_gap}
    extra = {"model": "slotted", "slots": T, "horizon_time": T * float(delta),
             "fluid_bound": None if seed_res is None else seed_res.algorithm,
             "fluid_bound_runs": seed_runs,
             "horizon_proven_safe": proven_safe, "horizons": hz,
             "slotted_value": _in_instance_units(sol.objective, unit),
             "slotted_bound": _in_instance_units(sol.mip_bound, unit),
             "mip_gap": sol.mip_gap, "mip_status": sol.status, "matrix": lp.summary()}
    if thread_notes:
        extra["threads_note"] = thread_notes[0]
    timings = {"fluid_bound": t_seed, "build": t1 - t0 - t_seed, "mip": t2 - t1}
    solver = {**sol.solver, "version": highs_version()}
    if sol.x is None:
        # no slotted schedule within the limit: the incumbent is a verified greedy schedule
        # (an anytime answer, as every exact method gives on its limit), never "no result"
        fallback, label = _fallback_schedule(instance)
        extra["incumbent_source"] = f"{label} (the MIP found no slotted schedule)"
        res = schedule_result(instance, fallback,
                              algorithm="slotted-mip", params=params, timings=timings,
                              extra=extra)
        res.solver = solver
        if res.kind is not None:
            res.status = sol.status if sol.status != "optimal" else "no_slotted_schedule"
            res.message = (f"HiGHS found no slotted schedule (status {sol.status}) within {T} "
                           f"slots; the verified {label} schedule costs "
                           f"{float(res.value):.10g}")
        return _with_fluid_bound(res, seed)
    sched = _schedule_in_instance_units(slotted_schedule(inst_u, lp, sol.x), unit)
    res = schedule_result(instance, sched, algorithm="slotted-mip", params=params,
                          timings=timings, extra=extra)
    res.solver = solver
    gap_ok = sol.mip_gap is not None and sol.mip_gap <= OPTIMALITY_RTOL
    if res.kind is not None:
        if sol.status == "optimal" and proven_safe and gap_ok:
            res.status = "slotted_optimal"
            res.message = (f"slotted optimum {extra['slotted_value']:.10g} (delta {delta:g}, "
                           f"{T} slots, "
                           f"safe horizon): an upper bound on the fluid optimum; the verified "
                           f"fluid schedule costs {float(res.value):.10g}")
        else:
            res.status = sol.status if sol.status != "optimal" else (
                "slotted_optimal_in_horizon" if gap_ok else "slotted_within_mip_rel_gap")
            res.message = (f"slotted MIP {sol.status} (incumbent {extra['slotted_value']}, "
                           f"slotted bound {extra['slotted_bound']}, MIP gap {sol.mip_gap}); "
                           "horizon "
                           f"{'proven safe' if proven_safe else 'not proven safe'}")
    return _with_fluid_bound(res, seed)


def _normalised(instance: Instance):
    """:func:`~coflowopt.formulations.certificates.normalised` (which scales the resource
    capacities of an instance over resources too); the instance itself with units 0 if the
    copy leaves the ranges."""
    return normalised(instance)


def _fallback_schedule(instance: Instance) -> tuple[Schedule, str]:
    """The incumbent when the MIP finds no slotted schedule, and its label: greedy rates in
    SEBF order (smallest isolated time ``rho_k`` first).  On resources, where SEBF or greedy
    may still be ``big_switch_only``, the SEBF key is sorted here and MADD replaces greedy (any
    verified schedule is a valid incumbent)."""
    from ..orderings.heuristics import sebf
    from ..rates.greedy import greedy
    from ..rates.madd import madd
    if instance.is_big_switch:
        return greedy(instance, sebf(instance)), "greedy SEBF"
    order = sebf(instance) if not getattr(sebf, "big_switch_only", False) else \
        np.lexsort((np.arange(instance.num_coflows), instance.rho)).astype(np.int64)
    if not getattr(greedy, "big_switch_only", False):
        return greedy(instance, order), "greedy SEBF"
    return madd(instance, order), "MADD SEBF"


def _in_instance_units(v, unit):
    """An objective of the MIP (in its units) in the instance's units (exact: a power of 2)."""
    return None if v is None else float(v) * float(unit_factor(unit))


def _schedule_in_instance_units(sched: Schedule, unit) -> Schedule:
    """A schedule of the instance in LP units, in the instance's units: times x
    2^(data_exp - capacity_exp), rates x 2^capacity_exp (exact)."""
    if not any(unit.values()):
        return sched
    tf = time_factor(unit)
    return Schedule(sched.flow, sched.start * tf, sched.end * tf,
                    np.ldexp(sched.rate, unit["capacity_exp"]), meta=sched.meta)


def _with_fluid_bound(res: Result, seed) -> Result:
    """Attach the certified fluid bound and the verified schedule's gap to it."""
    if seed is not None and res.kind is not None:
        res.bound = seed
        res.gap = relative_gap(res.value, min(seed, res.value))
    return res


# ------------------------------------------------------------------------------ Pyomo twin
#: Pyomo termination conditions (pyomo.contrib.solver) -> coflowopt status words.
PYOMO_STATUS = {
    "convergenceCriteriaSatisfied": "optimal",
    "maxTimeLimit": "time_limit",
    "iterationLimit": "iteration_limit",
    "objectiveLimit": "objective_limit",
    "minStepLength": "error",
    "unbounded": "unbounded",
    "provenInfeasible": "infeasible",
    "locallyInfeasible": "infeasible",
    "infeasibleOrUnbounded": "unbounded_or_infeasible",
    "error": "error",
    "interrupted": "interrupted",
    "licensingProblems": "error",
    "emptyModel": "optimal",
    "unknown": "unknown",
}


def pyomo_slotted_mip(instance: Instance, *, delta: float = 1.0, slots: int | None = None,
                      time_limit: float = 60.0) -> dict[str, Any]:
    """The naive slotted MIP written in Pyomo (sets and rules, one flow per variable, no flow
    merging, no fixing of early ``z``) and solved with HiGHS through ``pyomo.contrib.solver``.

    Parameters
    ----------
    instance : Instance
    delta : float
        Slot length.
    slots : int, optional
        Number of slots (default: :func:`slotted_horizon`'s safe count).
    time_limit : float

    Returns
    -------
    dict
        ``status`` (mapped through :data:`PYOMO_STATUS`), ``objective`` (incumbent slotted
        cost or None), ``bound`` (dual bound on the slotted optimum), ``build_seconds``,
        ``solve_seconds``, ``slots``.

    Raises
    ------
    SolverNotAvailableError
        When Pyomo or its HiGHS interface is missing.
    """
    try:
        import pyomo.environ as pyo
        from pyomo.contrib.solver.common.factory import SolverFactory
    except ImportError as e:  # pragma: no cover - pyomo is a core dependency
        raise SolverNotAvailableError("pyomo is not installed (pip install pyomo)") from e
    # the naive twin is written per ingress/egress port (its cross-check role is on the big
    # switch; slotted_mip's matrix builder is the one that follows resources)
    instance.require_big_switch("pyomo_slotted_mip")
    t0 = time.perf_counter()
    T = int(slots) if slots is not None else slotted_horizon(instance, delta)["safe"]
    F, K = instance.num_flows, instance.num_coflows
    rel = _slotted_releases(instance, delta)
    size = instance.flow_size.tolist()
    cof = instance.flow_coflow.tolist()
    src = instance.flow_src.tolist()
    dst = instance.flow_egress_port.tolist()
    cap = instance.capacity.tolist()
    m = pyo.ConcreteModel("naive-slotted-mip")
    m.F = pyo.RangeSet(0, F - 1)
    m.K = pyo.RangeSet(0, K - 1)
    m.T = pyo.RangeSet(1, T)
    m.P = pyo.RangeSet(0, instance.num_ports - 1)
    m.x = pyo.Var(m.F, m.T, bounds=lambda m, f, t: (0, size[f] if (t - 1) * delta >= rel[cof[f]]
                                                     else 0))
    m.X = pyo.Var(m.F, m.T, bounds=lambda m, f, t: (0, size[f]))
    m.z = pyo.Var(m.K, m.T, within=pyo.Binary)

    def capacity(m, p, t):
        terms = [m.x[f, t] for f in range(F) if src[f] == p or dst[f] == p]
        return pyo.quicksum(terms) <= cap[p] * delta if terms else pyo.Constraint.Skip

    m.capacity = pyo.Constraint(m.P, m.T, rule=capacity)
    m.cumulative = pyo.Constraint(m.F, m.T, rule=lambda m, f, t: m.X[f, t] == (
        m.X[f, t - 1] if t > 1 else 0) + m.x[f, t])
    m.demand = pyo.Constraint(m.F, rule=lambda m, f: m.X[f, T] == size[f])
    m.linking = pyo.Constraint(m.F, m.T, rule=lambda m, f, t: m.X[f, t] >= size[f] *
                               m.z[cof[f], t])
    w = instance.weight.tolist()
    # C_k = delta * (1 + sum_t (1 - z_kt)): the end of the first slot with z = 1
    m.obj = pyo.Objective(expr=pyo.quicksum(
        w[k] * delta * (1 + pyo.quicksum(1 - m.z[k, t] for t in m.T)) for k in range(K)),
        sense=pyo.minimize)
    t1 = time.perf_counter()
    solver = SolverFactory("highs")
    if not solver.available():  # pragma: no cover
        raise SolverNotAvailableError("Pyomo's HiGHS interface is not available")
    res = solver.solve(m, time_limit=float(time_limit), load_solutions=False,
                       raise_exception_on_nonoptimal_result=False)
    t2 = time.perf_counter()
    tc = getattr(res.termination_condition, "name", str(res.termination_condition))
    return {"status": PYOMO_STATUS.get(tc, f"pyomo:{tc}"), "termination_condition": tc,
            "objective": None if res.incumbent_objective is None
            else float(res.incumbent_objective),
            "bound": None if res.objective_bound is None else float(res.objective_bound),
            "build_seconds": t1 - t0, "solve_seconds": t2 - t1, "slots": T,
            "delta": float(delta)}
