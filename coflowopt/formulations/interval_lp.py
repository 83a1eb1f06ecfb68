"""The interval-indexed LP on geometric intervals (Qiu, Stein and Zhong, SPAA 2015).

Points ``tau_0 = 0 < tau_1 < ... < tau_L`` with ``tau_l = tau_1 (1 + eps)^(l-1)``; interval
``l`` is ``(tau_{l-1}, tau_l]`` and interval ``L+1`` is ``(tau_L, inf)`` (the overflow
interval: no horizon assumption).  ``y_kl`` is the fraction of coflow k "completed by
``tau_l``" (cumulative form of QSZ's ``x_kl``, ``x_kl = y_kl - y_k,l-1``)::

    min  sum_k w_k sum_{l=1}^{L+1} a_kl (y_kl - y_k,l-1),     a_kl = max(tau_{l-1}, r_k + rho_k)
    s.t. y_k,l-1 <= y_kl,   y_k,0 = 0,   y_k,L+1 = 1
         sum_k d_k^q y_kl <= c_q tau_l                 for every port q and l = 1..L
         y_kl = 0                                      if tau_l < r_k + rho_k
         0 <= y_kl <= 1

It is a lower bound on the fluid optimum: for any schedule set ``y_kl = 1`` iff ``C_k <= tau_l``;
every coflow completed by ``tau_l`` has sent all its data through every port by then, and a
coflow completing in interval ``l`` has ``C_k >= a_kl`` (``formulations/interval_lp.md``).
All columns are bounded, so any dual vector certifies a bound after sign clipping.

The coefficient of ``y_kl`` (``l <= L``) in the objective is ``w_k (a_kl - a_k,l+1) <= 0`` and
``y_k,L+1 = 1`` contributes the constant ``w_k a_k,L+1``.

References
----------
Z. Qiu, C. Stein, Y. Zhong, "Minimizing the total weighted completion time of coflows in
datacenter networks", SPAA 2015 (interval-indexed LP, grouping, Birkhoff-von Neumann);
anchors-algorithms.md section 3.3 (the generic interval-indexed LP, marked [R] there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..limits import DYNAMIC_RANGE_MAX
from .certificates import register_rebuilder
from .linear_program import LinearProgram, MatrixAssembler, float_down
from .ordering_lp import isolation_lower_bounds, port_loads

__all__ = ["IntervalGrid", "interval_grid", "build_interval_lp", "lp_completion_times"]


@dataclass
class IntervalGrid:
    """The points ``tau_1 .. tau_L`` (floats; ``tau_0 = 0``)."""

    tau: np.ndarray
    epsilon: float

    @property
    def L(self) -> int:
        return int(self.tau.shape[0])

    def to_dict(self) -> dict[str, Any]:
        return {"tau": self.tau.tolist(), "epsilon": self.epsilon}


def interval_grid(instance: Instance, *, epsilon: float = 0.25, first: float | None = None,
                  last: float | None = None) -> IntervalGrid:
    """Geometric points from ``first`` (default: the smallest ``r_k + rho_k``) growing by
    ``1 + epsilon`` until ``last`` (default: ``sum_k (r_k + rho_k)`` plus the largest release,
    the makespan of running the coflows one after another).  Any grid is valid; a finer one
    (smaller ``epsilon``) gives a larger bound."""
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise InvalidParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    iso, _ = isolation_lower_bounds(instance)
    base = float(np.min(iso))
    if first is None:
        first = base
    if last is None:
        last = max(float(np.sum(instance.rho) + np.max(instance.release)), first)
    if not (first > 0 and last >= first):
        raise InvalidParameterError(f"need 0 < first <= last, got first={first!r}, "
                                    f"last={last!r}")
    # every point within DYNAMIC_RANGE_MAX of the smallest r_k + rho_k, as the instance's own
    # times are: first = 1e30 or epsilon = 1e30 put points where the float LP (HiGHS: 1e20 is
    # infinite) no longer sees them (its objective came back -inf)
    lo, hi = base / DYNAMIC_RANGE_MAX, base * DYNAMIC_RANGE_MAX
    if not (lo <= first and last <= hi):
        raise InvalidParameterError(
            f"first and last must lie in [{lo:.6g}, {hi:.6g}] (DYNAMIC_RANGE_MAX = "
            f"{DYNAMIC_RANGE_MAX:g} around the smallest r_k + rho_k = {base:.6g}), got "
            f"first={first!r}, last={last!r}")
    steps = math.log(last / first) / math.log1p(epsilon)   # inf for epsilon = 1e-320
    if not steps < 100_000:
        raise InvalidParameterError(f"epsilon = {epsilon!r} gives "
                                    f"{'more than 100000' if steps > 1e15 else int(steps) + 1}"
                                    " intervals (at most 100000): choose a larger epsilon")
    L = int(math.ceil(steps)) + 1
    tau = first * (1.0 + epsilon) ** np.arange(L)
    if not tau[-1] <= hi * (1.0 + min(epsilon, 1.0)):   # the last step may pass `last`
        raise InvalidParameterError(
            f"epsilon = {epsilon!r} puts the grid's last point at {tau[-1]:.6g}, beyond "
            f"{hi:.6g} (DYNAMIC_RANGE_MAX around the smallest r_k + rho_k): choose a smaller "
            "epsilon")
    return IntervalGrid(tau=np.asarray(tau, dtype=float), epsilon=float(epsilon))


def build_interval_lp(instance: Instance, grid: IntervalGrid, *, exact: bool = True
                      ) -> LinearProgram:
    """The interval-indexed LP (module docstring) with exact data.

    Columns ``y_kl`` for ``l = 1..L`` (block ``"y"``, shape (K, L)); ``y_k,L+1 = 1`` is folded
    into the objective offset.

    ``exact=False`` builds the same float LP (``c``, ``A``, bounds and offset equal to the last
    bit, ``tests/test_interval_lp_float.py``) without the exact data a certificate needs: no
    ``K x L`` Fractions, so it is what a caller that only solves the LP uses (``qsz``).
    """
    tau = np.asarray(grid.tau, dtype=float)
    if tau.ndim != 1 or tau.size == 0 or np.any(np.diff(tau) <= 0) or tau[0] <= 0:
        raise InvalidParameterError("interval points must be positive and increasing")
    K, L = instance.num_coflows, tau.size
    loads = port_loads(instance)
    iso_f, iso_ex = isolation_lower_bounds(instance, loads)
    w = np.asarray(instance.weight, dtype=float)
    taus_ex = [Fraction(0)] + [Fraction(float(t)) for t in tau]
    n = K * L
    # y_kl fixed to 0 where tau_l < r_k + rho_k (tau_l >= iso_ex exactly: _tau_at_least)
    col_hi = _tau_at_least(tau, iso_f, iso_ex).astype(float).ravel()
    if exact:
        # a_kl = max(tau_{l-1}, r_k + rho_k), l = 1..L+1
        a = [[max(taus_ex[l - 1], iso_ex[k]) for l in range(1, L + 2)] for k in range(K)]
        c_ex = np.empty(n, dtype=object)
        offset_ex = Fraction(0)
        for k in range(K):
            wk = Fraction(float(w[k]))
            for l in range(L):
                c_ex[k * L + l] = wk * (a[k][l] - a[k][l + 1])
            offset_ex += wk * a[k][L]
        c = np.asarray([float(v) for v in c_ex])
    else:
        c, offset_ex = _float_costs(tau, taus_ex, w, iso_f, iso_ex)
    asm = MatrixAssembler()
    # monotone rows: y_kl - y_k,l-1 >= 0, l = 2..L
    kk, ll = np.meshgrid(np.arange(K), np.arange(1, L), indexing="ij")
    nmono = K * (L - 1)
    rr = (kk * (L - 1) + ll - 1).ravel()
    asm.add(rr, (kk * L + ll).ravel(), 1.0)
    asm.add(rr, (kk * L + ll - 1).ravel(), -1.0)
    # capacity rows: sum_k d_k^q y_kl <= c_q tau_l
    P = instance.num_ports
    E = loads.coflow.size
    r0 = nmono
    ent = np.repeat(np.arange(E), L)
    lcol = np.tile(np.arange(L), E)
    rows = r0 + loads.port[ent] * L + lcol
    cols = loads.coflow[ent] * L + lcol
    if loads.exact_is_float or not exact:
        asm.add(rows, cols, loads.load[ent])
    else:
        ex = [loads.exact_load(i) for i in range(E)]
        asm.add(rows, cols, loads.load[ent], exact=np.asarray([ex[i] for i in ent.tolist()],
                                                              dtype=object))
    cap = np.asarray(instance.capacity, dtype=float)
    cap_ex = np.empty(P * L, dtype=object)
    cap_ex[:] = [Fraction(float(cq)) * taus_ex[l + 1] for cq in cap for l in range(L)]
    m = nmono + P * L
    A, a_exact = asm.csr(m, n)
    row_lo = np.r_[np.zeros(nmono), np.full(P * L, -np.inf)]
    row_hi = np.r_[np.full(nmono, np.inf), np.asarray([float_down(v) for v in cap_ex])]
    ex_data: dict[str, Any] = {}
    if exact:
        rh_ex = np.empty(m, dtype=object)
        rh_ex[:] = None
        rh_ex[nmono:] = cap_ex
        ex_data = {"c": c_ex, "offset": offset_ex, "row_hi": rh_ex}
        if a_exact is not None:
            ex_data["A_data"] = a_exact
    return LinearProgram(
        name="interval-lp", c=c, A=A, row_lo=row_lo, row_hi=row_hi, col_lo=np.zeros(n),
        col_hi=col_hi, offset=float(offset_ex), exact=ex_data,
        col_blocks={"y": (0, n, (K, L))},
        row_blocks={"monotone": (0, nmono, (K, L - 1)), "capacity": (nmono, m, (P, L))},
        meta={"intervals": L, "epsilon": grid.epsilon, "tau": tau.tolist()})


def _tau_at_least(tau: np.ndarray, iso_f: np.ndarray, iso_ex: list[Fraction]) -> np.ndarray:
    """``tau_l >= iso_ex[k]`` exactly, shape (K, L), from floats.

    ``iso_f[k]`` is the largest float ``<= iso_ex[k]``; for a float ``tau``, ``tau >= iso_ex``
    iff ``tau >= iso_f`` when ``iso_ex`` is that float, else iff ``tau > iso_f``.
    """
    on_float = np.fromiter((Fraction(float(f)) == e for f, e in zip(iso_f, iso_ex)),
                           dtype=bool, count=len(iso_ex))
    t, f = tau[None, :], iso_f[:, None]
    return np.where(on_float[:, None], t >= f, t > f)


def _float_costs(tau: np.ndarray, taus_ex: list[Fraction], w: np.ndarray, iso_f: np.ndarray,
                 iso_ex: list[Fraction]) -> tuple[np.ndarray, Fraction]:
    """``c`` of the interval LP as floats, each the exact value rounded once (as the exact
    build's ``float(c_ex)``), and the exact offset.

    ``c_kl = w_k (a_kl - a_k,l+1)`` with ``a_kl = max(tau_{l-1}, iso_k)`` is ``0`` when
    ``tau_l <= iso_k``, ``w_k (tau_{l-1} - tau_l)`` when ``tau_{l-1} >= iso_k`` (a float
    product correctly rounded, when the difference of the two floats is itself a float: always
    when ``tau_l <= 2 tau_{l-1}``, Sterbenz), else (one ``l`` per coflow) ``w_k (iso_k -
    tau_l)`` in Fractions.
    """
    K, L = len(iso_ex), tau.size
    taus = np.r_[0.0, tau]
    ge_hi = _tau_at_least(taus, iso_f, iso_ex)           # tau_j >= iso_k, j = 0..L
    # tau_j <= iso_k  iff  tau_j <= iso_f[k] (iso_f is the largest float <= iso_k)
    le_hi = taus[None, :] <= iso_f[:, None]
    d = taus[:-1] - taus[1:]
    d_exact = np.fromiter((Fraction(float(d[j])) == taus_ex[j] - taus_ex[j + 1]
                           for j in range(L)), dtype=bool, count=L)
    with np.errstate(all="ignore"):
        c = (w[:, None] * d[None, :]) + 0.0               # + 0.0: -0.0 becomes 0.0, as float(0)
    c[le_hi[:, 1:]] = 0.0
    mid = ~le_hi[:, 1:] & ~ge_hi[:, :-1]                 # tau_{l-1} < iso_k < tau_l
    slow = mid | (~le_hi[:, 1:] & ~d_exact[None, :])
    for k, l in zip(*np.nonzero(slow)):
        ak = max(taus_ex[l], iso_ex[k])
        c[k, l] = float(Fraction(float(w[k])) * (ak - max(taus_ex[l + 1], iso_ex[k])))
    offset = sum((Fraction(float(w[k])) * max(taus_ex[L], iso_ex[k]) for k in range(K)),
                 Fraction(0))
    return c.ravel(), offset


@register_rebuilder("interval-lp")
def _rebuild(instance: Instance, params: dict, rows) -> LinearProgram:
    return build_interval_lp(instance, IntervalGrid(tau=np.asarray(params["tau"], dtype=float),
                                                    epsilon=float(params.get("epsilon", 0))))


def lp_completion_times(instance: Instance, lp: LinearProgram, x: np.ndarray) -> np.ndarray:
    """LP completion time of every coflow: ``sum_l a_kl (y_kl - y_k,l-1)`` (float)."""
    y = lp.col_block("y", x)
    K, L = y.shape
    iso, _ = isolation_lower_bounds(instance)
    if "tau" not in lp.meta:
        raise InvalidParameterError("the LP does not record its interval points")
    tau = np.r_[0.0, np.asarray(lp.meta["tau"], dtype=float)]
    a = np.maximum(tau[None, :], iso[:, None])             # a_kl, l = 1..L+1
    yy = np.c_[np.zeros(K), np.clip(y, 0, 1), np.ones(K)]
    return np.sum(a * np.diff(yy, axis=1), axis=1)
