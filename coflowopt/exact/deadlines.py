"""The deadline objective (Varys (B.5)): the most coflows, or the most weight, meeting deadlines.

With deadlines absolute and the fluid model, cut time at every release and every deadline of the
coflows that have one: ``0 = tau_0 < tau_1 < ... < tau_G``.  These breakpoints are fixed, so a
set ``S`` of coflows can all meet their deadlines iff the *interval LP* with ``S``'s demands is
feasible (formulations/deadline-mip.md; proofs/completion-order-lp-exact.md, Theorem 9)::

    sum_{j whose path uses p} x_{j,g} <= c_p (tau_g - tau_{g-1})     every interval g,
                                                                     resource p
    sum_g x_{j,g} = s_j u_{k(j)}                                     every flow pair j
    x_{j,g} = 0 unless r_{k(j)} <= tau_{g-1} and tau_g <= d_{k(j)}

and the MIP maximises ``sum_k w'_k u_k`` over binary ``u`` (``w' = 1``: the number of coflows,
``w' = w``: their weight).  No big-M: ``u_k`` scales the demand, and amounts are bounded by the
capacities.  Coflows without a deadline are not counted.

The schedule: the admitted coflows run at the constant rates of their interval LP (solved again
with ``u`` fixed, exactly at HiGHS's basis: :mod:`.exact_lp`), every other coflow after ``tau_G``
through the completion-order LP of its greedy FIFO order (so they are also sent well); the whole
schedule is verified and the verifier's deadline count must equal the MIP value.

The optimality proof is HiGHS's: MIP status optimal with its dual bound (rounded down for the
count objective, which is integral).  It is a floating-point certificate (HiGHS's tolerances),
unlike :func:`coflowopt.exact.branch_and_bound.bnb`'s exact one; the result says so.

References
----------
Chowdhury's dissertation, App. B.1, (B.5) and Sec. 5.4 / Pseudocode 2 (Varys' deadline mode);
M. Chowdhury, Y. Zhong, I. Stoica, SIGCOMM 2014, Sec. 5.3.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..formulations.highs import HighsModel, highs_version
from ..formulations.linear_program import LinearProgram
from ..instance import Instance
from ..bounds.common import check_time_limit
from ..registry import register
from ..results import DEADLINE_OBJECTIVES, Result, relative_gap, within_optimality_tolerance
from ..schedule import Schedule, concatenate
from ..verify import verify_schedule
from .exact_lp import exact_lp_solution

__all__ = ["deadline_mip", "DEADLINE_OBJECTIVES"]

def _breakpoints(instance: Instance, D: np.ndarray) -> np.ndarray:
    pts = np.concatenate([[0.0], instance.release[D], instance.deadline[D]])
    return np.unique(pts)


def _interval_model(instance: Instance, D: np.ndarray, tau: np.ndarray, wprime: np.ndarray):
    """The MIP of the module docstring as a LinearProgram (columns: amounts, then ``u``)."""
    from .order_lp import pair_groups, resource_columns
    g, res_ptr, res = pair_groups(instance)
    inD = np.zeros(instance.num_coflows, dtype=bool)
    inD[D] = True
    J_all = np.flatnonzero(inD[g.coflow])
    cof = g.coflow[J_all]
    lo_t, hi_t = tau[:-1], tau[1:]
    allowed = (instance.release[cof][:, None] <= lo_t[None, :]) & \
        (hi_t[None, :] <= instance.deadline[cof][:, None])
    jj, gg = np.nonzero(allowed)                         # local pair index, interval
    X = jj.size
    nD = D.size
    u_of = np.full(instance.num_coflows, -1, dtype=np.int64)
    u_of[D] = np.arange(nD)
    P = instance.num_ports
    G = tau.size - 1
    # an amount enters the capacity row of every resource of its pair's path (on a big switch:
    # every ingress, then every egress, the order of the rows as they were always built)
    per_pos = resource_columns(res_ptr, res, J_all[jj])
    keys = np.concatenate([gg[sel] * P + r for sel, r in per_pos])
    ukeys, kinv = np.unique(keys, return_inverse=True)
    kinv = kinv.ravel()
    R = ukeys.size
    cap = instance.capacity[ukeys % P] * (hi_t - lo_t)[ukeys // P]
    nJ = J_all.size
    size = g.size[J_all]
    rows = np.concatenate([kinv, R + jj, R + np.arange(nJ)])
    cols = np.concatenate([np.arange(X)[sel] for sel, _ in per_pos] + [np.arange(X),
                                                                      X + u_of[cof]])
    vals = np.concatenate([np.ones(keys.size), np.ones(X), -size])
    import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
    A = sp.csr_matrix((vals, (rows, cols)), shape=(R + nJ, X + nD))
    # a coflow whose isolated minimum time exceeds its window can never meet its deadline
    possible = instance.release[D] + instance.rho[D] <= instance.deadline[D] * (1 + 1e-12)
    # (no exact data: the deadline proof is HiGHS's MIP certificate, not an exact LP bound)
    lp = LinearProgram(
        "deadline-mip", c=np.concatenate([np.zeros(X), -wprime]), A=A,
        row_lo=np.concatenate([np.full(R, -np.inf), np.zeros(nJ)]),
        row_hi=np.concatenate([cap, np.zeros(nJ)]),
        col_lo=np.zeros(X + nD),
        col_hi=np.concatenate([size[jj], possible.astype(float)]),
        integrality=np.concatenate([np.zeros(X, dtype=bool), np.ones(nD, dtype=bool)]),
        col_blocks={"x": (0, X, (X,)), "u": (X, X + nD, (nD,))},
        meta={"intervals": G, "pairs": nJ})
    return lp, {"pairs": J_all, "jj": jj, "gg": gg, "groups": g, "cap_keys": ukeys,
                "num_cap_rows": R, "res_ptr": res_ptr, "res": res}


def _fixed_lp(instance: Instance, lp: LinearProgram, info: dict, tau: np.ndarray,
              admitted: np.ndarray) -> LinearProgram:
    """The interval LP of the admitted coflows alone (``u`` fixed), with exact data: the
    capacity of interval ``g`` at resource ``p`` is exactly ``c_p (tau_g - tau_{g-1})`` and each
    admitted pair's demand its exact size; pairs of other coflows get no amount."""
    X = info["jj"].size
    R = info["num_cap_rows"]
    g = info["groups"]
    J_all = info["pairs"]
    P = instance.num_ports
    keys = info["cap_keys"]
    T = [Fraction(float(t)) for t in tau]
    cap_ex = np.empty(R, dtype=object)
    cap_ex[:] = [Fraction(float(instance.capacity[k % P])) * (T[k // P + 1] - T[k // P])
                 for k in keys.tolist()]
    on = np.isin(g.coflow[J_all], admitted)
    ex = g.size_exact
    dem_ex = np.empty(J_all.size, dtype=object)
    dem_ex[:] = [(Fraction(ex[j]) if ex is not None else Fraction(float(g.size[j])))
                 if o else Fraction(0) for j, o in zip(J_all.tolist(), on.tolist())]
    dem = np.where(on, g.size[J_all], 0.0)
    col_hi = np.where(on[info["jj"]], lp.col_hi[:X], 0.0)
    col_hi_ex = np.empty(X, dtype=object)
    col_hi_ex[:] = [dem_ex[j] for j in info["jj"].tolist()]
    rhi_ex = np.concatenate([cap_ex, dem_ex])
    rlo_ex = np.concatenate([np.full(R, None, dtype=object), dem_ex])
    return LinearProgram(
        "deadline-lp-fixed", c=np.zeros(X), A=lp.A[:, :X].tocsr(),
        row_lo=np.concatenate([np.full(R, -np.inf), dem]),
        row_hi=np.concatenate([lp.row_hi[:R], dem]), col_lo=np.zeros(X),
        col_hi=np.where(col_hi_ex.astype(float) > 0, col_hi, 0.0),
        exact={"row_hi": rhi_ex, "row_lo": rlo_ex, "col_hi": col_hi_ex})


def _admitted_schedule(instance: Instance, info: dict, tau: np.ndarray, x: np.ndarray,
                       max_den: int | None) -> Schedule | None:
    """Exact pieces for the admitted coflows from interval amounts; ``None`` when the rebuilt
    amounts break a capacity exactly (then another candidate is tried)."""
    g = info["groups"]
    J_all, jj, gg = info["pairs"], info["jj"], info["gg"]
    P = instance.num_ports
    x = np.asarray(x)
    if x.dtype == object:      # exact amounts: kept as they are
        keep = np.asarray([v > 0 for v in x.tolist()], dtype=bool)
        amt = [Fraction(v) for v in x[keep].tolist()]
    else:
        keep = x > 1e-11 * g.size[J_all][jj]
        amt = [Fraction(float(v)) for v in x[keep]]
        if max_den:
            amt = [a.limit_denominator(max_den) for a in amt]
    if not np.any(keep):
        return Schedule.empty(exact=True)
    jl, gl = jj[keep], gg[keep]
    tot: dict[int, Fraction] = {}
    for j, a in zip(jl.tolist(), amt):
        tot[j] = tot.get(j, Fraction(0)) + a
    ex = g.size_exact
    size = {j: (Fraction(ex[J_all[j]]) if ex is not None else Fraction(float(g.size[J_all[j]])))
            for j in tot}
    amt = [a * size[j] / tot[j] for j, a in zip(jl.tolist(), amt)]
    T = [Fraction(float(t)) for t in tau]
    cap = [Fraction(float(c)) for c in instance.capacity]
    load: dict[tuple[int, int], Fraction] = {}
    rp, rs = info["res_ptr"], info["res"]
    for j, gi, a in zip(jl.tolist(), gl.tolist(), amt):
        pj = int(J_all[j])
        for p in rs[rp[pj]:rp[pj + 1]].tolist():     # every resource of the pair's path
            load[(gi, p)] = load.get((gi, p), Fraction(0)) + a
    for (gi, p), v in load.items():
        if v > cap[p] * (T[gi + 1] - T[gi]):
            return None
    fl, st, en, rt = [], [], [], []
    for j, gi, a in zip(jl.tolist(), gl.tolist(), amt):
        if a == 0:
            continue
        rate = a / (T[gi + 1] - T[gi])
        pj = J_all[j]
        for f in g.flows[g.ptr[pj]:g.ptr[pj + 1]].tolist():
            fl.append(f)
            st.append(T[gi])
            en.append(T[gi + 1])
            rt.append(rate * Fraction(float(instance.flow_size[f])) / size[j])
    return Schedule(np.asarray(fl, dtype=np.int64), np.asarray(st, dtype=object),
                    np.asarray(en, dtype=object), np.asarray(rt, dtype=object)).merged()


def _rest_schedule(instance: Instance, rest: np.ndarray, start: float) -> Schedule:
    """The coflows ``rest`` scheduled after ``start``: greedy FIFO, re-optimised by the
    completion-order LP of its event sequence, exact."""
    from ..rates.greedy import greedy
    from ..rates.madd import madd
    from .order_lp import (build_event_lp, events_from_completions, pair_data, solve_event_lp,
                           verified_schedule)
    sub = instance.select_coflows(rest)
    sub = sub.replace(release=np.maximum(sub.release, start),
                      deadline=np.full(sub.num_coflows, np.nan))
    order = np.lexsort((np.arange(sub.num_coflows), sub.release))
    # greedy where it runs (on resources it may still be big_switch_only), else MADD: either
    # only gives the event sequence, which the LP then re-optimises
    alloc = greedy if sub.is_big_switch or not getattr(greedy, "big_switch_only", False) \
        else madd
    greedy_s = alloc(sub, order)
    rep = verify_schedule(sub, greedy_s)
    pd = pair_data(sub)
    sol = solve_event_lp(build_event_lp(pd, events_from_completions(pd, rep.coflow_completion)))
    sched = None
    if sol.status == "optimal":
        sched, _ = verified_schedule(pd, sol, verify_mode="exact")
    if sched is None:  # pragma: no cover - fall back to the (float) greedy schedule
        sched = greedy_s
    # map the sub-instance's flows back to the instance's
    back = np.concatenate([np.arange(instance.flow_ptr[k], instance.flow_ptr[k + 1])
                           for k in rest])
    return Schedule(back[sched.flow], sched.start, sched.end, sched.rate)


@register("exact", "deadline-mip",
          summary="maximum number (or weight) of coflows meeting their deadlines: MIP over the "
                  "intervals between release and deadline times (exact for the fluid model)",
          reference="Chowdhury dissertation App. B.1 (B.5); formulations/deadline-mip.md",
          guarantee="optimal count/weight when HiGHS proves the MIP optimal and the verified "
                    "schedule meets that many deadlines (floating-point MIP certificate)",
          tags=("deadlines", "exponential", "needs_solver", "release_dates", "weights",
                "heterogeneous_capacities", "preemptive", "exact_arithmetic"))
def deadline_mip(instance: Instance, *, objective: str = "count", time_limit: float = 60.0,
                 verify_mode: str = "exact") -> Result:
    """Maximise the number (``objective="count"``) or the total weight (``"weight"``) of
    coflows that complete by their absolute deadlines.

    Parameters
    ----------
    instance : Instance
        Coflows without a deadline are scheduled (after the last breakpoint) but not counted.
    objective : {"count", "weight"}
        Maximise the number of coflows that meet their deadline, or their total weight.
    time_limit : float
        Seconds for HiGHS's MIP.
    verify_mode : {"exact", "float"}
        The schedule is built exactly when it can be (the admitted part always is when the
        rebuilt amounts respect the capacities exactly; else it falls back to float).

    Raises
    ------
    NotSupportedError
        When no coflow has a deadline.
    InvalidParameterError
        For an unknown objective or verify mode, or a non-positive time limit.

    Returns
    -------
    Result
        ``objective`` ``"deadlines_met"`` or ``"weighted_deadlines_met"``; ``value`` the
        verified number/weight of deadlines met; ``bound`` HiGHS's upper bound; kind
        ``optimal`` when they agree and the MIP is optimal, else ``feasible``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> # E2 of the dissertation (Fig. 2.3): one unit link, app-1 has 3 unit flows, app-2 one;
    >>> # every deadline 1: only one coflow (app-2) can meet it
    >>> inst = Instance.from_coflows([Coflow("app1", [(0, 0, 1)] * 3, deadline=1.0),
    ...                               Coflow("app2", [(0, 0, 1)], deadline=1.0)])
    >>> res = deadline_mip(inst, time_limit=10)
    >>> res.kind, res.value, res.report.deadline_met.tolist()
    ('optimal', 1, [False, True])
    """
    if objective not in ("count", "weight"):
        raise InvalidParameterError(f"objective must be 'count' or 'weight', got {objective!r}")
    if verify_mode not in ("exact", "float"):
        raise InvalidParameterError(f"verify_mode must be 'exact' or 'float', got "
                                    f"{verify_mode!r}")
    check_time_limit(time_limit)
    t0 = time.perf_counter()
    obj_name = "deadlines_met" if objective == "count" else "weighted_deadlines_met"
    D = np.flatnonzero(~np.isnan(instance.deadline))
    if D.size == 0:
        raise NotSupportedError("deadline-mip: the instance has no deadlines (nothing to "
                                "maximise); add them, e.g. coflowopt.generators.with_deadlines")
    K = instance.num_coflows
    wprime_all = np.ones(K) if objective == "count" else instance.weight.astype(float)
    params = {"objective": objective, "time_limit": time_limit, "verify_mode": verify_mode}
    solver: dict[str, Any] = {"name": "highs", "version": highs_version()}
    extra: dict[str, Any] = {"coflows_with_deadline": int(D.size)}
    S = np.zeros(0, dtype=np.int64)
    mip_status, mip_value, mip_bound = "optimal", 0.0, 0.0
    parts: list[Schedule] = []
    tau = np.zeros(1)
    exact_parts = True
    if D.size:
        tau = _breakpoints(instance, D)
        lp, info = _interval_model(instance, D, tau, wprime_all[D])
        extra["intervals"] = int(tau.size - 1)
        extra["matrix"] = lp.summary()
        hm = HighsModel(lp, algorithm="choose", options={"mip_rel_gap": 0.0})
        sol = hm.run(time_limit=time_limit)
        solver.update(sol.solver)
        mip_status = sol.status
        if sol.x is None:
            return Result(value=None, kind=None, objective=obj_name, status=mip_status,
                                  algorithm="deadline-mip", params=params, solver=solver,
                                  extra=extra, timings={"mip": time.perf_counter() - t0},
                                  message=f"HiGHS found no solution (status {mip_status})")
        X = info["jj"].size
        u = sol.x[X:]
        S = D[u > 0.5]
        mip_value = -float(sol.objective)
        mip_bound = -float(sol.mip_bound) if sol.mip_bound is not None else math.inf
        # the admitted coflows' interval LP alone, solved exactly at HiGHS's basis when it can
        # be (then the admitted part is exactly feasible); else its float solution, rounded
        fixed = _fixed_lp(instance, lp, info, tau, S)
        ex_sol = exact_lp_solution(fixed)
        adm = None
        if ex_sol is not None:
            adm = _admitted_schedule(instance, info, tau, ex_sol.x, None)
        if adm is None:
            fsol = HighsModel(fixed, algorithm="simplex",
                              options={"primal_feasibility_tolerance": 1e-10,
                                       "dual_feasibility_tolerance": 1e-10}).run()
            xs = fsol.x if fsol.status == "optimal" and fsol.x is not None else sol.x[:X]
            for max_den in (10 ** 6, None):
                adm = _admitted_schedule(instance, info, tau, xs, max_den)
                if adm is not None:
                    break
        if adm is None:
            # the amounts break a capacity by rounding: keep them as floats
            exact_parts = False
            adm = _admitted_schedule_float(instance, info, tau, xs)
        parts.append(adm)
    t1 = time.perf_counter()
    rest = np.setdiff1d(np.arange(K), S)
    if rest.size:
        parts.append(_rest_schedule(instance, rest, float(tau[-1])))
    sched = concatenate(parts, meta={"algorithm": "deadline-mip",
                                     "admitted": [int(k) for k in S]})
    mode = verify_mode if exact_parts else "float"
    if mode == "float":
        sched = sched.to_float()
    rep = verify_schedule(instance, sched, mode=mode)
    t2 = time.perf_counter()
    timings = {"mip": t1 - t0, "schedule_and_verify": t2 - t1}
    extra.update({"admitted": [int(k) for k in S], "mip_status": mip_status,
                  "mip_value": mip_value, "mip_bound": mip_bound})
    if not rep.ok:
        return Result(value=None, kind=None, objective=obj_name, status="rejected",
                              algorithm="deadline-mip", params=params, schedule=sched,
                              report=rep, bound=mip_bound, solver=solver, timings=timings,
                              extra=extra, message=rep.summary())
    met = np.asarray(rep.deadline_met, dtype=bool)
    if objective == "count":
        value: Any = int(np.sum(met))
        bound: Any = int(math.floor(mip_bound + 1e-6)) if math.isfinite(mip_bound) else None
        tol = 0.0
    else:
        value = math.fsum(instance.weight[met].tolist())
        bound = mip_bound if math.isfinite(mip_bound) else None
    # relative only (OPTIMALITY_RTOL): the label must not depend on the weights' unit
    proved = mip_status == "optimal" and bound is not None and \
        within_optimality_tolerance(value, bound, sense="max")
    gap = None if bound is None else relative_gap(value, bound, sense="max")
    kind = "optimal" if proved else "feasible"
    status = "optimal" if proved else (mip_status if mip_status != "optimal" else
                                       "bound_not_attained")
    msg = (f"{'optimal' if proved else status}: {value} deadline(s) met "
           f"({'weight' if objective == 'weight' else 'count'}), MIP bound {bound}; schedule "
           f"verified {rep.mode}")
    return Result(value=value, kind=kind, objective=obj_name, status=status,
                          algorithm="deadline-mip", params=params, schedule=sched, report=rep,
                          bound=bound, incumbent=value, gap=gap, solver=solver,
                          certificate={"mip_status": mip_status, "mip_bound": mip_bound,
                                       "proof": "HiGHS MIP (floating-point tolerances)"},
                          certificate_status="proved (MIP)" if proved else "open",
                          timings=timings, extra=extra, message=msg)


def _admitted_schedule_float(instance: Instance, info: dict, tau: np.ndarray, x: np.ndarray
                             ) -> Schedule:
    g = info["groups"]
    J_all, jj, gg = info["pairs"], info["jj"], info["gg"]
    keep = x > 1e-11 * g.size[J_all][jj]
    fl, st, en, rt = [], [], [], []
    for j, gi, a in zip(jj[keep].tolist(), gg[keep].tolist(), x[keep].tolist()):
        pj = J_all[j]
        rate = a / (tau[gi + 1] - tau[gi])
        for f in g.flows[g.ptr[pj]:g.ptr[pj + 1]].tolist():
            fl.append(f)
            st.append(float(tau[gi]))
            en.append(float(tau[gi + 1]))
            rt.append(rate * float(instance.flow_size[f]) / float(g.size[pj]))
    return Schedule.from_pieces(fl, st, en, rt)
