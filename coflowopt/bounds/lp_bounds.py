"""LP lower bounds: ordering LP, time-indexed LP, interval-indexed LP, LP-OV.

Each function builds its LP (:mod:`coflowopt.formulations`), solves it (HiGHS by default; any
backend of :mod:`coflowopt.formulations.backends`), and reports the figure its dual certifies in
exact arithmetic (:func:`~.common.certified_result`).  A time limit or a solver failure gives
a status and the best certified information, never a crash or an uncertified number.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from ..limits import check_integer, check_number
from ..registry import register
from ..results import Result
from ..formulations.backends import check_dual_backend, solve_lp
from ..formulations.certificates import LPCertificate, normalised, time_factor, unit_factor
from ..formulations.interval_lp import build_interval_lp, interval_grid
from ..formulations.linear_program import BuildDeadline
from ..formulations.lp_ov import build_lp_ov
from ..formulations.ordering_lp import LAGRANGIAN_ITERATIONS, solve_ordering_lp

#: From this many coflows on, ``ordering-lp`` with ``method="auto"`` bounds the LP by its
#: Lagrangian dual instead of solving it (uniform_random on 150 x 150 ports: cutting planes
#: 4 s at 1,000 coflows, 84 s at 2,000, not converged in minutes at 5,000).
AUTO_LAGRANGIAN_COFLOWS = 5000
from ..formulations.time_indexed import (build_time_indexed, default_grid, flow_groups,
                                         safe_horizon)
from .common import certified_result, check_objective, check_time_limit, uncertified_result

__all__ = ["ordering_lp_bound", "time_indexed_lp_bound", "interval_lp_bound", "lp_ov_bound",
           "solve_and_certify"]

#: ``crossover="auto"`` switches crossover on up to this many non-zeros.
CROSSOVER_AUTO_NNZ = 500_000

_LP_TAGS = ("certificate", "weights", "release_dates", "heterogeneous_capacities",
            "needs_solver")


def resolve_crossover(crossover, lp) -> bool:
    """``crossover`` as a bool: ``"auto"`` is on up to :data:`CROSSOVER_AUTO_NNZ` non-zeros of
    ``lp``; anything but True, False or "auto" is refused (a name such as "off" was truthy,
    and ran crossover), before the solver starts."""
    if crossover == "auto":
        return lp.A.nnz <= CROSSOVER_AUTO_NNZ
    if not isinstance(crossover, (bool, np.bool_)):
        raise InvalidParameterError(f"crossover must be true, false or \"auto\", got "
                                    f"{crossover!r}")
    return bool(crossover)


def _ran_out_building(algorithm_name: str, objective: str, params: dict, timings: dict,
                      extra: dict | None) -> Result:
    """No bound: the time limit ran out while the LP was built."""
    return uncertified_result(algorithm=algorithm_name, objective=objective,
                              status="time_limit", params=params, solver={}, timings=timings,
                              extra=dict(extra or {}),
                              reason="the time limit ran out while building the LP")


def solve_and_certify(instance: Instance, lp, *, algorithm_name: str, formulation: str,
                      cert_params: dict, objective: str, params: dict, backend: str,
                      algorithm: str | None, crossover, time_limit: float | None,
                      export: str | None, timings: dict, extra: dict | None = None,
                      order_block: str | None = None) -> Result:
    """Solve ``lp`` with ``backend`` and certify its row duals (shared by the one-shot LPs).

    ``order_block`` names the column block of the completion times (``"f"`` in LP-OV): their
    order (ties by index) goes to ``extra["lp_order"]``, the LP-guided order the ordering of
    the same name computes (a heuristic start, not part of the certificate).

    ``crossover="auto"`` runs HiGHS's crossover after the IPM when the LP has at most
    :data:`CROSSOVER_AUTO_NNZ` non-zeros: an IPM dual without crossover is feasible after
    repair but only optimal to about 1e-7 relative, which the certified figure then loses.
    """
    check_dual_backend(backend, algorithm_name)
    crossover = resolve_crossover(crossover, lp)
    if time_limit is not None:
        # the limit covers the whole bound: building the LP has used part of it
        time_limit = time_limit - sum(timings.values())
        if time_limit <= 0:
            return _ran_out_building(algorithm_name, objective, params, timings, extra)
    t0 = time.perf_counter()
    sol = solve_lp(lp, backend, algorithm=algorithm, crossover=crossover,
                   time_limit=time_limit, export=export)
    timings["solve"] = time.perf_counter() - t0
    extra = dict(extra or {})
    extra.update({"lp": lp.summary(), "iterations": sol.iterations,
                  "raw_status": sol.raw_status})
    if order_block is not None and sol.x is not None:
        f = np.asarray(lp.col_block(order_block, sol.x), dtype=float)
        extra["lp_order"] = np.lexsort((np.arange(f.size), f)).tolist()
    if sol.row_dual is None:
        return uncertified_result(algorithm=algorithm_name, objective=objective,
                                  status=sol.status, params=params, solver=sol.solver,
                                  timings=timings, extra=extra,
                                  claimed=None if sol.objective is None else
                                  sol.objective * float(unit_factor(cert_params.get("unit"))),
                                  reason=f"the solver returned no dual solution (status "
                                         f"{sol.status}: {sol.raw_status})")
    # the LP is in the certificate's units (cert_params["unit"]); claims are in the instance's
    claimed = None if sol.objective is None else \
        sol.objective * float(unit_factor(cert_params.get("unit")))
    cert = LPCertificate(formulation=formulation, params=cert_params, row_duals=sol.row_dual,
                         claimed_value=claimed,
                         source=f"{sol.solver.get('name')}:{sol.solver.get('algorithm')}")
    return certified_result(instance, cert, algorithm=algorithm_name, objective=objective,
                            status=sol.status, params=params, solver=sol.solver,
                            timings=timings, extra=extra)


# ----------------------------------------------------------------------------- ordering LP
@register("bound", "ordering-lp", summary="ordering LP with the parallel inequalities of every "
          "resource (port of a big switch, link of a topology; and release thresholds), cutting "
          "planes with the exact greedy oracle; from 5,000 coflows (method='auto') a certified "
          "dual from the Lagrangian dual of the ports instead, a lower bound on the LP",
          reference="Queyranne (1993); Sincronia tech report section 9 LP-primal (1)-(3), "
          "Lemma 1; formulations/ordering_lp.md",
          guarantee="valid lower bound on the fluid optimum (per resource, any paths); >= "
                    "bssi-dual, port, isolated (proved); on the big switch OPT <= 4 x (zero "
                    "releases) / 5 x this bound (Sincronia), on paths of at most L resources "
                    "2L x / (2L+1) x (proofs/resource-model-guarantees.md)",
          tags=_LP_TAGS)
def ordering_lp_bound(instance: Instance, *, objective: str = "weighted_completion_time",
                      release_cuts: bool = True, tol: float = 1e-7, max_rounds: int = 500,
                      initial: str = "bssi", time_limit: float | None = None,
                      export: str | None = None, method: str = "auto",
                      lagrangian_iterations: int = LAGRANGIAN_ITERATIONS) -> Result:
    """The ordering-LP bound by cutting planes (:func:`~coflowopt.formulations.ordering_lp.
    solve_ordering_lp`).

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    release_cuts : bool
        Add the release-threshold parallel inequalities (with releases only).
    tol : float
        Relative violation at which the cutting-plane loop stops.
    max_rounds : int
        Cutting-plane rounds at most; a loop stopped here still certifies its last
        restricted LP (a valid, weaker bound).
    initial : {"bssi", "full"}
        Initial rows: the full set of every resource, plus BSSI's primal-dual sets with
        ``"bssi"`` (a warm start at least as large as the BSSI dual bound).
    time_limit : float, optional
        Seconds; on the limit the last optimal restricted LP (``"lagrangian"``: the best
        iterate) is certified (a valid, weaker bound) and the status is ``"time_limit"``.
    export : str, optional
        Write the final restricted LP (``.lp`` / ``.mps``).
    method : {"auto", "cutting-planes", "lagrangian"}
        ``"cutting-planes"``: the LP solved by cutting planes.  ``"lagrangian"``: no LP is
        solved; the Lagrangian dual of the ports is ascended from BSSI's dual
        (:func:`~coflowopt.formulations.ordering_lp.lagrangian_dual`) and certified: a lower
        bound on the LP optimum (status ``iteration_limit`` or ``time_limit``, never
        ``optimal``), at least bssi-dual.  ``"auto"``: ``"lagrangian"`` from
        :data:`AUTO_LAGRANGIAN_COFLOWS` coflows on (the cutting planes take 84 s at 2,000
        random coflows and do not converge in minutes at 5,000), else cutting planes.
    lagrangian_iterations : int
        Iterations of the Lagrangian dual.

    Returns
    -------
    Result
        ``extra``: rounds, cuts, ``converged``, the LP completion times' order (cutting
        planes), ``method``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> ts4 = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
    ...                              Coflow("B", [(0, 0, 9)]),
    ...                              Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    >>> round(float(ordering_lp_bound(ts4).value), 9)
    32.0
    """
    check_objective(objective)
    if time_limit is not None:
        check_time_limit(time_limit)
    if method not in ("auto", "cutting-planes", "lagrangian"):
        raise InvalidParameterError(f"method must be 'auto', 'cutting-planes' or "
                                    f"'lagrangian', got {method!r}")
    if method == "auto":
        method = ("lagrangian" if instance.num_coflows >= AUTO_LAGRANGIAN_COFLOWS
                  else "cutting-planes")
    params = {"objective": objective, "release_cuts": release_cuts, "tol": tol,
              "max_rounds": max_rounds, "initial": initial, "time_limit": time_limit,
              "method": method}
    if method == "lagrangian":
        params["lagrangian_iterations"] = lagrangian_iterations
    sol = solve_ordering_lp(instance, release_cuts=release_cuts, tol=tol,
                            max_rounds=max_rounds, time_limit=time_limit, initial=initial,
                            export=export, method=method,
                            lagrangian_iterations=lagrangian_iterations)
    fallback = None
    if method == "cutting-planes" and sol.rounds == 0 and initial == "bssi" and \
            sol.status not in ("time_limit",):
        # Seen on the 2,000- and 4,000-coflow upsampled FB traces: HiGHS's dual simplex
        # declares the first restricted LP (full sets + BSSI's prefixes) "unbounded", which a
        # minimisation with C >= 0 and w >= 0 cannot be; the full-set start solves.  The
        # bound stays certified either way: the certificate is checked, not trusted.
        fallback = {"first_start": "bssi", "first_status": sol.status}
        sol = solve_ordering_lp(instance, release_cuts=release_cuts, tol=tol,
                                max_rounds=max_rounds, time_limit=time_limit, initial="full",
                                export=export)
    extra: dict[str, Any] = {"rounds": sol.rounds, "cuts": len(sol.cuts),
                             "converged": sol.converged, "history": sol.history,
                             "method": method}
    if fallback is not None:
        extra["fallback"] = fallback
    if sol.warm_start_skipped:
        extra["warm_start_skipped_entries"] = sol.warm_start_skipped
    if sol.certificate is None:
        return uncertified_result(algorithm="ordering-lp", objective=objective,
                                  status=sol.status, params=params, solver=sol.solver,
                                  timings=sol.timings, extra=extra,
                                  reason=f"no restricted LP was solved to optimality "
                                         f"(status {sol.status})")
    if sol.C is not None:
        extra["lp_order"] = np.lexsort((np.arange(instance.num_coflows), sol.C)).tolist()
    else:
        extra["dual_from"] = sol.certificate.source      # "bssi" or "lagrangian"
    status = sol.status if not sol.converged else "optimal"
    res = certified_result(instance, sol.certificate, algorithm="ordering-lp",
                           objective=objective, status=status, params=params,
                           solver=sol.solver, timings=sol.timings, extra=extra)
    if method == "lagrangian" and res.kind is not None:
        res.message += (f"; no LP was solved: the figure is a dual solution of the ordering LP "
                        f"from {sol.certificate.source}"
                        + (" (Lagrangian dual of the ports ascended from BSSI's dual, "
                           f"{sol.solver.get('iterations')} iterations, stopped on "
                           f"{sol.status})" if sol.certificate.source == "lagrangian"
                           else f" (BSSI's dual, stopped on {sol.status})")
                        + ", a lower bound on the LP optimum, not the optimum")
    elif sol.C is None and res.kind is not None:
        res.message += (f"; no restricted LP was solved before the limit ({sol.status}): the "
                        "figure is BSSI's dual, a dual solution of the ordering LP (as "
                        "bssi-dual)")
    elif not sol.converged and res.kind is not None:
        res.message += (f"; the cutting-plane loop stopped before convergence ({sol.status}): "
                        "the figure is the bound of the restricted LP")
    return res


# ----------------------------------------------------------------------------- time-indexed
@register("bound", "time-indexed-lp", summary="time-indexed LP (Varys appendix Eqs. 2-5) with "
          "slots of length delta, completion rows of mean-busy-time type and an overflow slot",
          reference="Varys (SIGCOMM 2014) appendix A Eqs. (2)-(5); Chowdhury dissertation "
          "App. B.1; formulations/time_indexed.md",
          guarantee="model='fluid' (default): valid lower bound on the fluid optimum for every "
                    "slot and horizon; model='slotted': lower bound on the slotted optimum only",
          tags=_LP_TAGS + ("slow",))
def time_indexed_lp_bound(instance: Instance, *, objective: str = "weighted_completion_time",
                          slot: float | None = None, horizon: float | str | None = None,
                          model: str = "fluid", overflow: bool = True,
                          mean_busy_time: bool = True, backend: str = "highs",
                          algorithm: str | None = "ipm", crossover: bool | str = "auto",
                          time_limit: float | None = None, export: str | None = None,
                          max_nonzeros: int = 20_000_000) -> Result:
    """The time-indexed LP bound.

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    slot : float, optional
        Slot length delta (default: a power of two giving about 48 slots).
    horizon : float or "safe", optional
        End of the last capacity-limited slot.  Default: the greedy FIFO makespan.  ``"safe"``:
        :func:`~coflowopt.formulations.time_indexed.safe_horizon` (then ``overflow=False`` is
        allowed).  With the overflow slot any horizon gives a valid bound.
    model : {"fluid", "slotted"}
        What the bound bounds (module docstring of :mod:`~coflowopt.formulations.time_indexed`).
    overflow : bool
        Add the unbounded last slot ``[b_T, inf)`` (needed for validity unless the horizon is
        at least the safe horizon).
    mean_busy_time : bool
        Add the mean-busy-time completion rows (stronger; fluid model).
    backend, algorithm, crossover : str, str, bool or "auto"
        Solver choice; default HiGHS IPM (solver-interfaces.md section 4.1), crossover
        ``"auto"`` (on for LPs up to 500k non-zeros).
    time_limit : float, optional
        Seconds for building and solving the LP.  A build past the limit (LP-OV's stops at its
        next checkpoint, the others' when done) answers ``status="time_limit"`` with no bound.
        The exact check of the certificate comes after and is not cut short: at 10^7
        non-zeros it can take longer than the solve (LP-OV at 3,000 coflows on 10x10, 9.4 M
        non-zeros: 72 s).
    export : str, optional
        Write the LP (HiGHS backend).
    max_nonzeros : int
        Refuse (``NotSupportedError``) an LP with more estimated non-zeros.
    """
    check_objective(objective)
    if time_limit is not None:
        check_time_limit(time_limit)
    check_integer(max_nonzeros, "max_nonzeros", 1)   # 0 or -1: every LP "too large"
    if slot is not None:   # the user's value, before the units and the default horizon's greedy run
        check_number(slot, "slot", 0.0, lo_open=True)
    t0 = time.perf_counter()
    # built in the LP's units (HiGHS's tolerances are absolute); slot and horizon converted
    inst_u, unit = normalised(instance)
    tf = time_factor(unit)
    G = flow_groups(instance).num_groups
    # non-zeros per flow group and slot: 7 on a big switch (two capacity entries, three
    # cumulative, two linking); over resources one capacity entry per resource of the path
    per = 7 if instance.is_big_switch else 5 + int(np.ceil(instance.path_length.mean()))
    if slot is None:
        # the default slot, a power of two within sqrt(2) of horizon / 48, gives at least 34
        # slots: refuse an LP that is too large before the default horizon's greedy run (15 s
        # on a 200,000-flow coflow, not interruptible by time_limit)
        est = per * G * 35 + instance.num_coflows * 34
        if est > max_nonzeros:
            raise NotSupportedError(
                f"time-indexed LP too large: at least {est} non-zeros ({G} flow groups x 34 "
                f"or more slots) > max_nonzeros={max_nonzeros}; use a larger slot, or the "
                "interval-lp / ordering-lp bounds")
    if not (horizon is None or horizon == "safe" or (isinstance(horizon, (int, float))
                                                      and not isinstance(horizon, bool))):
        raise InvalidParameterError(f"horizon must be a time > 0 or 'safe', got {horizon!r}")
    if horizon == "safe":
        horizon = safe_horizon(inst_u)
    elif horizon is not None:
        horizon = horizon / tf
    grid = default_grid(inst_u, slot=None if slot is None else slot / tf, horizon=horizon)
    est = per * G * (grid.T + 1) + instance.num_coflows * grid.T
    if est > max_nonzeros:
        raise NotSupportedError(
            f"time-indexed LP too large: about {est} non-zeros ({G} flow groups x {grid.T} "
            f"slots) > max_nonzeros={max_nonzeros}; use a larger slot, or the interval-lp / "
            "ordering-lp bounds")
    lp = build_time_indexed(inst_u, grid, model=model, overflow=overflow,
                            mean_busy_time=mean_busy_time)
    timings = {"build": time.perf_counter() - t0}
    cert_params = {"slot": grid.delta, "slots": grid.T, "model": model,
                   "overflow": bool(lp.meta["overflow"]), "mean_busy_time": mean_busy_time,
                   "unit": unit}
    params = {"objective": objective, "slot": grid.delta * tf,
              "horizon": float(lp.meta["horizon"]) * tf,
              "slots": grid.T, "model": model, "overflow": bool(lp.meta["overflow"]),
              "mean_busy_time": mean_busy_time, "backend": backend, "algorithm": algorithm,
              "time_limit": time_limit}
    res = solve_and_certify(instance, lp, algorithm_name="time-indexed-lp",
                            formulation="time-indexed-lp", cert_params=cert_params,
                            objective=objective, params=params, backend=backend,
                            algorithm=algorithm, crossover=crossover, time_limit=time_limit,
                            export=export, timings=timings,
                            extra={"bounds_model": "fluid optimum" if model == "fluid" else
                                   "slotted optimum (NOT the fluid optimum)"})
    if model == "slotted" and res.kind is not None:
        res.message = ("certified lower bound on the optimum of the SLOTTED model (slot "
                       f"{grid.delta * tf}), not on the fluid optimum")
    return res


#: The solver parameters of the one-shot LP bounds (substituted into their docstrings).
_SOLVER_PARAMS = '''    backend : str, default "highs"
        LP backend with row duals (:data:`coflowopt.formulations.backends.DUAL_BACKENDS`).
    algorithm : str, optional, default "ipm"
        HiGHS algorithm (``"ipm"``, ``"simplex"``, ``"pdlp"``).
    crossover : bool or "auto", default "auto"
        HiGHS crossover after the IPM; ``"auto"``: on for LPs with at most
        :data:`CROSSOVER_AUTO_NNZ` non-zeros (an IPM dual without crossover certifies a
        figure about 1e-7 relative below the LP optimum).
    time_limit : float, optional
        Seconds for building and solving the LP.  A build past the limit (LP-OV's stops at its
        next checkpoint, the others' when done) answers ``status="time_limit"`` with no bound.
        The exact check of the certificate comes after and is not cut short: at 10^7
        non-zeros it can take longer than the solve (LP-OV at 3,000 coflows on 10x10, 9.4 M
        non-zeros: 72 s).
    export : str, optional
        Write the LP to this ``.lp`` / ``.mps`` file (HiGHS backend).'''


# ----------------------------------------------------------------------------- interval LP
@register("bound", "interval-lp", summary="interval-indexed LP on geometric intervals "
          "(1+eps)^l with an overflow interval",
          reference="Qiu, Stein, Zhong (SPAA 2015); formulations/interval_lp.md",
          guarantee="valid lower bound on the fluid optimum for every grid",
          tags=_LP_TAGS)
def interval_lp_bound(instance: Instance, *, objective: str = "weighted_completion_time",
                      epsilon: float = 0.25, first: float | None = None,
                      last: float | None = None, backend: str = "highs",
                      algorithm: str | None = "ipm", crossover: bool | str = "auto",
                      time_limit: float | None = None, export: str | None = None) -> Result:
    """The interval-indexed LP bound (:mod:`coflowopt.formulations.interval_lp`).

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    epsilon : float > 0, default 0.25
        The intervals grow by ``1 + epsilon``; a finer grid gives a larger bound and a larger
        LP.
    first, last : float, optional
        First and last grid point (defaults: the smallest ``r_k + rho_k``; the makespan of
        running the coflows one after another); any grid gives a valid bound.
    SOLVER_PARAMETERS

    Returns
    -------
    Result
        ``kind="lower_bound"`` with a certificate checked in exact arithmetic.
    """
    check_objective(objective)
    if time_limit is not None:
        check_time_limit(time_limit)
    t0 = time.perf_counter()
    inst_u, unit = normalised(instance)
    tf = time_factor(unit)
    grid = interval_grid(inst_u, epsilon=epsilon, first=None if first is None else first / tf,
                         last=None if last is None else last / tf)
    lp = build_interval_lp(inst_u, grid)
    timings = {"build": time.perf_counter() - t0}
    params = {"objective": objective, "epsilon": epsilon, "intervals": grid.L,
              "backend": backend, "algorithm": algorithm, "time_limit": time_limit}
    return solve_and_certify(instance, lp, algorithm_name="interval-lp",
                             formulation="interval-lp",
                             cert_params={**grid.to_dict(), "unit": unit},
                             objective=objective, params=params, backend=backend,
                             algorithm=algorithm, crossover=crossover, time_limit=time_limit,
                             export=export, timings=timings)


# ----------------------------------------------------------------------------- LP-OV
def lp_ov_nonzeros(instance: Instance, ports: str = "used") -> int:
    """About how many non-zeros LP-OV has (``sum_q n_q^2`` with ``ports="used"``, ``n_q`` the
    coflows at resource ``q``), computed before building it."""
    counts = np.diff(np.asarray(instance.port_loads_sparse.tocsc().indptr)).astype(np.int64)
    return int(np.sum(counts ** 2)) if ports == "used" else \
        int(np.sum(counts) * instance.num_coflows)


@register("bound", "lp-ov", summary="ordering-variable LP (pairwise order variables, one row "
          "per coflow and resource)",
          reference="Shafiee, Ghaderi (IEEE/ACM ToN 2018); Luu's lpovls.m; "
          "formulations/lp_ov.md",
          guarantee="valid lower bound on the fluid optimum; >= ordering-lp without release "
                    "rows (proved)",
          tags=_LP_TAGS + ("slow",))
def lp_ov_bound(instance: Instance, *, objective: str = "weighted_completion_time",
                ports: str = "used", backend: str = "highs", algorithm: str | None = "ipm",
                crossover: bool | str = "auto", time_limit: float | None = None,
                export: str | None = None, max_nonzeros: int = 20_000_000) -> Result:
    """The LP-OV bound (:mod:`coflowopt.formulations.lp_ov`).

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    ports : {"used", "all"}, default "used"
        Write the row of coflow k at every port it uses, or at every port some coflow uses
        (stronger, larger).
    SOLVER_PARAMETERS
    max_nonzeros : int
        Refuse (``NotSupportedError``) an LP with more estimated non-zeros (the pairwise
        order variables grow as the square of the coflows per port).

    Returns
    -------
    Result
        ``kind="lower_bound"`` with a certificate checked in exact arithmetic.
    """
    check_objective(objective)
    if time_limit is not None:
        check_time_limit(time_limit)
    check_integer(max_nonzeros, "max_nonzeros", 1)   # 0 or -1: every LP "too large"
    t0 = time.perf_counter()
    est = lp_ov_nonzeros(instance, ports)
    if est > max_nonzeros:
        raise NotSupportedError(f"LP-OV too large: about {est} non-zeros > max_nonzeros="
                                f"{max_nonzeros}; use the ordering-lp bound")
    inst_u, unit = normalised(instance)
    params = {"objective": objective, "ports": ports, "backend": backend,
              "algorithm": algorithm, "time_limit": time_limit}
    try:
        lp = build_lp_ov(inst_u, ports=ports,
                         deadline=None if time_limit is None else t0 + time_limit)
    except BuildDeadline:
        return _ran_out_building("lp-ov", objective, params,
                                 {"build": time.perf_counter() - t0}, None)
    timings = {"build": time.perf_counter() - t0}
    return solve_and_certify(instance, lp, algorithm_name="lp-ov", formulation="lp-ov",
                             cert_params={"ports": ports, "unit": unit}, objective=objective,
                             params=params,
                             backend=backend, algorithm=algorithm, crossover=crossover,
                             time_limit=time_limit, export=export, timings=timings,
                             extra={"pairs": lp.meta["pairs"]}, order_block="f")


for _f in (interval_lp_bound, lp_ov_bound):
    _f.__doc__ = _f.__doc__.replace("    SOLVER_PARAMETERS", _SOLVER_PARAMS)
