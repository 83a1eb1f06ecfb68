"""LP-A and LP-B: time-indexed LP relaxations of the *integral* matching model, unit slots.

Both LPs bound the optimum of the integral model (:mod:`coflowopt.slotted`: slots of length
``s``, whole units, every resource ``q`` carries at most ``c_q = capacity_q x s`` units per
slot, coflow ``k`` uses slots ``t >= a_k = ceil(r_k / s)`` (0-based), ``C_k = s x`` (its last
slot + 1)).  Time is counted in slots: ``t = 1..T`` is the completion *slot count* (slot
``t`` is ``[(t-1) s, t s)``).  ``formulations/lp_a_lp_b.md`` states both with the proof that
each row holds for every integral schedule.

LP-A (the theory-frontier digest section 2.2, "time-indexed load LP", with the rho / Delta
strengthening), written with the cumulative variables ``X[k,t]`` (the LP CDF of coflow ``k``:
the fraction of ``k`` complete by the end of slot ``t``; the digest's ``x_{k,t} = X[k,t] -
X[k,t-1]``):

* ``X[k,t] = 0`` for ``t < e_k``, ``e_k = a_k + max_q ceil(d_k(q) / c_q)`` (release plus own
  load: the digest's ``x_{j,t} = 0`` for ``t < r_j + Delta_j``); ``X[k,T] = 1``;
* monotone: ``X[k,t] <= X[k,t+1]``;
* load, for every ``rho`` in ``{0} u {a_k}``, resource ``q`` and ``t > rho``:
  ``sum_{k: a_k >= rho} d_k(q) X[k,t] <= c_q (t - rho)`` (rows that cannot bind, because the
  whole load of those coflows at ``q`` fits in ``c_q (t - rho)``, are left out);
* objective ``sum_k w_k s sum_t t (X[k,t] - X[k,t-1]) = sum_k w_k s (T - sum_{t<T} X[k,t])``.

LP-B (digest section 2.2, "fractional matching per slot"): the cut-off and the CDFs of LP-A plus,
per flow group ``g`` (the flows of one coflow on one path, merged: the digest's identical edge
copies aggregated), the cumulative units ``U[g,t]`` sent in slots ``1..t``:

* ``U[g,t] = 0`` for ``t <= a_k``; ``U[g,T] = d_g``; monotone ``U[g,t-1] <= U[g,t]``;
* capacity per slot: ``sum_{g: q in P_g} (U[g,t] - U[g,t-1]) <= c_q`` (a fractional matching
  per slot on a unit-capacity big switch);
* coverage: ``d_g X[k,t] <= U[g,t]`` (a coflow complete by ``t`` has sent each of its groups).

The load rows of LP-A are implied by LP-B's rows (sum the coverage rows of the coflows released
at or after ``rho`` at ``q``; ``formulations/lp_a_lp_b.md``), so LP-B leaves them out by default
(``load_rows=True`` adds them).

Geometric intervals: with ``boundaries`` (:func:`geometric_boundaries`, ``(1+eps)^l``) the
CDFs live at the interval ends ``b_l`` only, the load rows are written at the ends, LP-B's
capacity row of interval ``l`` is ``c_q (b_l - b_{l-1})``, and a completion in ``(b_{l-1}, b_l]``
costs ``max(b_{l-1} + 1, e_k)``: a relaxation of the unit-slot LP on a logarithmic number of
columns.

The horizon ``T`` must contain *some* optimal integral schedule
(:func:`coflowopt.exact.integral_mip.integral_horizon`, proved there); the registered bounds
take it from there by default.

Not a fluid bound.  Neither LP is claimed to bound the fluid optimum (a fluid schedule may
finish mid-slot; ``formulations/lp_a_lp_b.md`` gives an instance where LP-A exceeds the fluid
optimum).

References
----------
L. Rohwedder, L. Schnaars, "3.415-Approximation for Coflow Scheduling via Iterated Rounding",
ICALP 2025 (the matching model; their LP is not known here: these are the digest's candidates
A and B, a reconstruction); A. Fukunaga, "Integrality Gap of Time-Indexed LP Relaxation for
Coflow Scheduling", APPROX 2022 (the time-indexed LP family); the digest
``../shared/reference/theory-frontier.md`` sections 2.2 and 2.10.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..exceptions import CoflowOptError, InvalidParameterError
from ..instance import Instance
from .certificates import in_units, register_rebuilder, unit_scaling
from .linear_program import LinearProgram, MatrixAssembler

__all__ = ["IntegralLoads", "integral_loads", "build_lp_a", "build_lp_b", "weight_units",
           "geometric_boundaries", "LP_NAMES"]

#: formulation names (certificates) of the two LPs
LP_NAMES = {"a": "integral-lp-a", "b": "integral-lp-b"}


@dataclass
class IntegralLoads:
    """What LP-A and LP-B read from an instance of the integral model.

    Attributes
    ----------
    first : ndarray of int64, shape (K,)
        ``a_k``, the first (0-based) slot coflow ``k`` may use.
    ready : ndarray of int64, shape (K,)
        ``e_k = a_k + max_q ceil(d_k(q) / c_q)``: no completion slot count below it.
    cap : ndarray of int64, shape (R,)
        ``c_q``, units per slot.
    load_k, load_q, load : ndarray of int64
        The non-zero loads ``d_k(q)`` as entries ``(coflow, resource, units)``.
    data : IntegralData
        :func:`coflowopt.exact.integral_mip.integral_data` (flow groups in whole units).
    """

    first: np.ndarray
    ready: np.ndarray
    cap: np.ndarray
    load_k: np.ndarray
    load_q: np.ndarray
    load: np.ndarray
    data: object


def integral_loads(instance: Instance, slot: float = 1.0) -> IntegralLoads:
    """Loads per (coflow, resource) in whole units and the cut-off ``e_k``.

    Raises
    ------
    NotSupportedError
        When the instance is not in the integral model at this slot length.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 1)], release=1)])
    >>> L = integral_loads(inst)
    >>> L.first.tolist(), L.ready.tolist(), L.load.tolist()
    ([1], [4], [2, 1, 3])
    """
    from ..exact.integral_mip import integral_data
    data = integral_data(instance, slot)
    R = instance.num_resources
    gg, rr = data.groups.resource_entries()
    key = data.gk[gg] * R + rr
    uk, inv = np.unique(key, return_inverse=True)
    load = np.zeros(uk.size, dtype=np.int64)
    np.add.at(load, inv.reshape(-1), data.gsize[gg])
    return IntegralLoads(first=data.first.copy(), ready=data.earliest + 1, cap=data.cap,
                         load_k=(uk // R).astype(np.int64), load_q=(uk % R).astype(np.int64),
                         load=load, data=data)


def weight_units(instance: Instance) -> tuple[Instance, dict]:
    """The instance with its weights in a power-of-two unit near 1 (HiGHS's tolerances are
    absolute), sizes and capacities untouched (they are whole units here): ``(instance in
    those units, unit)`` with ``unit`` as :func:`~.certificates.unit_scaling`'s (data and
    capacity exponents 0)."""
    unit = {"data_exp": 0, "capacity_exp": 0,
            "weight_exp": unit_scaling(instance)["weight_exp"]}
    if not unit["weight_exp"]:
        return instance, unit
    try:
        return in_units(instance, unit), unit
    except CoflowOptError:
        return instance, {k: 0 for k in unit}


def geometric_boundaries(slots: int, epsilon: float) -> np.ndarray:
    """Interval ends ``0 = b_0 < b_1 < ... < b_L = T`` (slot counts) growing geometrically:
    ``b_l = min(T, max(b_{l-1} + 1, floor((1 + epsilon) (b_{l-1} + 1))))`` (exact rationals),
    so ``b_l <= (1 + epsilon) (b_{l-1} + 1)``: an interval's end is at most ``1 + epsilon``
    times the earliest completion inside it.

    Examples
    --------
    >>> geometric_boundaries(20, 0.5).tolist()
    [0, 1, 3, 6, 10, 16, 20]
    """
    eps = Fraction(float(epsilon))
    if not eps > 0:
        raise InvalidParameterError(f"epsilon must be > 0, got {epsilon!r}")
    T = int(slots)
    b = [0]
    while b[-1] < T:
        nxt = max(b[-1] + 1, int((1 + eps) * (b[-1] + 1)))
        b.append(min(nxt, T))
    return np.asarray(b, dtype=np.int64)


def _grid(slots: int, boundaries) -> np.ndarray:
    """``b_0 = 0 < ... < b_L = T``: unit slots by default."""
    if boundaries is None:
        return np.arange(int(slots) + 1, dtype=np.int64)
    b = np.asarray(boundaries, dtype=np.int64)
    if b.ndim != 1 or b.size < 2 or b[0] != 0 or np.any(np.diff(b) <= 0) or \
            b[-1] != int(slots):
        raise InvalidParameterError(f"boundaries must rise strictly from 0 to slots={slots}")
    return b


def _objective(n: int, K: int, b: np.ndarray, oX: int, instance: Instance, slot: float,
               ready: np.ndarray):
    """``c``, its exact values (or None) and the offset of ``sum_k w_k s sum_l c_kl (X[k,l] -
    X[k,l-1])`` with ``c_kl = max(b_{l-1} + 1, e_k)`` the earliest completion in interval
    ``l``: ``= sum_k w_k s (c_kL - sum_{l<L} (c_k,l+1 - c_kl) X[k,l])`` (``X[k,L] = 1``).  On
    unit slots ``c_kl = l`` wherever ``X`` is free."""
    L = b.size - 1
    w = [Fraction(float(v)) for v in instance.weight.tolist()]
    s = Fraction(float(slot))
    c = np.zeros(n)
    cex = np.full(n, None, dtype=object)
    inexact = False
    offset = Fraction(0)
    for k in range(K):
        lo_cost = np.maximum(b[:-1] + 1, int(ready[k]))          # c_kl, l = 1..L
        offset += w[k] * s * int(lo_cost[-1])
        step = np.diff(lo_cost)                                    # c_k,l+1 - c_kl, l < L
        for l in np.flatnonzero(step).tolist():
            v = -w[k] * s * int(step[l])
            c[oX + k * L + l] = float(v)
            if Fraction(float(v)) != v:
                inexact = True
            cex[oX + k * L + l] = v
    return c, (cex if inexact else None), offset


def _check_T(loads: IntegralLoads, T: int) -> int:
    T = int(T)
    need = int(loads.ready.max()) if loads.ready.size else 1
    if T < need:
        raise InvalidParameterError(f"the horizon of {T} slots ends before a coflow can "
                                    f"complete (slot {need}): the LP would be infeasible")
    return T


def _free_from(loads: IntegralLoads, b: np.ndarray) -> np.ndarray:
    """Per coflow, the first interval index ``l`` (1-based) with ``b_l >= e_k``."""
    return np.searchsorted(b, loads.ready, side="left").astype(np.int64)


def _cdf_columns(loads: IntegralLoads, K: int, b: np.ndarray, oX: int, col_lo, col_hi) -> None:
    """Bounds of ``X[k,l]`` (column ``oX + k L + l - 1``): 0 while ``b_l < e_k``, 1 at ``L``."""
    L = b.size - 1
    free = b[None, 1:] >= loads.ready[:, None]
    col_hi[oX:oX + K * L] = np.where(free, 1.0, 0.0).ravel()
    col_lo[oX + np.arange(K) * L + (L - 1)] = 1.0


def _monotone_rows(asm: MatrixAssembler, r0: int, loads: IntegralLoads, K: int,
                   b: np.ndarray, oX: int, lo: list, hi: list) -> int:
    """``X[k,l] - X[k,l+1] <= 0`` for ``l_k <= l < L`` (``l_k`` the first free interval)."""
    L = b.size - 1
    f = _free_from(loads, b)
    ks = np.repeat(np.arange(K), np.maximum(L - f, 0))
    ls = np.concatenate([np.arange(int(e), L) for e in f]).astype(np.int64) if K else \
        np.zeros(0, np.int64)
    n = ks.size
    rows = r0 + np.arange(n)
    asm.add(rows, oX + ks * L + ls - 1, 1.0)
    asm.add(rows, oX + ks * L + ls, -1.0)
    lo.append(np.full(n, -np.inf))
    hi.append(np.zeros(n))
    return n


def _load_rows(asm: MatrixAssembler, r0: int, loads: IntegralLoads, b: np.ndarray, oX: int,
               lo: list, hi: list, release_rows: bool) -> tuple[int, int]:
    """The load rows of LP-A at the interval ends; returns (rows, number of thresholds)."""
    L = b.size - 1
    rhos = np.unique(np.r_[0, loads.first]) if release_rows else np.zeros(1, np.int64)
    n = 0
    for rho in rhos.tolist():
        sel = loads.first[loads.load_k] >= rho
        ek, eq, ed = loads.load_k[sel], loads.load_q[sel], loads.load[sel]
        for q in np.unique(eq).tolist():
            m = eq == q
            kk, dd = ek[m], ed[m]
            c = int(loads.cap[q])
            total = int(dd.sum())
            # rows with c (b_l - rho) >= total cannot bind (X <= 1)
            ls = np.flatnonzero((b > rho) & (c * (b - rho) < total)).astype(np.int64)
            if ls.size == 0:
                continue
            rows = r0 + n + np.arange(ls.size)
            # entries only where X[k,l] is free (b_l >= e_k; it is 0 before)
            ll, kj = np.meshgrid(ls, np.arange(kk.size), indexing="ij")
            rr = np.broadcast_to(rows[:, None], ll.shape)
            ok = b[ll] >= loads.ready[kk][kj]
            asm.add(rr[ok], oX + kk[kj[ok]] * L + ll[ok] - 1, dd[kj[ok]].astype(float))
            lo.append(np.full(ls.size, -np.inf))
            hi.append((c * (b[ls] - rho)).astype(float))
            n += ls.size
    return n, int(rhos.size)


def _meta_grid(b: np.ndarray, boundaries) -> dict:
    return {"slots": int(b[-1]), "intervals": int(b.size - 1),
            "boundaries": None if boundaries is None else b.tolist()}


def _matrix_and_objective(asm, r: int, n: int, K: int, b, oX: int, instance, slot, loads):
    """What LP-A and LP-B end with: the constraint matrix of ``r`` rows, the objective, its
    offset and the exact data (``offset``, and ``c`` when the float objective is rounded)."""
    A, _ = asm.csr(r, n)
    c, cex, offset = _objective(n, K, b, oX, instance, slot, loads.ready)
    exact = {"offset": offset}
    if cex is not None:
        exact["c"] = cex
    return A, c, offset, exact


def _setup(instance: Instance, slots: int, slot: float, cutoff: bool, boundaries):
    """What LP-A and LP-B share: the integral loads (``ready`` moved to ``e_k + 1`` without the
    cut-off), the checked horizon ``T``, the interval ends ``b`` and their count ``L``."""
    loads = integral_loads(instance, slot)
    if not cutoff:
        loads.ready = loads.first + 1
    T = _check_T(loads, slots)
    b = _grid(T, boundaries)
    return loads, T, b, b.size - 1


def build_lp_a(instance: Instance, slots: int, *, slot: float = 1.0, release_rows: bool = True,
               cutoff: bool = True, boundaries=None) -> LinearProgram:
    """LP-A over ``slots`` unit slots, or over the intervals ``boundaries`` (module
    docstring; ``formulations/lp_a_lp_b.md``).

    Parameters
    ----------
    instance : Instance
        In the integral model at ``slot`` (whole sizes and ``capacity x slot``).
    slots : int
        ``T``; it must contain some optimal integral schedule for the LP to bound the optimum
        (:func:`coflowopt.exact.integral_mip.integral_horizon`).
    slot : float
        Slot length ``s``.
    release_rows : bool
        The load rows for every release threshold ``rho = a_k`` (else ``rho = 0`` only).
    cutoff : bool
        ``X[k,t] = 0`` for ``t < e_k`` (else only for ``t <= a_k``): without it the LP has
        gap ``2 Delta / (Delta + 1)`` on one coflow ``K_{Delta,Delta}`` (digest 2.10).
    boundaries : array_like of int, optional
        Interval ends ``0 = b_0 < ... < b_L = slots`` (:func:`geometric_boundaries`); the
        CDFs live at the ends and a completion in ``(b_{l-1}, b_l]`` costs ``b_{l-1} + 1``
        (at least ``e_k``).  Default: unit slots.

    Returns
    -------
    LinearProgram
        Column block ``X`` (K x L, ``L = T`` on unit slots); ``meta`` records the builder's
        parameters.

    Examples
    --------
    One coflow: a 2x2 all-to-all of unit flows (Delta = 2) on a unit-capacity switch.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(i, j, 1) for i in range(2)
    ...                                             for j in range(2)])])
    >>> from coflowopt.formulations.highs import HighsModel
    >>> round(HighsModel(build_lp_a(inst, 4)).run().objective, 9)
    2.0
    >>> round(HighsModel(build_lp_a(inst, 4, cutoff=False)).run().objective, 9)
    1.5
    """
    loads, T, b, L = _setup(instance, slots, slot, cutoff, boundaries)
    K = instance.num_coflows
    oX, n = 0, K * L
    col_lo, col_hi = np.zeros(n), np.zeros(n)
    _cdf_columns(loads, K, b, oX, col_lo, col_hi)
    asm = MatrixAssembler()
    lo: list = []
    hi: list = []
    r = _monotone_rows(asm, 0, loads, K, b, oX, lo, hi)
    nl, nrho = _load_rows(asm, r, loads, b, oX, lo, hi, release_rows)
    r += nl
    A, c, offset, exact = _matrix_and_objective(asm, r, n, K, b, oX, instance, slot, loads)
    return LinearProgram(
        name=LP_NAMES["a"], c=c, A=A, row_lo=np.concatenate(lo) if lo else np.zeros(0),
        row_hi=np.concatenate(hi) if hi else np.zeros(0), col_lo=col_lo, col_hi=col_hi,
        offset=float(offset), exact=exact, col_blocks={"X": (oX, oX + K * L, (K, L))},
        meta={**_meta_grid(b, boundaries), "slot": float(slot), "release_rows": release_rows,
              "cutoff": cutoff, "load_rows": nl, "thresholds": nrho})


def build_lp_b(instance: Instance, slots: int, *, slot: float = 1.0, cutoff: bool = True,
               load_rows: bool = False, release_rows: bool = True,
               boundaries=None) -> LinearProgram:
    """LP-B over ``slots`` unit slots (or the intervals ``boundaries``): LP-A's CDFs and
    cut-off plus a fractional schedule per slot (interval) (module docstring;
    ``formulations/lp_a_lp_b.md``).

    Parameters
    ----------
    instance, slots, slot, cutoff, boundaries :
        As :func:`build_lp_a`; over intervals the capacity row of ``(q, l)`` is ``c_q (b_l -
        b_{l-1})``.
    load_rows : bool
        Add LP-A's load rows too (implied by the others; off by default).
    release_rows : bool
        With ``load_rows``: their release thresholds.

    Returns
    -------
    LinearProgram
        Column blocks ``X`` (K x L) and ``U`` (groups x L).

    Examples
    --------
    A 2x2 all-to-all again: LP-B = LP-A = Delta = 2.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(i, j, 1) for i in range(2)
    ...                                             for j in range(2)])])
    >>> from coflowopt.formulations.highs import HighsModel
    >>> round(HighsModel(build_lp_b(inst, 4)).run().objective, 9)
    2.0
    """
    loads, T, b, L = _setup(instance, slots, slot, cutoff, boundaries)
    data = loads.data
    K, G = instance.num_coflows, data.num_groups
    oX, oU = 0, K * L
    n = oU + G * L
    col_lo, col_hi = np.zeros(n), np.zeros(n)
    _cdf_columns(loads, K, b, oX, col_lo, col_hi)
    gk = data.gk
    gsize = data.gsize.astype(float)
    gfirst = data.first[gk]
    ufree = b[None, 1:] > gfirst[:, None]                 # some slot of (0, b_l] after a_k
    col_hi[oU:n] = np.where(ufree, gsize[:, None], 0.0).ravel()
    col_lo[oU + np.arange(G) * L + (L - 1)] = gsize
    # first interval whose U is free: b_l > a_k
    uf = np.searchsorted(b, gfirst, side="right").astype(np.int64)
    asm = MatrixAssembler()
    lo: list = []
    hi: list = []
    r = _monotone_rows(asm, 0, loads, K, b, oX, lo, hi)
    # U monotone: U[g,l-1] - U[g,l] <= 0 for uf_g + 1 <= l <= L
    gs = np.repeat(np.arange(G), np.maximum(L - uf, 0))
    ls = np.concatenate([np.arange(int(a) + 1, L + 1) for a in uf]).astype(np.int64) \
        if G else np.zeros(0, np.int64)
    rows = r + np.arange(gs.size)
    asm.add(rows, oU + gs * L + ls - 2, 1.0)
    asm.add(rows, oU + gs * L + ls - 1, -1.0)
    lo.append(np.full(gs.size, -np.inf))
    hi.append(np.zeros(gs.size))
    r += gs.size
    # capacity (q, l): sum_{g: q in P_g} U[g,l] - U[g,l-1] <= c_q (b_l - b_{l-1}), for
    # resources whose total load exceeds c_q (else no row of q can bind)
    gg, rq = data.groups.resource_entries()
    R = instance.num_resources
    qload = np.zeros(R, dtype=np.int64)
    np.add.at(qload, rq, data.gsize[gg])
    busy = np.flatnonzero(qload > data.cap)
    qrow = np.full(R, -1, dtype=np.int64)
    qrow[busy] = np.arange(busy.size)
    m = qrow[rq] >= 0
    eg, eq = gg[m], qrow[rq[m]]
    lidx = np.arange(1, L + 1)
    # entry U[g,l] (+1) for l >= uf_g and U[g,l-1] (-1) for l - 1 >= uf_g
    for sign, shift in ((1.0, 0), (-1.0, 1)):
        ll = lidx[None, :].repeat(eg.size, axis=0)
        ok = (ll - shift) >= uf[eg][:, None]
        ge = np.broadcast_to(eg[:, None], ll.shape)[ok]
        qe = np.broadcast_to(eq[:, None], ll.shape)[ok]
        le = ll[ok]
        asm.add(r + qe * L + le - 1, oU + ge * L + le - shift - 1, sign)
    lo.append(np.full(busy.size * L, -np.inf))
    hi.append((data.cap[busy][:, None] * np.diff(b)[None, :]).astype(float).ravel())
    r += busy.size * L
    # coverage (g, l): d_g X[k,l] - U[g,l] <= 0 for l_k <= l < L
    f = _free_from(loads, b)[gk]
    gs = np.repeat(np.arange(G), np.maximum(L - f, 0))
    ls = np.concatenate([np.arange(int(e), L) for e in f]).astype(np.int64) \
        if G else np.zeros(0, np.int64)
    rows = r + np.arange(gs.size)
    asm.add(rows, oX + gk[gs] * L + ls - 1, gsize[gs])
    asm.add(rows, oU + gs * L + ls - 1, -1.0)
    lo.append(np.full(gs.size, -np.inf))
    hi.append(np.zeros(gs.size))
    r += gs.size
    nl = 0
    if load_rows:
        nl, _ = _load_rows(asm, r, loads, b, oX, lo, hi, release_rows)
        r += nl
    A, c, offset, exact = _matrix_and_objective(asm, r, n, K, b, oX, instance, slot, loads)
    return LinearProgram(
        name=LP_NAMES["b"], c=c, A=A, row_lo=np.concatenate(lo), row_hi=np.concatenate(hi),
        col_lo=col_lo, col_hi=col_hi, offset=float(offset), exact=exact,
        col_blocks={"X": (oX, oU, (K, L)), "U": (oU, n, (G, L))},
        meta={**_meta_grid(b, boundaries), "slot": float(slot), "cutoff": cutoff,
              "load_rows": nl, "groups": G})


@register_rebuilder(LP_NAMES["a"])
def _rebuild_a(instance: Instance, params: dict, rows) -> LinearProgram:
    return build_lp_a(instance, int(params["slots"]), slot=float(params["slot"]),
                      release_rows=bool(params.get("release_rows", True)),
                      cutoff=bool(params.get("cutoff", True)),
                      boundaries=params.get("boundaries"))


@register_rebuilder(LP_NAMES["b"])
def _rebuild_b(instance: Instance, params: dict, rows) -> LinearProgram:
    return build_lp_b(instance, int(params["slots"]), slot=float(params["slot"]),
                      cutoff=bool(params.get("cutoff", True)),
                      load_rows=bool(params.get("load_rows", False)),
                      release_rows=bool(params.get("release_rows", True)),
                      boundaries=params.get("boundaries"))
