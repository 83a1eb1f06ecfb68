"""The time-indexed formulation (Varys appendix, equations 2-5) with slots of length delta.

Two models share this builder (``formulations/time_indexed.md`` has the proofs):

``model="fluid"`` (default): an LP that is a **lower bound on the fluid optimum** for every
    slot length and every horizon.  Slots ``t = 1..T`` are ``[b_{t-1}, b_t)``, ``b_t = t
    delta``; with ``overflow=True`` a last slot ``[b_T, inf)`` without capacity limit absorbs
    whatever a schedule sends after ``b_T``, so no horizon assumption is needed.  Completion
    times are bounded by

    * ``C_k >= r_k + rho_k`` (column bound),
    * ``C_k >= sum_t Delta_t (1 - z_kt)`` with ``z_kt <= X_ft / d_f`` (the fraction of every
      flow of k sent by ``b_t``): a right-endpoint Riemann sum of ``1 - (progress of k)``, and
    * mean-busy-time rows per coflow and port: ``d C_k - sum_t s_kt x_kt^q >= d^2 / (2 c_q)``
      with ``d = d_k^q``, ``x_kt^q`` the data of k sent through q in slot t and
      ``s_kt = max(b_{t-1}, r_k)`` the earliest time that data can be sent in slot t.

Resources.  Every row "per port" is a row per resource ``q`` (:attr:`Instance.capacity`): the
capacity row of ``(q, t)`` sums the amounts of every flow group whose path contains ``q``
(``c_q Delta_t``: a flow's rate counts at every resource of its path), ``d_k^q`` is the data of
k's flows whose path contains ``q``, and the safe horizon uses each flow's bottleneck capacity
(the smallest on its path).  The big switch is the case ``path = [i, m_in + j]``, whose
matrices are built by the original per-port code (the same entries).

``model="slotted"``: the slotted model of the Varys appendix: rates constant in each slot, a
    coflow's completion time is the end of the slot in which its last flow finishes, a flow may
    only use slots that start at or after its release.  ``mip=True`` gives the exact slotted
    optimum (integral ``z``), which is an **upper bound on the fluid optimum** (its solution is
    a feasible fluid schedule: :func:`slotted_schedule`); the LP relaxation is a lower bound on
    the slotted optimum only (not on the fluid one).

Flows of one coflow with the same ingress and egress (the same path, over resources) are merged
(``flow groups``): both models are unchanged by the merge (a merged schedule splits back proportionally, and a fluid schedule's
fraction of the merged flow is at least the smallest fraction of its parts).

The cumulative variables ``X`` keep the matrix at ``O(F T)`` non-zeros
(solver-interfaces.md section 3); the constraint matrix is built with numpy and loaded into
highspy in one call.

References
----------
M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014,
appendix A, equations (2)-(5); Chowdhury's dissertation, appendix B.1 (B.1)-(B.4); the
mean-busy-time relaxation: M. Goemans, M. Queyranne, A. Schulz, M. Skutella, Y. Wang, "Single
machine scheduling with release dates", SIAM J. Discrete Math. 15 (2002), section 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..limits import check_integer, check_time_length
from ..schedule import Schedule
from .certificates import register_rebuilder
from .linear_program import LinearProgram, MatrixAssembler, exact_group_sums, float_down
from .ordering_lp import isolation_lower_bounds, port_loads

__all__ = ["FlowGroups", "flow_groups", "build_time_indexed", "safe_horizon",
           "default_grid", "slotted_schedule", "TimeGrid"]


@dataclass
class FlowGroups:
    """Flows merged by (coflow, ingress, egress): group ``g`` has coflow ``coflow[g]``, ports
    ``src[g]`` / ``dst[g]`` (unified numbering for egress), size ``size[g]`` (exact:
    ``size_exact``, ``None`` when the float sums are exact) and member flows
    ``flows[ptr[g]:ptr[g+1]]``.

    On an instance over resources the flows are merged by (coflow, path): ``src`` / ``dst``
    are ``-1`` and group ``g`` occupies the resources ``res[res_ptr[g]:res_ptr[g+1]]`` (its
    path); on a big switch ``res_ptr`` / ``res`` are ``None`` (the path is ``[src, dst]``).
    """

    coflow: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    size_exact: np.ndarray | None
    ptr: np.ndarray
    flows: np.ndarray
    res_ptr: np.ndarray | None = None
    res: np.ndarray | None = None

    @property
    def num_groups(self) -> int:
        return int(self.coflow.shape[0])

    def resource_entries(self) -> tuple[np.ndarray, np.ndarray]:
        """``(group, resource)`` for every resource of every group's path (one entry per
        pair; on a big switch every ingress entry, then every egress entry)."""
        if self.res_ptr is None:
            g = np.arange(self.num_groups, dtype=np.int64)
            return np.r_[g, g], np.r_[self.src, self.dst]
        return (np.repeat(np.arange(self.num_groups, dtype=np.int64), np.diff(self.res_ptr)),
                self.res)


def flow_groups(instance: Instance) -> FlowGroups:
    """Merge the flows of every coflow by (ingress, egress) pair, by path on an instance over
    resources (flows of one coflow on the same path are interchangeable: a merged schedule
    splits back in proportion to the sizes).

    Examples
    --------
    >>> inst = Instance.from_paths(resource_capacity=[1.0, 1.0, 1.0], coflow_ids=["A"],
    ...     flow_coflow=[0, 0, 0], flow_src=[0, 0, 0], flow_dst=[1, 2, 1],
    ...     flow_size=[1.0, 2.0, 3.0], path_ptr=[0, 2, 4, 6],
    ...     path_resource=[0, 1, 0, 2, 0, 1], host_ids=["a", "b", "c"])
    >>> g = flow_groups(inst)
    >>> g.size.tolist(), g.res_ptr.tolist(), g.res.tolist()
    ([4.0, 2.0], [0, 2, 4], [0, 1, 0, 2])
    """
    if not instance.is_big_switch:
        return _path_groups(instance)
    m_in = instance.num_ingress
    key = (instance.flow_coflow * instance.num_ingress + instance.flow_src) * \
        instance.num_egress + instance.flow_dst
    uniq, inv = np.unique(key, return_inverse=True)
    size, exact = exact_group_sums(instance.flow_size, inv, uniq.size)
    dst = uniq % instance.num_egress
    rest = uniq // instance.num_egress
    src = rest % instance.num_ingress
    cof = rest // instance.num_ingress
    order = np.argsort(inv, kind="stable")
    ptr = np.zeros(uniq.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(inv, minlength=uniq.size), out=ptr[1:])
    return FlowGroups(coflow=cof.astype(np.int64), src=src.astype(np.int64),
                      dst=(dst + m_in).astype(np.int64), size=size, size_exact=exact, ptr=ptr,
                      flows=order.astype(np.int64))


def _path_groups(instance: Instance) -> FlowGroups:
    """:func:`flow_groups` on an instance over resources: merge by (coflow, path)."""
    ptr, fres = instance.flow_resource_ptr, instance.flow_resource
    plen = np.diff(ptr)
    L = int(plen.max())
    F = instance.num_flows
    # one row per flow: (coflow, path length, resources padded with -1); equal rows = same
    # coflow and same path (as routed, a sequence), the rule of exact.order_lp.pair_groups
    key = np.full((F, L + 2), -1, dtype=np.int64)
    key[:, 0] = instance.flow_coflow
    key[:, 1] = plen
    col = np.arange(fres.size) - np.repeat(ptr[:-1], plen)
    key[np.repeat(np.arange(F), plen), 2 + col] = fres
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    J = uniq.shape[0]
    size, exact = exact_group_sums(instance.flow_size, inv, J)
    order = np.argsort(inv, kind="stable")
    gptr = np.zeros(J + 1, dtype=np.int64)
    np.cumsum(np.bincount(inv, minlength=J), out=gptr[1:])
    glen = uniq[:, 1]
    res_ptr = np.zeros(J + 1, dtype=np.int64)
    np.cumsum(glen, out=res_ptr[1:])
    res = uniq[:, 2:][np.arange(L)[None, :] < glen[:, None]]
    return FlowGroups(coflow=uniq[:, 0].astype(np.int64), src=np.full(J, -1, dtype=np.int64),
                      dst=np.full(J, -1, dtype=np.int64), size=size, size_exact=exact,
                      ptr=gptr, flows=order.astype(np.int64), res_ptr=res_ptr,
                      res=res.astype(np.int64))


def safe_horizon(instance: Instance) -> float:
    """A time by which *some optimal* fluid schedule has finished every coflow.

    ``H = max_k r_k + sum_f d_f / b_f`` (rounded up to a float), ``b_f`` the smallest
    capacity on flow ``f``'s path: ``min(c_src(f), c_dst(f))`` on a big switch.  Proof
    (``formulations/time_indexed.md``): compress an optimal schedule phase by phase between
    consecutive events (releases and completions); no completion moves later, and after the
    last release the phases run back to back, each no longer than sending its flows one after
    another, each alone at its bottleneck capacity.
    """
    if instance.is_big_switch:
        cmin = np.minimum(instance.capacity[instance.flow_src],
                          instance.capacity[instance.flow_egress_port])
    else:
        cmin = instance.flow_bottleneck_capacity
    # exact sums of the sizes per distinct capacity, then one division each: the same exact
    # total as flow by flow, without a Fraction per flow (seconds on a million flows)
    caps, inv = np.unique(cmin, return_inverse=True)
    sums, exact = exact_group_sums(instance.flow_size, inv.reshape(-1), caps.size)
    total = sum((Fraction(float(v)) if exact is None else exact[i]) / Fraction(float(c))
                for i, (v, c) in enumerate(zip(sums.tolist(), caps.tolist())))
    total = Fraction(total)
    h = Fraction(float(instance.release.max())) + total
    f = float(h)
    return f if Fraction(f) >= h else float(np.nextafter(f, np.inf))


@dataclass
class TimeGrid:
    """Slot boundaries ``b_0 = 0 < b_1 < ... < b_T`` (floats, exact by definition)."""

    delta: float
    T: int

    @property
    def bounds(self) -> np.ndarray:
        return np.arange(self.T + 1, dtype=float) * self.delta

    def to_dict(self) -> dict[str, Any]:
        return {"slot": self.delta, "slots": self.T}


#: The most slots of a time grid (the LP has a column per flow and slot).
MAX_SLOTS = 10_000_000


def default_grid(instance: Instance, *, slot: float | None = None,
                 horizon: float | None = None, target_slots: int = 48) -> TimeGrid:
    """The slot length and count used when the caller does not give them.

    The horizon defaults to the makespan of the greedy schedule in FIFO order (a feasible
    schedule; any horizon is valid for the fluid LP with its overflow slot).  The slot length
    defaults to the power of two nearest ``horizon / target_slots`` (a power of two makes every
    boundary ``t * delta`` an exact float).
    """
    if horizon is None:
        horizon = _greedy_makespan(instance)
    if not (horizon > 0 and math.isfinite(horizon)):
        raise InvalidParameterError(f"horizon must be a finite time > 0, got {horizon!r}")
    for name, v in (("horizon", horizon), ("slot", slot)):
        if v is not None:
            check_time_length(name, v, instance.flow_size, instance.flow_bottleneck_capacity)
    if slot is None:
        check_integer(target_slots, "target_slots", 1)   # log2 of a negative ratio raised
        if target_slots > MAX_SLOTS:
            raise InvalidParameterError(f"target_slots must be at most {MAX_SLOTS}, got "
                                        f"{target_slots!r}")
        slot = 2.0 ** round(math.log2(horizon / target_slots))
    if not (slot > 0 and math.isfinite(slot)):
        raise InvalidParameterError(f"slot must be a finite length > 0, got {slot!r}")
    ratio = horizon / slot - 1e-12        # inf for slot = 1e-320
    if not ratio <= MAX_SLOTS:
        count = f"more than {MAX_SLOTS}" if ratio > 1e15 else str(math.ceil(ratio))
        raise InvalidParameterError(f"slot = {slot!r} gives {count} slots up to the horizon "
                                    f"{horizon!r} (at most {MAX_SLOTS}): choose a larger slot "
                                    "length")
    T = max(1, int(math.ceil(ratio)))
    return TimeGrid(delta=float(slot), T=T)


def _greedy_makespan(instance: Instance) -> float:
    from ..rates.greedy import greedy
    from ..rates.madd import madd
    from ..verify import verify_schedule
    order = np.lexsort((np.arange(instance.num_coflows), instance.release))
    # greedy where it runs (on resources it may still be big_switch_only), else MADD: any
    # feasible schedule's makespan is a valid horizon (the overflow slot covers the rest)
    alloc = greedy if instance.is_big_switch or not getattr(greedy, "big_switch_only", False) \
        else madd
    rep = verify_schedule(instance, alloc(instance, order))
    return float(np.max(rep.coflow_completion))


def build_time_indexed(instance: Instance, grid: TimeGrid, *, model: str = "fluid",
                       mip: bool = False, overflow: bool = True,
                       mean_busy_time: bool = True) -> LinearProgram:
    """Build the time-indexed LP/MIP (module docstring) as a :class:`LinearProgram`.

    Parameters
    ----------
    instance : Instance
    grid : TimeGrid
        Slot length and number of slots (:func:`default_grid`).
    model : {"fluid", "slotted"}
    mip : bool
        Integral ``z`` (slotted model only).
    overflow : bool
        Fluid model: add the unbounded last slot ``[b_T, inf)`` (needed for validity unless
        ``b_T >= safe_horizon(instance)``).
    mean_busy_time : bool
        Fluid model: add the mean-busy-time rows.

    Returns
    -------
    LinearProgram
        Column blocks ``x`` and ``X`` (groups x slots), ``z`` (coflows x T), ``C``.

    Raises
    ------
    InvalidParameterError
        For an unknown model, a MIP of the fluid model, or ``overflow=False`` with a horizon
        shorter than :func:`safe_horizon` in the fluid model (the LP would not be a valid bound).
    """
    if model not in ("fluid", "slotted"):
        raise InvalidParameterError(f"model must be 'fluid' or 'slotted', got {model!r}")
    if mip and model != "slotted":
        raise InvalidParameterError("the time-indexed MIP is the slotted model: use "
                                    "model='slotted' (the fluid model is an LP lower bound)")
    fluid = model == "fluid"
    b = grid.bounds
    T = grid.T
    if fluid and not overflow and b[T] < safe_horizon(instance):
        raise InvalidParameterError(
            f"overflow=False needs a horizon >= the safe horizon {safe_horizon(instance)!r} "
            f"(got {float(b[T])!r}); otherwise the LP is not a valid lower bound")
    over = fluid and overflow
    S = T + (1 if over else 0)               # slots carrying data
    K = instance.num_coflows
    groups = flow_groups(instance)
    G = groups.num_groups
    loads = port_loads(instance)
    iso_f, iso_ex = isolation_lower_bounds(instance, loads)
    rel = np.asarray(instance.release, dtype=float)
    delta_t = np.diff(b)                      # exact (Sterbenz), Delta_t for t = 1..T
    # ---- columns
    ox, oX, oz, oC = 0, G * S, 2 * G * S, 2 * G * S + K * T
    n = oC + K
    col_lo = np.zeros(n)
    col_hi = np.zeros(n)
    gk = groups.coflow
    slot_start = np.r_[b[:T], b[T]] if over else b[:T]       # b_{s-1}, s = 1..S
    slot_end = np.r_[b[1:], np.inf] if over else b[1:]
    if fluid:
        allowed = slot_end[None, :] > rel[gk][:, None]       # some of the slot after release
    else:
        allowed = slot_start[None, :] >= rel[gk][:, None]    # the whole slot after release
    col_hi[ox:oX] = np.where(allowed, groups.size[:, None], 0.0).ravel()
    col_hi[oX:oz] = np.repeat(groups.size, S)
    last = oX + np.arange(G) * S + (S - 1)
    col_lo[last] = groups.size
    # z_kt = 0 while b_t < r_k + rho_k (no schedule can have finished k); exact comparison
    bt = b[1:]
    zfree = np.ones((K, T), dtype=bool)
    for k in range(K):
        lim = iso_ex[k]
        # b_t < lim exactly <=> b_t < float(lim) or (b_t == float(lim) and b_t < lim)
        zfree[k] = np.asarray([Fraction(v) >= lim for v in bt.tolist()]) \
            if np.any(np.abs(bt - float(lim)) <= 1e-9 * max(1.0, abs(float(lim)))) \
            else bt >= float(lim)
    col_hi[oz:oC] = zfree.ravel().astype(float)
    col_lo[oC:] = iso_f
    col_hi[oC:] = np.inf
    exact: dict[str, Any] = {}
    ce = np.empty(n, dtype=object)
    ce[:] = None
    ce[oC:] = iso_ex
    exact["col_lo"] = ce
    if groups.size_exact is not None:
        he = np.empty(n, dtype=object)
        he[:] = None
        he[ox:oX] = np.where(allowed, groups.size_exact[:, None], Fraction(0)).ravel()
        he[oX:oz] = np.repeat(groups.size_exact, S)
        exact["col_hi"] = he
        le = ce.copy()
        le[last] = groups.size_exact
        exact["col_lo"] = le
    c = np.zeros(n)
    c[oC:] = instance.weight
    # ---- rows
    P = instance.num_ports
    asm = MatrixAssembler()
    row_lo, row_hi, rlo_ex, rhi_ex = [], [], [], []
    r0 = 0
    # capacity (q, t): sum over groups through q of x[g, t] <= c_q Delta_t
    g_idx = np.arange(G)
    t_idx = np.arange(T)
    if instance.is_big_switch:
        for ports in (groups.src, groups.dst):
            rr = r0 + ports[:, None] * T + t_idx[None, :]
            asm.add(rr, ox + g_idx[:, None] * S + t_idx[None, :], 1.0)
    else:
        # a group's amount enters the row of every resource of its path
        eg, er = groups.resource_entries()
        asm.add(r0 + er[:, None] * T + t_idx[None, :], ox + eg[:, None] * S + t_idx[None, :],
                1.0)
    cap = np.asarray(instance.capacity, dtype=float)
    cap_rhs = (cap[:, None] * delta_t[None, :]).ravel()
    cap_ex = np.empty(P * T, dtype=object)
    cap_ex[:] = [Fraction(float(cq)) * Fraction(float(d)) for cq in cap for d in delta_t]
    row_lo.append(np.full(P * T, -np.inf))
    row_hi.append(cap_rhs)
    rlo_ex.append(np.full(P * T, None, dtype=object))
    rhi_ex.append(cap_ex)
    r0 += P * T
    # cumulative (g, s): X[g,s] - X[g,s-1] - x[g,s] = 0
    s_idx = np.arange(S)
    rr = r0 + g_idx[:, None] * S + s_idx[None, :]
    asm.add(rr, oX + g_idx[:, None] * S + s_idx[None, :], 1.0)
    asm.add(rr[:, 1:], oX + g_idx[:, None] * S + s_idx[None, 1:] - 1, -1.0)
    asm.add(rr, ox + g_idx[:, None] * S + s_idx[None, :], -1.0)
    row_lo.append(np.zeros(G * S))
    row_hi.append(np.zeros(G * S))
    rlo_ex.append(np.full(G * S, None, dtype=object))
    rhi_ex.append(np.full(G * S, None, dtype=object))
    r0 += G * S
    # linking (g, t): X[g,t] - d_g z[k,t] >= 0
    rr = r0 + g_idx[:, None] * T + t_idx[None, :]
    asm.add(rr, oX + g_idx[:, None] * S + t_idx[None, :], 1.0)
    zc = oz + gk[:, None] * T + t_idx[None, :]
    if groups.size_exact is not None:
        asm.add(rr, zc, -groups.size[:, None],
                exact=np.asarray([-v for v in groups.size_exact], dtype=object)[:, None])
    else:
        asm.add(rr, zc, -groups.size[:, None])
    row_lo.append(np.zeros(G * T))
    row_hi.append(np.full(G * T, np.inf))
    rlo_ex.append(np.full(G * T, None, dtype=object))
    rhi_ex.append(np.full(G * T, None, dtype=object))
    r0 += G * T
    # completion rows (k): C_k + sum_t a_t z[k,t] >= sum_t a_t
    k_idx = np.arange(K)
    if fluid:
        coef = delta_t                                   # C >= sum_t Delta_t (1 - z_t)
    else:
        coef = np.r_[delta_t[1:], 0.0]                  # C >= b_1 + sum_{t<T} Delta_{t+1}(1-z_t)
    asm.add(r0 + k_idx, oC + k_idx, 1.0)
    nzt = np.flatnonzero(coef)
    asm.add(r0 + k_idx[:, None] + 0 * nzt[None, :], oz + k_idx[:, None] * T + nzt[None, :],
            np.broadcast_to(coef[nzt], (K, nzt.size)))
    row_lo.append(np.full(K, b[T]))
    row_hi.append(np.full(K, np.inf))
    rlo_ex.append(np.full(K, None, dtype=object))
    rhi_ex.append(np.full(K, None, dtype=object))
    r0 += K
    # mean-busy-time rows (k, q): d C_k - sum_{g of k at q} sum_s s_ks x[g,s] >= d^2 / (2 c_q)
    n_mbt = 0
    if fluid and mean_busy_time:
        E = loads.coflow.size
        kq = loads.coflow
        q = loads.port
        rows_e = r0 + np.arange(E)
        if loads.exact_is_float:
            asm.add(rows_e, oC + kq, loads.load)
        else:
            asm.add(rows_e, oC + kq, loads.load,
                    exact=np.asarray([loads.exact_load(i) for i in range(E)], dtype=object))
        if instance.is_big_switch:
            # each group sits at two ports: its src entry and its dst entry
            for ports in (groups.src, groups.dst):
                ent = loads.positions(ports, gk)
                start = np.maximum(slot_start[None, :], rel[gk][:, None])     # s_ks
                asm.add(r0 + ent[:, None] + 0 * s_idx[None, :],
                        ox + g_idx[:, None] * S + s_idx[None, :], -start)
        else:
            # each group sits at every resource of its path: the (k, q) entry of each
            eg, er = groups.resource_entries()
            ent = loads.positions(er, gk[eg])
            start = np.maximum(slot_start[None, :], rel[gk[eg]][:, None])     # s_ks
            asm.add(r0 + ent[:, None] + 0 * s_idx[None, :],
                    ox + eg[:, None] * S + s_idx[None, :], -start)
        rhs_ex = np.empty(E, dtype=object)
        rhs_ex[:] = [loads.exact_load(i) ** 2 / (2 * Fraction(float(cap[int(q[i])])))
                     for i in range(E)]
        row_lo.append(np.asarray([float_down(v) for v in rhs_ex]))
        row_hi.append(np.full(E, np.inf))
        rlo_ex.append(rhs_ex)
        rhi_ex.append(np.full(E, None, dtype=object))
        n_mbt = E
        r0 += E
    A, a_exact = asm.csr(r0, n)
    if a_exact is not None:
        exact["A_data"] = a_exact
    rl = np.concatenate(rlo_ex)
    rh = np.concatenate(rhi_ex)
    if any(v is not None for v in rl):
        exact["row_lo"] = rl
    if any(v is not None for v in rh):
        exact["row_hi"] = rh
    integrality = None
    if mip:
        integrality = np.zeros(n, dtype=bool)
        integrality[oz:oC] = True
    name = "time-indexed-" + ("mip" if mip else "lp")
    return LinearProgram(
        name=name, c=c, A=A, row_lo=np.concatenate(row_lo), row_hi=np.concatenate(row_hi),
        col_lo=col_lo, col_hi=col_hi, integrality=integrality, exact=exact,
        col_blocks={"x": (ox, oX, (G, S)), "X": (oX, oz, (G, S)), "z": (oz, oC, (K, T)),
                    "C": (oC, n, (K,))},
        row_blocks={"capacity": (0, P * T, (P, T)), "cumulative": (P * T, P * T + G * S, (G, S)),
                    "linking": (P * T + G * S, P * T + G * (S + T), (G, T)),
                    "completion": (P * T + G * (S + T), P * T + G * (S + T) + K, (K,)),
                    "mean_busy_time": (r0 - n_mbt, r0, (n_mbt,))},
        meta={"model": model, "mip": mip, "overflow": over, "slot": grid.delta, "slots": T,
              "horizon": float(b[T]), "groups": G, "mean_busy_time_rows": n_mbt})


@register_rebuilder("time-indexed-lp")
def _rebuild(instance: Instance, params: dict, rows) -> LinearProgram:
    grid = TimeGrid(delta=float(params["slot"]), T=int(params["slots"]))
    return build_time_indexed(instance, grid, model=params.get("model", "fluid"), mip=False,
                              overflow=bool(params.get("overflow", True)),
                              mean_busy_time=bool(params.get("mean_busy_time", True)))


def slotted_schedule(instance: Instance, lp: LinearProgram, x: np.ndarray, *,
                     clean_rtol: float = 1e-9) -> Schedule:
    """The fluid schedule of a slotted-model solution: in slot ``t`` every flow of group ``g``
    runs at the constant rate ``x[g,t] / Delta_t``, split among the group's flows in proportion
    to their sizes.

    A solver returns amounts like ``1e-12`` in slots after a coflow has finished (within its
    feasibility tolerance); such crumbs would make the flow "finish" at the end of a late slot.
    Amounts below ``clean_rtol`` times the group size are dropped and the rest is rescaled to the
    group size exactly.  Only for ``model="slotted"`` (no overflow slot).  The result still has
    to pass :func:`coflowopt.verify.verify_schedule`, which decides; its cost is at most the
    MIP objective up to the cleaning.
    """
    if lp.meta.get("model") != "slotted":
        raise InvalidParameterError("slotted_schedule needs a slotted-model solution")
    groups = flow_groups(instance)
    xs = np.array(lp.col_block("x", x), dtype=float)
    xs[xs < clean_rtol * groups.size[:, None]] = 0.0
    tot = xs.sum(axis=1)
    if np.any(tot <= 0):
        raise InvalidParameterError("the solution sends nothing for some flow")
    xs *= (groups.size / tot)[:, None]
    G, T = xs.shape
    b = np.arange(T + 1, dtype=float) * float(lp.meta["slot"])
    fl, st, en, rt = [], [], [], []
    sizes = instance.flow_size
    for g in range(G):
        members = groups.flows[groups.ptr[g]:groups.ptr[g + 1]]
        share = sizes[members] / groups.size[g]
        for t in np.flatnonzero(xs[g] > 0).tolist():
            rate = xs[g, t] / (b[t + 1] - b[t])
            for f, sh in zip(members.tolist(), share.tolist()):
                fl.append(f)
                st.append(b[t])
                en.append(b[t + 1])
                rt.append(rate * sh)
    return Schedule.from_pieces(fl, st, en, rt, meta={"algorithm": "time-indexed-mip",
                                                      "slot": float(lp.meta["slot"])})
