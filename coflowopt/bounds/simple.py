"""Combinatorial lower bounds: the isolated bound and the per-port Smith bound.

Both come with a certificate of the same kind as every LP bound here: a dual solution of the
ordering LP (``formulations/ordering_lp.md``), checked exactly.  The isolated bound is the dual
with no cut (every weight on the column bound ``C_k >= r_k + rho_k``); the per-port bound is
Smith's rule on one port written as nested-set multipliers (proofs/isolated_and_port_bounds.md).

On an instance over resources (a topology) a "port" is a resource: ``rho_k`` is the largest
``d_k^r / c_r`` over the resources ``r`` of coflow ``k``'s paths (a flow's size counts in full at
each resource of its path) and the per-port bound is Smith's rule on one resource; both
arguments use a single resource at a time, so they hold unchanged (the big switch is the case
path = {ingress, egress}).
"""

from __future__ import annotations

import time

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import register
from ..results import Result
from ..formulations.certificates import LPCertificate
from ..formulations.ordering_lp import OrderingCuts, port_loads, smith_cuts
from .common import certified_result, check_objective, port_name

__all__ = ["isolated_bound", "port_bound", "smith_values"]


@register("bound", "isolated", summary="sum_k w_k (r_k + rho_k): every coflow alone in the "
          "fabric (rho_k = max port load / capacity)",
          reference="Varys (SIGCOMM 2014) Eq. 1 / Sincronia OCT; proofs/isolated_and_port_bounds.md",
          guarantee="valid lower bound on the fluid optimum; <= every other bound here",
          tags=("certificate", "weights", "release_dates", "heterogeneous_capacities",
                "exact_arithmetic"))
def isolated_bound(instance: Instance, *, objective: str = "weighted_completion_time"
                   ) -> Result:
    """The isolated bound ``sum_k w_k (r_k + rho_k)``.

    No schedule finishes coflow ``k`` before ``r_k + rho_k``: its bottleneck port must carry
    ``d_k^q`` data at rate at most ``c_q`` after the release.

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.

    Returns
    -------
    Result
        Kind ``lower_bound``; the certificate is the ordering-LP dual without cuts.

    Examples
    --------
    T-S4 (seeds-000-002.md section 1.3): rho = 6, 9, 11.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
    ...                               Coflow("B", [(0, 0, 9)]),
    ...                               Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    >>> isolated_bound(inst).value
    Fraction(26, 1)
    """
    check_objective(objective)
    t0 = time.perf_counter()
    cert = LPCertificate(formulation="ordering-lp", params={},
                         row_duals=np.zeros(0, dtype=object), rows=OrderingCuts.empty(),
                         claimed_value=float(np.sum(instance.weight *
                                                    (instance.release + instance.rho))),
                         source="isolation")
    return certified_result(instance, cert, algorithm="isolated", objective=objective,
                            status="optimal", params={"objective": objective},
                            solver={"name": "closed form"},
                            timings={"compute": time.perf_counter() - t0})


def smith_values(instance: Instance) -> np.ndarray:
    """Per-port bound of every port (float): Smith's optimum on the port plus ``w (r + rho)``
    of the coflows absent from it."""
    loads = port_loads(instance)
    K, P = instance.num_coflows, instance.num_ports
    w = np.asarray(instance.weight, dtype=float)
    iso = w * (np.asarray(instance.release) + np.asarray(instance.rho))
    pt = loads.ptime
    wk = w[loads.coflow]
    # Smith order within each port: w/p non-increasing, ties by coflow index
    with np.errstate(divide="ignore"):
        ratio = np.where(pt > 0, wk / pt, np.inf)
    order = np.lexsort((loads.coflow, -ratio, loads.port))
    ports = loads.port[order]
    p = pt[order]
    csum = np.cumsum(p)
    seg = np.flatnonzero(np.r_[True, ports[1:] != ports[:-1]])
    seg_id = np.cumsum(np.r_[True, ports[1:] != ports[:-1]]) - 1
    C = csum - np.r_[0.0, csum][seg][seg_id]
    smith = np.bincount(ports, weights=wk[order] * C, minlength=P)
    present_iso = np.bincount(loads.port, weights=iso[loads.coflow], minlength=P)
    return smith + (iso.sum() - present_iso)


@register("bound", "port", summary="best port of: Smith's rule on the port's processing times "
          "(releases ignored) plus w_k (r_k + rho_k) for the coflows absent from the port",
          reference="Smith (1956); concurrent open shop relaxation (Sincronia section 7); "
          "seeds-000-002.md T-S4; proofs/isolated_and_port_bounds.md",
          guarantee="valid lower bound on the fluid optimum; <= ordering-lp (proved)",
          tags=("certificate", "weights", "release_dates", "heterogeneous_capacities",
                "exact_arithmetic"))
def port_bound(instance: Instance, *, objective: str = "weighted_completion_time",
               port: int | None = None) -> Result:
    """The per-port single-machine bound, at the best port (or at ``port``).

    On port ``q`` the coflows using it form a single machine with processing times
    ``d_k^q / c_q``; Smith's rule (``w_k / p_k`` non-increasing) is optimal for
    ``sum w_k C_k`` there, also with preemption, and ignoring releases only lowers it.  Each
    coflow completes no earlier than its work on ``q``; the coflows absent from ``q`` keep
    ``r_k + rho_k``.  A port's figure can be below the isolated bound (Smith only charges a
    coflow its load on this port, while its bottleneck may be elsewhere, and releases are
    ignored); the best port is therefore compared with the isolated bound and the larger is
    reported (``extra["port"]`` is ``None`` when the isolated bound wins), so
    ``port >= isolated`` always.

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    port : int, optional
        Unified port index; default the port with the largest bound.

    Returns
    -------
    Result
        ``extra["port"]`` names the port; ``extra["per_port"]`` has every port's value (float).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
    ...                               Coflow("B", [(0, 0, 9)]),
    ...                               Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    >>> r = port_bound(inst)
    >>> r.value, r.extra["port"]
    (Fraction(32, 1), 'egress 0')
    """
    check_objective(objective)
    t0 = time.perf_counter()
    vals = smith_values(instance)
    if port is None:
        q = int(np.argmax(vals))
        iso = float(np.sum(instance.weight * (instance.release + instance.rho)))
        if iso > vals[q]:
            # a port's figure can fall below the isolated bound: Smith's rule only charges a
            # coflow on the port its load there (its bottleneck may be elsewhere) and ignores
            # releases; the isolated bound is then the better certificate
            res = isolated_bound(instance, objective=objective)
            res.algorithm = "port"
            res.params = {"objective": objective, "port": port}
            res.extra.update({"port": None, "per_port": vals.tolist(),
                              "note": "the isolated bound exceeds every port's Smith bound"})
            return res
    else:
        q = int(port)
        if not 0 <= q < instance.num_ports:
            raise InvalidParameterError(f"port must be a unified port index 0..."
                                        f"{instance.num_ports - 1}, got {port!r}")
    small = instance.num_coflows <= 5000
    pd = smith_cuts(instance, q, exact=small)
    cert = LPCertificate(formulation="ordering-lp", params={},
                         row_duals=pd.row_duals(instance.capacity), rows=pd.cuts,
                         claimed_value=float(vals[q]), source=f"smith:{port_name(instance, q)}")
    return certified_result(instance, cert, algorithm="port", objective=objective,
                            status="optimal", params={"objective": objective, "port": port},
                            solver={"name": "closed form"},
                            timings={"compute": time.perf_counter() - t0},
                            extra={"port": port_name(instance, q), "port_index": q,
                                   "per_port": vals.tolist()})
