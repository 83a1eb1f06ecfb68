"""``slow-motion``: replay the fractional schedule of the fluid time-indexed LP at a random speed
``lambda`` (density ``2 lambda``).  A reconstruction (theory-frontier digest section 6.4) of the
randomised algorithm of Chowdhury, Khuller, Purohit, Yang and You (SPAA 2019), not the paper's
algorithm (whose body was not available).

Algorithm (``proofs/slow-motion.md`` proves the guarantee):

1. Solve the fluid time-indexed LP (:func:`coflowopt.formulations.time_indexed.build_time_indexed`,
   ``model="fluid"``) **without the overflow slot**, over a horizon ``b_T >=``
   :func:`~coflowopt.formulations.time_indexed.safe_horizon` (then it is still a lower bound on
   the fluid optimum, ``proofs/time_indexed_bound.md`` Theorems 1-2).  This LP is the digest's
   section-6 fluid-network LP in the single-path model (``formulations/fluid_network_lp.md``).
   Its amounts ``x[g,t]`` (flow group ``g``, slot ``t``) sent at the constant rate
   ``x[g,t] / Delta_t`` in every slot are a feasible fluid schedule up to releases inside a slot
   (the LP's *fractional schedule*).  ``F_g(tau)`` is the fraction of group ``g`` sent by LP time
   ``tau`` (piecewise linear), ``phi_k = min_{g of k} F_g``.
2. For ``lambda`` in (0, 1], the group's lambda-point is ``u_g(lambda) = min{tau : F_g(tau) >=
   lambda}`` and the coflow's ``tau_k(lambda) = max_{g of k} u_g(lambda)``.
3. **Replay** (slow motion): LP slot ``t`` runs during ``[(b_{t-1} + sigma) / lambda, (b_t +
   sigma) / lambda)`` at the LP's rates, ``sigma = max (r_k - b_{t-1})^+`` over the used
   ``(g, t)`` (0 when every release is a multiple of the slot, at most one slot): every rate
   vector was feasible in the LP, so it is feasible now; nothing is sent before a release.  A
   flow stops once it has its size: by time ``t'`` group ``g`` has ``X_g(lambda t' - sigma) /
   lambda``, so it completes at ``(u_g(lambda) + sigma) / lambda`` and coflow ``k`` at
   ``C_k(lambda) = (tau_k(lambda) + sigma) / lambda``.
4. ``compact=True`` (default) then compresses the replay phase by phase (Theorem 2 of
   ``proofs/time_indexed_bound.md``: cut at releases and coflow completions, send each phase's
   data at constant rates for the phase's load time, as early as the releases allow): no coflow
   completes later.  The compression is ours, not the digest's.
5. ``lambda``: drawn with density ``2 lambda`` (``seed``), given (``lam``), or, by default, the
   best breakpoint (deterministic): the cost ``sum_k w_k C_k(lambda)`` of the replay is
   evaluated at every breakpoint (the values of every ``F_g`` at slot ends and every crossing of
   two groups of a coflow inside a slot, where some ``tau_k`` changes slope or jumps), and the
   cheapest is replayed.  The exact expectation of the replay under the density ``2 lambda``
   is ``2 sum_k w_k (int_0^1 tau_k + sigma)``, computed over the same breakpoints (``tau_k`` is
   linear between them).

Guarantee (``proofs/slow-motion.md``; ``LP`` the LP solution's value, ``<=`` the fluid optimum
up to the solver's tolerance; ``delta`` the slot length; ``gamma >= 1`` the stretch that makes
the cleaned solution capacity-feasible, ``1 + O(1e-9)``):

    best piece <= E_{2 lambda}[replay] <= 2 gamma (LP + delta sum_k w_k) + 2 sigma sum_k w_k,

and with ``compact=True`` every schedule costs at most its replay.  Hence
``E[ALG] <= 2 OPT + 4 delta sum_k w_k`` (``+ 2 delta`` without releases off the grid): the
digest's randomized 2 up to the discretisation, never claimed without it.

References
----------
Theory-frontier digest (``../shared/reference/theory-frontier.md``) sections 6.3 (LP), 6.4 (the
slow-motion replay and its proof), 8.2 (FLUID-REPLAY invariants); S. Chowdhury, S. Khuller,
M. Purohit, S. Yang, J. You, "Near Optimal Coflow Scheduling in Networks", SPAA 2019 (arXiv
1906.06851): randomized 2 for the single-path and free-path models (claim read, algorithm not).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError, NotSupportedError, SolverError
from .instance import Instance
from .limits import check_integer, check_number
from .registry import register
from .schedule import Schedule
from ._index_ranges import concat_ranges

__all__ = ["slow_motion", "replay_lp", "ReplayLP", "slow_motion_pieces", "SlowMotionPieces",
           "replay_schedule", "compact_schedule", "lambda_points", "breakpoints"]

#: Refuse more than this many (group x breakpoint) evaluations or pairwise crossings.
MAX_EVALUATIONS = 20_000_000


@dataclass
class ReplayLP:
    """A solved, cleaned fluid time-indexed LP ready for replay (all in the LP's units).

    Attributes
    ----------
    inst_u : Instance
        The instance in the LP's units (:func:`coflowopt.formulations.certificates.normalised`).
    unit : dict
        The units (``time_factor`` / ``unit_factor`` convert back).
    groups : FlowGroups
    b : ndarray (T+1,)
        Slot ends, stretched by ``gamma``.
    x : ndarray (G, T)
        Cleaned amounts (each group's row sums to its size exactly).
    F : ndarray (G, T+1)
        ``F[g, t]``: fraction of group ``g`` sent by ``b[t]`` (``F[:, 0] = 0``, ``F[:, T] = 1``).
    gamma : float
        Stretch ``>= 1`` making the cleaned amounts capacity-feasible.
    sigma : float
        Release shift of the replay.
    delta : float
        The slot length (unstretched).
    lp_value : float
        ``sum_k w_k C_k`` of the solver's solution (instance units).
    bound : Result
        The certified bound of this LP (``time-indexed-lp``, ``overflow=False``).
    """

    inst_u: Instance
    unit: dict
    groups: Any
    b: np.ndarray
    x: np.ndarray
    F: np.ndarray
    gamma: float
    sigma: float
    delta: float
    lp_value: float
    bound: Any = field(repr=False, default=None)

    @property
    def T(self) -> int:
        return int(self.x.shape[1])

    @property
    def time_factor(self) -> float:
        from .formulations.certificates import time_factor
        return time_factor(self.unit)

    @property
    def cost_factor(self) -> float:
        from .formulations.certificates import unit_factor
        return float(unit_factor(self.unit))

    def left_sums(self) -> np.ndarray:
        """Per coflow ``sum_t Delta_t (1 - Z[k, t-1])``, ``Z = min_g F`` (stretched units): the
        left Riemann sum that bounds ``int_0^1 tau_k`` (proof, step 2)."""
        K = self.inst_u.num_coflows
        Z = np.ones((K, self.T + 1))
        np.minimum.at(Z, self.groups.coflow, self.F)
        return (np.diff(self.b)[None, :] * (1.0 - Z[:, :-1])).sum(axis=1)


def replay_lp(instance: Instance, *, slot: float | None = None, target_slots: int = 48,
              objective: str = "weighted_completion_time",
              time_limit: float | None = None) -> ReplayLP:
    """Solve and certify the fluid time-indexed LP without overflow over the safe horizon and
    clean its solution for replay (module docstring, step 1).

    Parameters
    ----------
    instance : Instance
    slot : float, optional
        Slot length in the instance's time unit (default: a power of two giving about
        ``target_slots`` slots up to the safe horizon).
    target_slots : int
    objective : str
        For the certified bound's figure.
    time_limit : float, optional
        Seconds for the LP.

    Raises
    ------
    SolverError
        When the LP gives no optimal primal solution.
    """
    from .bounds.common import certified_result
    from .formulations.backends import solve_lp
    from .formulations.certificates import LPCertificate, normalised, time_factor, unit_factor
    from .formulations.time_indexed import (TimeGrid, build_time_indexed, default_grid,
                                            flow_groups, safe_horizon)
    if slot is not None:   # the user's value, before it is converted to the LP's units
        check_number(slot, "slot", 0.0, lo_open=True)
    t0 = time.perf_counter()
    inst_u, unit = normalised(instance)
    tf = time_factor(unit)
    H = safe_horizon(inst_u)
    grid = default_grid(inst_u, slot=None if slot is None else slot / tf, horizon=H,
                        target_slots=target_slots)
    if grid.bounds[-1] < H:                   # default_grid's ceil allows 1e-12 below
        grid = TimeGrid(delta=grid.delta, T=grid.T + 1)
    groups = flow_groups(inst_u)
    if groups.num_groups * grid.T > MAX_EVALUATIONS // 8:
        raise NotSupportedError(f"slow-motion's LP too large: {groups.num_groups} flow groups x "
                                f"{grid.T} slots; use a larger slot")
    lp = build_time_indexed(inst_u, grid, model="fluid", overflow=False)
    timings = {"build": time.perf_counter() - t0}
    t1 = time.perf_counter()
    sol = solve_lp(lp, "highs", algorithm="ipm", crossover=True, time_limit=time_limit)
    timings["solve"] = time.perf_counter() - t1
    if sol.x is None or sol.row_dual is None or sol.status != "optimal":
        raise SolverError(f"slow-motion: the time-indexed LP gave no optimal solution "
                          f"(status {sol.status}: {sol.raw_status})")
    cert_params = {"slot": grid.delta, "slots": grid.T, "model": "fluid", "overflow": False,
                   "mean_busy_time": True, "unit": unit}
    uf = float(unit_factor(unit))
    cert = LPCertificate(formulation="time-indexed-lp", params=cert_params,
                         row_duals=sol.row_dual, claimed_value=sol.objective * uf,
                         source=f"{sol.solver.get('name')}:{sol.solver.get('algorithm')}")
    bound = certified_result(instance, cert, algorithm="time-indexed-lp", objective=objective,
                             status=sol.status,
                             params={"objective": objective, "slot": grid.delta * tf,
                                     "horizon": float(grid.bounds[-1]) * tf, "slots": grid.T,
                                     "model": "fluid", "overflow": False,
                                     "mean_busy_time": True},
                             solver=sol.solver, timings=timings,
                             extra={"bounds_model": "fluid optimum"})
    D = groups.size
    x = np.maximum(np.asarray(lp.col_block("x", sol.x), dtype=float), 0.0)
    # solver crumbs (within its feasibility tolerance) would make a flow "finish" in a late slot
    x[x <= 1e-10 * D[:, None]] = 0.0
    tot = x.sum(axis=1)
    if np.any(tot <= 0):
        raise SolverError("slow-motion: the LP solution sends nothing for some flow group")
    x *= (D / tot)[:, None]
    T = grid.T
    eg, er = groups.resource_entries()
    load = np.zeros((inst_u.num_resources, T))
    np.add.at(load, er, x[eg])
    delta_t = np.diff(grid.bounds)
    cap = np.asarray(inst_u.capacity, dtype=float)
    gamma = float(max(1.0, np.max(load / (cap[:, None] * delta_t[None, :]))))
    b = grid.bounds * gamma
    F = np.zeros((groups.num_groups, T + 1))
    F[:, 1:] = np.minimum(np.cumsum(x, axis=1) / D[:, None], 1.0)
    # a group is complete at the end of its last slot with data (the float sums may stop at
    # 1 - 1e-16 there, which would move its lambda-point for lambda = 1 to the horizon)
    last = T - np.argmax(x[:, ::-1] > 0, axis=1)
    F[np.arange(T + 1)[None, :] >= last[:, None]] = 1.0
    rel = np.asarray(inst_u.release, dtype=float)[groups.coflow]
    used_g, used_t = np.nonzero(x > 0)
    sigma = float(max(0.0, np.max(rel[used_g] - b[used_t]))) if used_g.size else 0.0
    C = np.asarray(lp.col_block("C", sol.x), dtype=float)
    return ReplayLP(inst_u=inst_u, unit=unit, groups=groups, b=b, x=x, F=F, gamma=gamma,
                    sigma=sigma, delta=float(grid.delta), lp_value=float(inst_u.weight @ C) * uf,
                    bound=bound)


def _group_points(rlp: ReplayLP, lam: np.ndarray, right: bool = False) -> np.ndarray:
    """``u_g(lambda)`` (``right``: the right limit ``u_g(lambda+)``) for every group and every
    ``lambda`` (shape ``(G, n)``), stretched LP time."""
    F, b = rlp.F, rlp.b
    G, T1 = F.shape
    lam = np.asarray(lam, dtype=float)
    off = 2.0 * np.arange(G)
    flat = (F + off[:, None]).ravel()               # rows in [2g, 2g+1]: one sorted array
    q = lam[None, :] + off[:, None]
    idx = np.searchsorted(flat, q.ravel(), side="right" if right else "left").reshape(q.shape)
    t = idx - (np.arange(G) * T1)[:, None]
    t = np.clip(t, 1, T1 - 1)
    g = np.arange(G)[:, None]
    f0, f1 = F[g, t - 1], F[g, t]
    frac = np.clip((lam[None, :] - f0) / np.where(f1 > f0, f1 - f0, 1.0), 0.0, 1.0)
    return b[t - 1] + (b[t] - b[t - 1]) * frac


def lambda_points(rlp: ReplayLP, lam, right: bool = False) -> np.ndarray:
    """``tau_k(lambda) = max_{g of k} u_g(lambda)`` for every coflow, shape ``(K, n)``."""
    u = _group_points(rlp, np.atleast_1d(lam), right)
    out = np.zeros((rlp.inst_u.num_coflows, u.shape[1]))
    np.maximum.at(out, rlp.groups.coflow, u)
    return out


def breakpoints(rlp: ReplayLP) -> np.ndarray:
    """Every ``lambda`` in (0, 1] where some ``tau_k`` may change slope or jump, ascending,
    ending with 1: the values ``F[g, t]`` and the crossings of two groups of one coflow inside
    a slot (``F_g`` and ``F_h`` are linear there; ``tau_k`` is the upper envelope of the
    inverses, so its kinks are at such crossings)."""
    F = rlp.F
    vals = [F[(F > 0.0) & (F < 1.0)]]
    gk = rlp.groups.coflow
    total = 0
    for k in np.unique(gk).tolist():
        gs = np.flatnonzero(gk == k)
        if gs.size < 2:
            continue
        total += gs.size * gs.size * (F.shape[1] - 1)
        if total > MAX_EVALUATIONS:
            raise NotSupportedError("slow-motion: too many flow groups per coflow for the "
                                    "exact breakpoints (use fewer slots)")
        A = F[gs, :-1]
        S = np.diff(F[gs], axis=1)
        dS = S[:, None, :] - S[None, :, :]
        dA = A[None, :, :] - A[:, None, :]          # A_h - A_g at [g, h]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = dA / dS
            ok = (dS != 0) & (u > 0) & (u < 1)
            lam = (A[:, None, :] + S[:, None, :] * np.where(ok, u, 0.0))[ok]
        vals.append(lam[(lam > 0) & (lam < 1)])
    v = np.unique(np.concatenate(vals))
    return np.r_[v, 1.0]


@dataclass
class SlowMotionPieces:
    """The replay's cost at every breakpoint and its exact expectation (LP solution ``rlp``).

    Attributes
    ----------
    ends : ndarray
        The breakpoints (``lambda`` values, ascending, last 1).
    costs : ndarray
        ``sum_k w_k C_k(lambda)`` of the replay at each breakpoint (instance units).
    best : int
        Index of the cheapest (first among equals).
    expectation : float
        ``E_{2 lambda}[sum_k w_k C_k]`` of the replay, exact up to float rounding.
    riemann_bound : float
        ``2 sum_k w_k (sum_t Delta_t (1 - Z[k,t-1]) + sigma)``: ``>= expectation`` (proof).
    guarantee : float
        ``2 gamma (LP + delta sum_k w_k) + 2 sigma sum_k w_k`` with the LP solution's value.
    """

    rlp: ReplayLP
    ends: np.ndarray
    costs: np.ndarray
    best: int
    expectation: float
    riemann_bound: float
    guarantee: float


def slow_motion_pieces(instance: Instance, *, slot: float | None = None,
                       target_slots: int = 48, time_limit: float | None = None,
                       rlp: ReplayLP | None = None) -> SlowMotionPieces:
    """Solve the LP (or take ``rlp``) and evaluate the replay at every breakpoint."""
    if rlp is None:
        rlp = replay_lp(instance, slot=slot, target_slots=target_slots, time_limit=time_limit)
    ends = breakpoints(rlp)
    if ends.size * rlp.groups.num_groups > MAX_EVALUATIONS:
        raise NotSupportedError(f"slow-motion: {ends.size} breakpoints x "
                                f"{rlp.groups.num_groups} groups is too many evaluations")
    w = np.asarray(rlp.inst_u.weight, dtype=float)
    sig = rlp.sigma
    tau = lambda_points(rlp, ends)                                   # (K, n)
    costs = (w @ ((tau + sig) / ends[None, :])) * rlp.cost_factor
    starts = np.r_[0.0, ends[:-1]]
    tau_r = lambda_points(rlp, starts, right=True)                   # right limits
    integral = (0.5 * (tau + tau_r) * (ends - starts)[None, :]).sum(axis=1)
    cf = rlp.cost_factor
    expectation = 2.0 * float(w @ (integral + sig)) * cf
    riemann = 2.0 * float(w @ (rlp.left_sums() + sig)) * cf
    tf = rlp.time_factor
    wsum = float(np.sum(instance.weight))
    guarantee = 2.0 * rlp.gamma * (rlp.lp_value + rlp.delta * tf * wsum) + \
        2.0 * sig * tf * wsum
    best = int(np.argmin(costs))
    return SlowMotionPieces(rlp=rlp, ends=ends, costs=costs, best=best,
                            expectation=expectation, riemann_bound=riemann,
                            guarantee=guarantee)


def replay_schedule(instance: Instance, rlp: ReplayLP, lam: float) -> Schedule:
    """The slow-motion replay at speed ``lam`` (module docstring, step 3), in the instance's
    units."""
    if not (0.0 < lam <= 1.0):
        raise InvalidParameterError(f"lam must be in (0, 1], got {lam!r}")
    groups, x, b = rlp.groups, rlp.x, rlp.b
    G, T = x.shape
    u = _group_points(rlp, np.array([lam]))[:, 0]
    done = (u + rlp.sigma) / lam                                 # group completion, new time
    start = np.broadcast_to((b[:-1][None, :] + rlp.sigma) / lam, (G, T))
    end = np.minimum((b[1:][None, :] + rlp.sigma) / lam, done[:, None])
    rate = x / np.diff(b)[None, :]
    keep = (x > 0) & (start < end)
    gg, tt = np.nonzero(keep)
    cnt = np.diff(groups.ptr)[gg]
    # the member flows of every kept (group, slot), without a Python loop: position j of
    # piece p is ptr[g_p] + j
    members = groups.flows[concat_ranges(groups.ptr[gg], cnt)]
    share = rlp.inst_u.flow_size[members] / np.repeat(groups.size[gg], cnt)
    tf = rlp.time_factor
    rf = float(np.ldexp(1.0, rlp.unit.get("capacity_exp", 0))) if rlp.unit else 1.0
    return Schedule.from_pieces(members, np.repeat(start[gg, tt], cnt) * tf,
                                np.repeat(end[gg, tt], cnt) * tf,
                                np.repeat(rate[gg, tt], cnt) * share * rf,
                                meta={"algorithm": "slow-motion", "lambda": float(lam)})


def compact_schedule(instance: Instance, schedule: Schedule) -> Schedule:
    """Phase compression (``proofs/time_indexed_bound.md`` Theorem 2's construction): cut time
    at releases and coflow completions; phase ``i`` sends the data each flow sent in it at
    constant rates for ``L_i = max_q W_i^q / c_q`` from ``max(end of phase i-1, latest release
    among its coflows)``.  No coflow completes later (proof there)."""
    from .verify import verify_schedule
    rep = verify_schedule(instance, schedule)
    F = instance.num_flows
    ev = np.unique(np.r_[0.0, instance.release, rep.coflow_completion])
    # cumulative data of every flow at every event (pieces are constant-rate intervals)
    fl = np.asarray(schedule.flow, dtype=np.int64)
    st = np.asarray(schedule.start, dtype=float)
    en = np.asarray(schedule.end, dtype=float)
    rt = np.asarray(schedule.rate, dtype=float)
    cum = np.zeros((F, ev.size))
    for j, e in enumerate(ev.tolist()):
        amt = rt * np.clip(np.minimum(en, e) - st, 0.0, None)
        cum[:, j] = np.bincount(fl, weights=amt, minlength=F)
    cum[:, -1] = instance.flow_size                    # everything is sent by the last event
    cum = np.minimum(np.maximum.accumulate(cum, axis=1), instance.flow_size[:, None])
    W = np.diff(cum, axis=1)                           # (F, phases)
    W[W < 1e-12 * instance.flow_size[:, None]] = 0.0
    # the dropped crumbs go to the flow's last phase with data, so every size is met exactly
    last = W.shape[1] - 1 - np.argmax(W[:, ::-1] > 0, axis=1)
    W[np.arange(F), last] += instance.flow_size - W.sum(axis=1)
    ptr, res = instance.flow_resource_ptr, instance.flow_resource
    fr = np.repeat(np.arange(F), np.diff(ptr))
    cap = np.asarray(instance.capacity, dtype=float)
    fk = instance.flow_coflow
    rel = np.asarray(instance.release, dtype=float)
    out_f, out_s, out_e, out_r = [], [], [], []
    t = 0.0
    for i in range(W.shape[1]):
        wi = W[:, i]
        act = wi > 0
        if not act.any():
            continue
        load = np.zeros(instance.num_resources)
        np.add.at(load, res, wi[fr])
        L = float(np.max(load / cap))
        t = max(t, float(np.max(rel[fk[act]])))
        f = np.flatnonzero(act)
        out_f.append(f)
        out_s.append(np.full(f.size, t))
        out_e.append(np.full(f.size, t + L))
        out_r.append(wi[f] / L)
        t += L
    meta = dict(schedule.meta)
    meta["compacted"] = True
    return Schedule.from_pieces(np.concatenate(out_f), np.concatenate(out_s),
                                np.concatenate(out_e), np.concatenate(out_r), meta=meta)


@register("policy", "slow-motion",
          summary="fluid: replay the time-indexed LP's fractional schedule in slow motion at "
                  "speed lambda (density 2 lambda by seed, a given lam, or the best "
                  "breakpoint: deterministic), then phase compression; a reconstruction",
          reference="theory-frontier digest section 6.4 (reconstruction); Chowdhury, Khuller, "
                    "Purohit, Yang, You, SPAA 2019 (randomized 2 claimed for fluid coflows in "
                    "networks); proofs/slow-motion.md",
          guarantee="best piece <= E_{2lambda}[replay] <= 2 gamma (LP + delta sum_k w_k) + "
                    "2 sigma sum_k w_k, LP = fluid time-indexed LP (no overflow, horizon >= "
                    "safe horizon) <= fluid OPT, delta = slot, sigma <= delta (0 when every "
                    "release is a multiple of delta), gamma = 1 + solver rounding; so "
                    "E <= 2 OPT + 4 delta sum w (any paths, with releases); the compaction "
                    "never raises a cost (proved: proofs/slow-motion.md)",
          tags=("reconstruction", "randomized", "needs_solver", "release_dates", "weights",
                "heterogeneous_capacities", "preemptive", "slow"))
def slow_motion(instance: Instance, *, lam: float | None = None, seed: int | None = None,
                slot: float | None = None, target_slots: int = 48, compact: bool = True,
                time_limit: float | None = None) -> Schedule:
    """The slow-motion replay of the fluid time-indexed LP (module docstring).

    Parameters
    ----------
    instance : Instance
        A big switch or an instance over resources (any paths).
    lam : float, optional
        A fixed speed in (0, 1].
    seed : int, optional
        Draw ``lambda`` with density ``2 lambda`` (``lambda = sqrt(1 - U)``, ``U`` uniform from
        ``numpy.random.default_rng(seed)``); recorded in ``meta``.  With neither ``lam`` nor
        ``seed``: the best breakpoint (deterministic).
    slot : float, optional
        The LP's slot length (the guarantee's additive term is ``2 delta sum w``, plus ``2
        sigma sum w`` with releases off the grid).
    target_slots : int
        Slots up to the safe horizon when ``slot`` is not given.
    compact : bool
        Phase compression after the replay (never later; default).
    time_limit : float, optional
        Seconds for the LP.

    Returns
    -------
    Schedule
        ``meta``: ``lambda``, ``seed``, ``expectation`` (exact, of the replay), ``riemann_bound``,
        ``guarantee`` (the proved bound on the expectation), ``lp_value``, ``lp_bound``
        (certified), ``best_piece_cost`` (the replay's cost at the best breakpoint),
        ``replay_cost`` (at the ``lambda`` used), ``pieces``, ``slot``, ``sigma``, ``gamma``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> s = slow_motion(inst)
    >>> round(float(verify_schedule(inst, s).weighted_completion_time), 9)
    4.0625
    """
    if lam is not None and seed is not None:
        raise InvalidParameterError("give lam= or seed=, not both")
    check_integer(seed, "seed", 0, nullable=True)    # numpy's default_rng refuses -1 itself
    if lam is not None and not (isinstance(lam, (int, float)) and 0.0 < float(lam) <= 1.0):
        raise InvalidParameterError(f"lam must be in (0, 1], got {lam!r}")
    pieces = slow_motion_pieces(instance, slot=slot, target_slots=target_slots,
                                time_limit=time_limit)
    rlp = pieces.rlp
    if seed is not None:
        u = float(np.random.default_rng(seed).random())
        lam = float(np.sqrt(1.0 - u))             # in (0, 1]: density 2 lambda
    if lam is None:
        lam = float(pieces.ends[pieces.best])
    lam = float(lam)
    sched = replay_schedule(instance, rlp, lam)
    tau = lambda_points(rlp, np.array([lam]))[:, 0]
    replay_cost = float(np.asarray(rlp.inst_u.weight, dtype=float) @ ((tau + rlp.sigma) / lam)) \
        * rlp.cost_factor
    if compact:
        sched = compact_schedule(instance, sched)
    tf = rlp.time_factor
    sched.meta.update({
        "algorithm": "slow-motion", "lambda": lam, "seed": seed, "compact": bool(compact),
        "expectation": pieces.expectation, "riemann_bound": pieces.riemann_bound,
        "guarantee": pieces.guarantee, "lp_value": rlp.lp_value,
        "lp_bound": None if rlp.bound.value is None else float(rlp.bound.value),
        "best_piece_cost": float(pieces.costs[pieces.best]), "replay_cost": replay_cost,
        "pieces": int(pieces.ends.size), "slot": rlp.delta * tf, "sigma": rlp.sigma * tf,
        "gamma": rlp.gamma})
    return sched
