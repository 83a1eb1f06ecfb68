"""Orderings and a policy built from LP solutions.

* ordering ``ordering-lp``: coflows by their completion time in the ordering LP
  (:mod:`.ordering_lp`), ties by ``r_k + rho_k`` then index;
* ordering ``lp-ov``: coflows by ``f_k`` in LP-OV (:mod:`.lp_ov`); with greedy order-preserving
  rates this is Shafiee and Ghaderi's LP-OV-LS ("LP with ordering variables, then list
  scheduling");
* policy ``qsz``: Qiu, Stein and Zhong's deterministic scheme: solve the interval-indexed LP
  (:mod:`.interval_lp`), order by LP completion time, cut the order into groups of
  geometrically growing LP completion time, and run each group as one aggregated demand, group
  after group.

A group with aggregated loads ``D^q`` finishes in exactly ``L = max_q D^q / c_q`` after it
starts (``q`` over the resources: the ports of a big switch, the links of a topology, ``D^q`` the
group's data on flows whose path contains ``q``): in the fluid model by serving every flow at the
constant rate ``d_f / L`` (MADD on the aggregate, the ``madd`` engine here, which loads every
resource with ``D^q / L <= c_q``), in a crossbar by a Birkhoff-von Neumann decomposition
(anchors-algorithms.md section 3.8; ``coflowopt.rates.bvn.bvn_group_schedule``, used when
installed, engine ``bvn``).  Both give every coflow of the group the completion time ``start +
L``; a group starts when the previous one has finished and all its coflows are released.

These registrations live here because the registry imports ``coflowopt.bounds`` (which imports
this module), not ``coflowopt.formulations``.

References
----------
Z. Qiu, C. Stein, Y. Zhong, SPAA 2015 (grouping and BvN, deterministic 67/3 with releases
after the correction reported by later papers; the grouping rule here is a reconstruction,
anchors-algorithms.md section 3.3 marks the details [R]); M. Shafiee, J. Ghaderi, IEEE/ACM ToN
2018 (LP-OV-LS).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError, SolverError
from ..instance import Instance
from ..registry import register
from ..schedule import Schedule
from .backends import solve_lp
from .certificates import normalised, time_factor
from .interval_lp import build_interval_lp, interval_grid, lp_completion_times
from .lp_ov import build_lp_ov
from .ordering_lp import isolation_lower_bounds, solve_ordering_lp

__all__ = ["ordering_lp_order", "lp_ov_order", "qsz", "qsz_windows", "group_schedule",
           "qsz_groups", "settled_columns"]


def _order_by(instance: Instance, C: np.ndarray) -> np.ndarray:
    iso, _ = isolation_lower_bounds(instance)
    return np.lexsort((np.arange(instance.num_coflows), iso, np.round(C, 12))).astype(np.int64)


@register("ordering", "ordering-lp", summary="by completion time in the ordering LP (parallel "
          "inequalities per resource, cutting planes)",
          reference="Queyranne (1993); Sincronia tech report section 9; Qiu-Stein-Zhong "
          "(SPAA 2015) LP ordering; formulations/ordering_lp.md",
          tags=("weights", "release_dates", "heterogeneous_capacities", "needs_solver"))
def ordering_lp_order(instance: Instance, *, release_cuts: bool = True,
                      time_limit: float | None = None) -> np.ndarray:
    """Coflows in order of their ordering-LP completion times.

    Parameters
    ----------
    instance : Instance
    release_cuts : bool
        Separate the release-threshold inequalities too.
    time_limit : float, optional
        For the cutting-plane loop (the last optimal restricted LP is used).

    Returns
    -------
    ndarray of int64

    Raises
    ------
    SolverError
        If no restricted LP could be solved.
    """
    sol = solve_ordering_lp(instance, release_cuts=release_cuts, time_limit=time_limit)
    if sol.C is None:
        raise SolverError(f"ordering LP not solved (status {sol.status})")
    # ties (rounded to 12 decimals) judged in the LP's units, where they were computed
    unit = sol.certificate.params.get("unit") if sol.certificate is not None else None
    return _order_by(instance, sol.C / time_factor(unit))


@register("ordering", "lp-ov", summary="by f_k in the ordering-variable LP (LP-OV); with "
          "greedy rates this is LP-OV-LS",
          reference="Shafiee, Ghaderi (IEEE/ACM ToN 2018); Luu's lpovls.m; "
          "formulations/lp_ov.md",
          guarantee="with greedy order-preserving rates: <= 4 OPT (zero releases), <= 5 OPT "
                    "with releases on the big switch (Shafiee-Ghaderi); on paths of at most L "
                    "resources <= 2L OPT / (2L+1) OPT (proofs/resource-model-guarantees.md, "
                    "statement 4)",
          tags=("weights", "release_dates", "heterogeneous_capacities", "needs_solver", "slow"))
def lp_ov_order(instance: Instance, *, ports: str = "used", time_limit: float | None = None
                ) -> np.ndarray:
    """Coflows in order of their LP-OV completion times ``f_k``.

    Parameters
    ----------
    instance : Instance
    ports : {"used", "all"}, default "used"
        Write the row of coflow k at every port it uses, or at every port some coflow uses
        (:func:`~coflowopt.formulations.lp_ov.build_lp_ov`; stronger, larger).
    time_limit : float, optional
        Seconds for HiGHS's IPM (no crossover: the order only needs the ``f_k``).

    Returns
    -------
    ndarray of int64
        Coflow indices by increasing ``f_k``, highest priority first.
    """
    # solved in the LP units (HiGHS's tolerances are absolute); an order has no unit
    inst_u, _ = normalised(instance)
    lp = build_lp_ov(inst_u, ports=ports)
    sol = solve_lp(lp, "highs", algorithm="ipm", crossover=False, time_limit=time_limit)
    if sol.x is None:
        raise SolverError(f"LP-OV not solved (status {sol.status}: {sol.raw_status})")
    return _order_by(inst_u, lp.col_block("f", sol.x))


#: Relative slack of a group cut: an LP completion time within this factor below
#: ``C_min * ratio^j`` counts as on the cut (the later group).  The LP is solved to ~1e-9
#: relative, so a coflow exactly on a cut would otherwise land on either side depending on the
#: solver's rounding, which changes with the instance's scale.
GROUP_CUT_RTOL = 1e-7


def qsz_groups(C: np.ndarray, order: np.ndarray, ratio: float) -> list[np.ndarray]:
    """Cut ``order`` where the LP completion time crosses ``C_min * ratio^j`` (within
    :data:`GROUP_CUT_RTOL`, relative)."""
    if not (ratio > 1 and math.isfinite(ratio)):
        raise InvalidParameterError(f"group_ratio must be a finite number > 1, got {ratio!r}")
    Cs = np.asarray(C, dtype=float)[order]
    base = max(float(Cs.min()), 1e-300)
    idx = np.floor(np.log(np.maximum(Cs, base) / base) / math.log(ratio)
                   + GROUP_CUT_RTOL / math.log(ratio))
    idx = np.maximum.accumulate(idx)          # the order is by C, so this is non-decreasing
    cuts = np.flatnonzero(np.diff(idx)) + 1
    return [np.asarray(g, dtype=np.int64) for g in np.split(order, cuts)]


def group_schedule(instance: Instance, groups: list[np.ndarray]) -> Schedule:
    """Run each group as one aggregated demand (MADD on the aggregate), group after group.

    Group ``g`` starts at ``max(end of group g-1, latest release in g)`` and lasts
    ``L_g = max_q D_g^q / c_q``; every flow of the group runs at ``d_f / L_g`` for the whole
    block, so every port carries at most its capacity and every coflow of the group completes
    at the end of the block.
    """
    loads = instance.port_loads_sparse
    cap = np.asarray(instance.capacity, dtype=float)
    fl, st, en, rt = [], [], [], []
    t = 0.0
    for g in groups:
        D = np.asarray(loads[g].sum(axis=0)).ravel()
        L = float(np.max(D / cap))
        start = max(t, float(instance.release[g].max()))
        end = start + L
        for k in g.tolist():
            f = np.arange(instance.flow_ptr[k], instance.flow_ptr[k + 1])
            fl.append(f)
            st.append(np.full(f.size, start))
            en.append(np.full(f.size, end))
            rt.append(instance.flow_size[f] / L)
        t = end
    return Schedule.from_pieces(np.concatenate(fl), np.concatenate(st), np.concatenate(en),
                                np.concatenate(rt))


@register("policy", "qsz", summary="Qiu-Stein-Zhong: interval-indexed LP, order by LP "
          "completion, geometric groups, each group as one aggregated (BvN/MADD) block",
          reference="Qiu, Stein, Zhong (SPAA 2015); anchors-algorithms.md section 3.3 (grouping "
                    "details reconstructed, [R]); formulations/interval_lp.md",
          guarantee="QSZ prove 64/3 (67/3 with releases, after correction) for their LP and "
                    "grouping; this reconstruction carries no proven ratio",
          tags=("weights", "release_dates", "heterogeneous_capacities", "needs_solver"))
def qsz(instance: Instance, *, epsilon: float = 0.25, group_ratio: float = 2.0,
        engine: str = "auto", time_limit: float | None = None) -> Schedule:
    """The QSZ policy (module docstring).

    Parameters
    ----------
    instance : Instance
    epsilon : float
        Interval growth of the LP grid.
    group_ratio : float
        Groups are the coflows whose LP completion time lies in ``(C_min r^(j-1), C_min r^j]``.
    engine : {"auto", "madd", "bvn"}
        How a group's aggregated demand is served (same completion times); ``auto`` uses
        ``coflowopt.rates.bvn.bvn_group_schedule`` when it exists, else ``madd``.  On an
        instance over resources ``auto`` is ``madd`` (every flow of a group at ``d_f / L_g``
        loads resource ``q`` with ``D_g^q / L_g <= c_q``); a Birkhoff-von Neumann
        decomposition is a big-switch (crossbar) notion, so ``bvn`` is refused there.
    time_limit : float, optional
        For the LP.

    Returns
    -------
    Schedule
        ``meta`` records the groups and the engine.
    """
    groups, bvn, meta = _qsz_plan(instance, epsilon, group_ratio, engine, time_limit)
    sched = bvn(instance, groups) if bvn is not None else group_schedule(instance, groups)
    return Schedule(sched.flow, sched.start, sched.end, sched.rate,
                    meta={**sched.meta, **meta})


def qsz_windows(instance: Instance, on_window, *, epsilon: float = 0.25,
                group_ratio: float = 2.0, engine: str = "auto",
                time_limit: float | None = None) -> dict:
    """:func:`qsz` handed over window by window, never held (``api.POLICY_WINDOWS``): the
    same LP and groups, then with the ``bvn`` engine
    :func:`coflowopt.rates.bvn.bvn_group_windows` (windows of the compiled engine's pieces);
    with ``madd`` the held schedule as one window.

    Parameters
    ----------
    instance, epsilon, group_ratio, engine, time_limit
        As for :func:`qsz`.
    on_window : callable
        ``on_window(schedule, start, end)``.

    Returns
    -------
    dict
        The statistics of :func:`coflowopt.rates.bvn.bvn_group_windows`.
    """
    groups, bvn, _ = _qsz_plan(instance, epsilon, group_ratio, engine, time_limit)
    if bvn is not None:
        from ..rates.bvn import bvn_group_windows
        return bvn_group_windows(instance, groups, on_window)
    from ..rates.bvn import _one_window
    return _one_window(group_schedule(instance, groups), on_window)


def settled_columns(lp) -> np.ndarray:
    """Columns of the interval LP (:func:`.interval_lp.build_interval_lp`) that equal 1 in
    every optimal solution, as a boolean mask over its columns.

    ``y_kl`` is settled when, for every ``l' >= l``, ``c_kl' < 0``, its upper bound is 1 and
    every capacity row in which ``y_kl'`` appears is redundant (its largest activity over the
    column bounds is at most its right-hand side, checked on the float LP with a margin that
    covers the rounding of the sum).  Raising ``y_kl'`` for all those ``l'`` to 1 keeps every
    row satisfied and lowers the objective unless they were all 1 already
    (``proofs/interval-lp-settled-columns.md``).  Fixing them (lower bound 1) therefore keeps
    the optimal value and the optimal face; it is the dominated-column reduction HiGHS 1.15's
    presolve made on this LP and 1.16's no longer makes (``experiments/results/
    qsz_profile.md``: IPX 2.6 times slower at 5,000 coflows without it).
    """
    K, L = lp.col_blocks["y"][2]
    r0, r1, (P, _) = lp.row_blocks["capacity"]
    cap = lp.csr()[r0:r1]
    hi = np.asarray(lp.col_hi, dtype=float)
    if cap.data.size and (cap.data.min() < 0 or np.asarray(lp.col_lo).min() < 0):
        return np.zeros(lp.num_cols, dtype=bool)     # not the interval LP's signs
    nnz = np.diff(cap.indptr)
    # the largest activity: every column at its upper bound; a float sum of n non-negative
    # terms is within (n - 1) u of the exact sum, relatively (u = 2^-53)
    most = (cap @ hi) * (1.0 + (nnz + 2) * 2.0 ** -52)
    redundant = (most <= np.asarray(lp.row_hi[r0:r1], dtype=float)).reshape(P, L)
    # redundant from interval l on, per port: a suffix "and"
    from_l = np.flip(np.logical_and.accumulate(np.flip(redundant, 1), 1), 1).ravel()
    pattern = cap.copy()
    pattern.data = np.ones_like(pattern.data)
    blocked = (pattern.T @ (~from_l).astype(float)) > 0      # a row not redundant from l on
    ok = ((np.asarray(lp.c) < 0) & (hi == 1.0) & ~blocked).reshape(K, L)
    return np.flip(np.logical_and.accumulate(np.flip(ok, 1), 1), 1).ravel()


def _qsz_plan(instance: Instance, epsilon: float, group_ratio: float, engine: str,
              time_limit: float | None):
    """The LP, its groups and the engine of :func:`qsz`: ``(groups, bvn_group_schedule or
    None for madd, meta)``."""
    if engine not in ("auto", "madd", "bvn"):
        raise InvalidParameterError(f"engine must be 'auto', 'madd' or 'bvn', got {engine!r}")
    if engine == "bvn" and not instance.is_big_switch:
        raise NotSupportedError("qsz engine='bvn' (a Birkhoff-von Neumann decomposition of a "
                                "crossbar) is defined on the big switch only; use "
                                "engine='madd' (or 'auto') on an instance over resources")
    inst_u, unit = normalised(instance)   # the LP in its units, C back in the instance's
    # only solved (no certificate): the float LP without its exact data, same to the last bit
    lp = build_interval_lp(inst_u, interval_grid(inst_u, epsilon=epsilon), exact=False)
    settled = settled_columns(lp)
    lp.col_lo = np.where(settled, 1.0, lp.col_lo)
    # "ipm" is IPX by name (HighsModel): with highspy-extras installed, HiGHS's own "ipm"
    # runs HiPO, slower on this LP and stopping at another point of its face (qsz_profile.md)
    sol = solve_lp(lp, "highs", algorithm="ipm", crossover=False, time_limit=time_limit)
    if sol.x is None:
        raise SolverError(f"interval LP not solved (status {sol.status}: {sol.raw_status})")
    C = lp_completion_times(inst_u, lp, sol.x) * time_factor(unit)
    order = _order_by(inst_u, C / time_factor(unit))
    groups = qsz_groups(C, order, group_ratio)
    bvn = None
    if engine in ("auto", "bvn") and instance.is_big_switch:
        try:
            from ..rates.bvn import bvn_group_schedule as bvn
        except ImportError:
            if engine == "bvn":
                raise InvalidParameterError("engine='bvn' needs coflowopt.rates.bvn."
                                            "bvn_group_schedule, which is not installed")
    used = "bvn" if bvn is not None else "madd"
    return groups, bvn, {"algorithm": "qsz", "engine": used,
                         "groups": [g.tolist() for g in groups], "epsilon": epsilon,
                         "group_ratio": group_ratio, "lp_status": sol.status,
                         "lp_objective": sol.objective, "lp_settled_columns": int(settled.sum()),
                         "lp_solver": {"name": "highs", "version": sol.solver.get("version"),
                                       "algorithm": "ipx", "crossover": False}}
