"""The ordering-variable LP (LP-OV) of Shafiee and Ghaderi.

Variables ``f_k`` (completion time of coflow k) and, for every pair ``k < k'`` of coflows that
share a port, ``delta_kk'`` in ``[0, 1]`` ("k before k'"; ``delta_k'k = 1 - delta_kk'``)::

    min  sum_k w_k f_k
    s.t. c_q f_k >= d_k^q + sum_{k' != k} d_{k'}^q delta_{k'k}       for every port q used by k
         f_k >= r_k + rho_k
         0 <= delta <= 1

(the port rows of ``lpovls.m`` with processing times ``d / c`` for heterogeneous capacities,
written over the pair variables).  With ``ports="all"`` the rows are also written for ports
that k does not use (``d_k^q = 0``): still valid, and stronger.

It is a lower bound on the fluid optimum: for a schedule, let ``delta_k'k = 1`` iff ``k'``
completes before ``k`` (ties broken by index); every port has sent all the data of ``k`` and of
every coflow completed before ``k`` by ``C_k``.  Multiplying the port-q row of ``k`` by ``p_k^q``
and summing over ``k`` in ``S`` gives the parallel inequality of ``S`` (the derivation of
anchors-algorithms.md section 3.5), so **LP-OV >= the ordering LP without release rows**
(``formulations/lp_ov.md``).

References
----------
M. Shafiee, J. Ghaderi, "An improved bound for minimizing the total weighted completion time of
coflows in datacenters", IEEE/ACM ToN 26(4) 2018 (arXiv 1704.08357); Q.-T. Luu, MATLAB
``lpovls.m`` ("Implementation of LP-OV-LS").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from .certificates import register_rebuilder
from .linear_program import LinearProgram, MatrixAssembler, check_deadline, float_down
from .ordering_lp import isolation_lower_bounds, port_loads

__all__ = ["build_lp_ov"]


def check_ports(ports) -> None:
    """Refuse a ``ports`` setting other than ``"used"`` or ``"all"`` (LP-OV's rows)."""
    if ports not in ("used", "all"):
        raise InvalidParameterError(f"ports must be 'used' or 'all', got {ports!r}")


def build_lp_ov(instance: Instance, *, ports: str = "used",
                deadline: float | None = None) -> LinearProgram:
    """Build LP-OV (module docstring) with exact data.

    Parameters
    ----------
    instance : Instance
    ports : {"used", "all"}
        Write the row of coflow k at every port it uses, or at every port some other coflow
        uses.
    deadline : float, optional
        A :func:`time.perf_counter` time: past it, between the steps of the build (seconds
        apart at 10^7 non-zeros), raise :class:`~.linear_program.BuildDeadline`.

    Returns
    -------
    LinearProgram
        Column blocks ``"f"`` (K,) and ``"delta"`` (pairs,); ``meta["pairs"]`` lists the pairs.
    """
    check_ports(ports)
    K = instance.num_coflows
    loads = port_loads(instance)
    iso_f, iso_ex = isolation_lower_bounds(instance, loads)
    P = instance.num_ports
    # rows: (k, q) for every coflow k and port q of the chosen kind
    row_k, row_q = [], []
    for q in range(P):
        members = loads.coflow[loads.indptr[q]:loads.indptr[q + 1]]
        if members.size == 0:
            continue
        ks = members if ports == "used" else np.arange(K)
        row_k.append(ks)
        row_q.append(np.full(ks.size, q))
    row_k = np.concatenate(row_k) if row_k else np.zeros(0, np.int64)
    row_q = np.concatenate(row_q) if row_q else np.zeros(0, np.int64)
    m = row_k.size
    # pair entries: for row (k, q), every k' != k at q
    rk, kp, ent = [], [], []
    for q in range(P):
        lo, hi = int(loads.indptr[q]), int(loads.indptr[q + 1])
        if hi - lo == 0:
            continue
        rows_q = np.flatnonzero(row_q == q)
        ks = row_k[rows_q]
        e = np.arange(lo, hi)
        R, E = np.meshgrid(rows_q, e, indexing="ij")
        Kr, Ke = np.meshgrid(ks, loads.coflow[e], indexing="ij")
        keep = Kr != Ke
        rk.append(R[keep])
        kp.append(Ke[keep])
        ent.append(E[keep])
    rk = np.concatenate(rk) if rk else np.zeros(0, np.int64)
    kp = np.concatenate(kp) if kp else np.zeros(0, np.int64)
    ent = np.concatenate(ent) if ent else np.zeros(0, np.int64)
    kr = row_k[rk]
    check_deadline(deadline)
    lo_k, hi_k = np.minimum(kr, kp), np.maximum(kr, kp)
    pair_key, pair_col = np.unique(lo_k * K + hi_k, return_inverse=True)
    npairs = pair_key.size
    n = K + npairs
    # coefficient of delta_(min,max): -d_k' when k' < k (delta_k'k), +d_k' when k' > k
    sign = np.where(kp < kr, -1.0, 1.0)
    check_deadline(deadline)
    asm = MatrixAssembler()
    cap = np.asarray(instance.capacity, dtype=float)
    asm.add(np.arange(m), row_k, cap[row_q])
    if loads.exact_is_float:
        asm.add(rk, K + pair_col, sign * loads.load[ent])
    else:
        # one Fraction per load entry (and its negation), shared by every pair entry that
        # uses it: a Fraction per pair entry took minutes at 3,000 coflows
        ex_e = np.empty(loads.coflow.size, dtype=object)
        ex_e[:] = [loads.exact_load(i) for i in range(loads.coflow.size)]
        ex_neg = np.empty_like(ex_e)
        ex_neg[:] = [-v for v in ex_e.tolist()]
        ex = np.where(sign < 0, ex_neg[ent], ex_e[ent])
        asm.add(rk, K + pair_col, sign * loads.load[ent], exact=ex)
    check_deadline(deadline)
    A, a_exact = asm.csr(m, n)
    # right-hand side: d_k^q + sum_{k' > k at q} d_k'^q   (exact)
    check_deadline(deadline)
    rhs = _rhs_by_suffix_sums(loads, row_k, row_q)
    check_deadline(deadline)
    row_lo = np.asarray([float_down(v) for v in rhs])
    col_lo = np.r_[iso_f, np.zeros(npairs)]
    col_hi = np.r_[np.full(K, np.inf), np.ones(npairs)]
    cl_ex = np.empty(n, dtype=object)
    cl_ex[:] = None
    cl_ex[:K] = iso_ex
    exact: dict[str, Any] = {"row_lo": rhs, "col_lo": cl_ex}
    if a_exact is not None:
        exact["A_data"] = a_exact
    c = np.r_[np.asarray(instance.weight, dtype=float), np.zeros(npairs)]
    return LinearProgram(
        name="lp-ov", c=c, A=A, row_lo=row_lo, row_hi=np.full(m, np.inf), col_lo=col_lo,
        col_hi=col_hi, exact=exact, col_blocks={"f": (0, K, (K,)), "delta": (K, n, (npairs,))},
        meta={"ports": ports, "pairs": npairs, "rows": m,
              # pair column K + i is x_ab with a * K + b == pair_key[i] (a < b, ascending)
              "pair_key": pair_key,
              # row i is (coflow row_coflow[i], resource row_resource[i]): how a certificate
              # file names it (coflowopt.certificate_files)
              "row_coflow": row_k, "row_resource": row_q})


def _rhs_by_suffix_sums(loads, row_k: np.ndarray, row_q: np.ndarray) -> np.ndarray:
    """The exact right-hand sides ``d_k^q + sum_{k' > k} d_k'^q`` of the rows ``(k, q)`` as
    Fractions, from suffix sums of the exact loads within each resource (an instance over
    resources has a row per coflow and resource of its paths: hundreds of thousands on a
    fat-tree; one pass of integer sums instead of a Fraction per pair entry).

    The loads of resource ``q`` are ``loads.indptr[q]:loads.indptr[q+1]``, sorted by coflow
    index, as exact dyadic integers ``loads.exact.num * 2**loads.exact.exp``: the sum over
    ``k' > k`` is the segment's total minus its prefix up to the last coflow ``<= k``."""
    K = loads.num_coflows
    num = loads.exact.num
    cs = np.empty(num.size + 1, dtype=object)
    cs[0] = 0
    if num.size:
        cs[1:] = np.cumsum(num)
    keys = loads.port * K + loads.coflow
    first_after = np.searchsorted(keys, row_q * K + row_k, side="right")
    total = cs[loads.indptr[row_q + 1]] - cs[first_after]     # coflows k' > k at q
    own = loads.positions(row_q, row_k)
    total = total + np.where(own >= 0, num[np.maximum(own, 0)], 0)
    e = loads.exact.exp
    scale = Fraction(2) ** e
    out = np.empty(row_k.size, dtype=object)
    out[:] = [Fraction(int(v)) * scale for v in total.tolist()]
    return out


@register_rebuilder("lp-ov")
def _rebuild(instance: Instance, params: dict, rows) -> LinearProgram:
    return build_lp_ov(instance, ports=params.get("ports", "used"))
