"""BSSI's dual as a certified lower bound (Sincronia tech report section 9).

Sincronia's primal-dual algorithm (Algorithm 3; Algorithm 1 = BSSI when all releases are 0)
builds a feasible solution of the dual (4)-(5) of LP-primal: ``beta_{J,b}`` = the selection
ratio for the set ``J`` of coflows unscheduled at that step and its bottleneck ``b``, and
``gamma`` for the coflows placed last because of a large release date.  By weak duality and
Lemma 1 its objective

    sum_k beta_k h_{b_k}(J_k) + sum_k gamma_k r_k

is a lower bound on the optimum.

This module wraps the orderings engineer's :func:`coflowopt.orderings.bssi.bssi_trace` (the
run) and :func:`~coflowopt.orderings.bssi.dual_bound_of_trace` (their own exact evaluation
of the same run, :func:`~coflowopt.orderings.bssi.bssi_dual_bound` without a second run): the
run's duals become cuts of the ordering LP (:func:`~coflowopt.formulations.ordering_lp.
bssi_cuts`, rows = LP-primal's, stored as nested cuts since every set is a prefix of the
order: ``O(K)`` memory and an exact check linear in the loads), and the certificate is checked
like every other bound here, by rebuilding the LP from the instance and recomputing the dual
objective exactly.  The
residual weight of a coflow (the ``gamma`` of a release step, or rounding leftovers) multiplies
its isolation bound ``r_k + rho_k >= r_k``, so the certified figure is at least Sincronia's
expression; their figure is recorded in ``extra["orderings_value_exact"]`` and the tests check
that the two agree.

On an instance over resources the machines of LP-primal are the resources (each row is one
resource and one set of coflows, a single machine of unit speed in time units), so the same
duals certify a lower bound there (:mod:`coflowopt.orderings.bssi`, "Resources").
"""

from __future__ import annotations

import time

from ..instance import Instance
from ..orderings.bssi import bssi_trace, dual_bound_of_trace
from ..registry import register
from ..results import Result
from ..formulations.certificates import LPCertificate, fraction_str
from ..formulations.ordering_lp import bssi_cuts
from .common import certified_result, check_objective, port_name

__all__ = ["bssi_dual"]


@register("bound", "bssi-dual", summary="the dual solution built by Sincronia's primal-dual "
          "(BSSI) ordering, checked as a dual of the ordering LP",
          reference="Sincronia tech report section 9: LP-primal, dual (4)-(5), Lemma 1, "
          "Algorithm 3; anchors-algorithms.md section 2.3; proofs/bssi_dual_certificate.md",
          guarantee="valid lower bound on the fluid optimum; <= ordering-lp (proved); "
                    "with zero releases >= OPT/4 (BSSI + greedy is a 4-approximation)",
          tags=("certificate", "weights", "release_dates", "heterogeneous_capacities",
                "exact_arithmetic"))
def bssi_dual(instance: Instance, *, objective: str = "weighted_completion_time",
              exact: bool | None = None, tie_break: str = "paper",
              release: str = "algorithm3") -> Result:
    """BSSI's dual objective as a certified lower bound.

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    exact : bool, optional
        Run BSSI in Fractions (default when ``K * P <= 20000``); otherwise in floats, and the
        certificate check repairs the rounding.
    tie_break : {"paper", "first"}
        BSSI's tie-breaking (:func:`coflowopt.orderings.bssi.bssi`).
    release : {"algorithm3", "ignore"}
        Algorithm 3's release test, or BSSI on the instance without releases (also valid).

    Returns
    -------
    Result
        ``extra`` holds the order, the bottleneck ports and the orderings module's own figure.

    Examples
    --------
    T-S3 and T-S4 of seeds-000-002.md section 1.3:

    >>> from coflowopt import Instance, Coflow
    >>> ts3 = Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
    ...                              Coflow("B", [(0, 0, 2), (1, 1, 2)]),
    ...                              Coflow("C", [(1, 0, 3)])])
    >>> bssi_dual(ts3).value
    Fraction(10, 1)
    >>> ts4 = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
    ...                              Coflow("B", [(0, 0, 9)]),
    ...                              Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    >>> bssi_dual(ts4).value
    Fraction(269, 9)
    """
    check_objective(objective)
    if exact is None:
        exact = instance.num_coflows * instance.num_ports <= 20000
    t0 = time.perf_counter()
    trace = bssi_trace(instance, tie_break=tie_break, release=release, exact=bool(exact),
                       record_weights=False)
    pd = bssi_cuts(trace)
    elapsed = time.perf_counter() - t0
    # their own exact figure, from the same run (bssi_dual_bound would run BSSI again)
    theirs = dual_bound_of_trace(instance, trace)
    cert = LPCertificate(formulation="ordering-lp", params={},
                         row_duals=pd.row_duals(instance.capacity), rows=pd.cuts,
                         claimed_value=float(theirs.value_exact), source="bssi")
    extra = {"order": [instance.coflow_ids[k] for k in trace.order.tolist()],
             "bottlenecks": [port_name(instance, q) for q in trace.bottleneck.tolist()],
             "orderings_value_exact": fraction_str(theirs.value_exact),
             "exact_arithmetic": bool(exact),
             "release_steps": int(trace.release_branch.sum())}
    return certified_result(instance, cert, algorithm="bssi-dual", objective=objective,
                            status="optimal",
                            params={"objective": objective, "exact": exact,
                                    "tie_break": tie_break, "release": release},
                            solver={"name": "BSSI primal-dual (coflowopt.orderings.bssi)"},
                            timings={"compute": elapsed}, extra=extra)
