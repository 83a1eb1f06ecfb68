"""How close an instance comes to the proven inequalities the code relies on.

For an instance, :func:`claim_quantities` measures the left side over the right side of

* **Lemma 5** (``proofs/bssi-ordering-lp-2-approx.md``): ``sum_k w_k L_k / LB_BSSI <= 2`` for
  BSSI's order, ``L_k`` its ordered loads (zero releases; the release version ``<= 5`` uses
  ``max_{j<=k} r_j + 2 L_k``);
* **Lemma 3** (``proofs/ordered-load-lemma3.md``): ``max_k C_{sigma(k)} / (r_{sigma(k)} +
  2 L_k) <= 1`` for greedy (prefix-maximal) rates in the order ``sigma``;
* **Theorem 2's upper bound** (``proofs/theorem2-order-preserving-tight.md``): greedy's
  ``sum w C`` over ``sum_k w_k L_k`` (a lower bound on ``OPT(A(sigma))``) ``<= 2``;
* **Theorem 1** (``proofs/sincronia-4-and-5-approximation.md``): BSSI+greedy over its own dual
  bound ``<= 4`` (zero releases; 5 with releases), and over the optimum when one is given.

The adversarial search maximises ``ALG/OPT``; these quantities say what its instances do to
the intermediate inequalities (``experiments/adversarial_study.py`` reports them for the stored
instances, ``tests/test_proofs.py::test_claims_hold_on_stored_adversarial_instances`` checks
them).  Every schedule is verified; ratios are floats with their base in the key name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..instance import Instance
from ..registry import get_algorithm
from ..verify import verify_schedule

__all__ = ["claim_quantities", "CLAIM_LIMITS"]

#: The proven upper limit of each quantity (zero releases; with releases, Lemma 5 and
#: Theorem 1 become 5).
CLAIM_LIMITS = {"lemma5_loads_over_bssi_lb": 2.0, "lemma3_max_completion_over_bound": 1.0,
                "theorem2_greedy_over_load_sum": 2.0, "theorem1_bssi_greedy_over_bssi_lb": 4.0}


def claim_quantities(instance: Instance, *, orders=("bssi",), opt=None) -> dict[str, Any]:
    """The ratios of the module docstring on ``instance``.

    Parameters
    ----------
    instance : Instance
    orders : sequence of str
        Registered orderings for Lemma 3 and Theorem 2 (greedy rates in each order); the
        reported value is the largest over them.
    opt : number, optional
        A proven optimum: adds ``theorem1_bssi_greedy_over_opt``.

    Returns
    -------
    dict
        ``lemma5_loads_over_bssi_lb``, ``lemma3_max_completion_over_bound``,
        ``theorem2_greedy_over_load_sum``, ``theorem1_bssi_greedy_over_bssi_lb`` (and
        ``..._over_opt``), ``limits`` (:data:`CLAIM_LIMITS`, 5 for Lemma 5 and Theorem 1 when
        some release is positive), ``holds`` (every quantity within its limit).

    Examples
    --------
    >>> from coflowopt.generators import sincronia_fig4
    >>> q = claim_quantities(sincronia_fig4(4, 2))
    >>> q["holds"], round(q["theorem1_bssi_greedy_over_bssi_lb"], 4)
    (True, 1.2667)
    """
    from ..orderings.bssi import bssi_dual_bound
    from ..testing import _ordered_loads
    greedy = get_algorithm("rates", "greedy").func
    lb = bssi_dual_bound(instance)
    lbv = float(lb.value_exact)
    w, r = instance.weight, instance.release
    releases = bool(np.any(r > 0))
    load_sum = float(np.sum(w[lb.order] * lb.load))
    if releases:
        lem5 = float(np.sum(w[lb.order] * (np.maximum.accumulate(r[lb.order]) + 2 * lb.load)))
    else:
        lem5 = load_sum
    out: dict[str, Any] = {"lemma5_loads_over_bssi_lb": lem5 / lbv}
    lem3, thm2, bssi_alg = 0.0, 0.0, None
    for name in orders:
        order = np.asarray(get_algorithm("ordering", name).func(instance), dtype=np.int64)
        rep = verify_schedule(instance, greedy(instance, order))
        rep.raise_if_invalid()
        cc = np.asarray(rep.coflow_completion, dtype=float)
        loads = _ordered_loads(instance, order)
        lem3 = max(lem3, float(np.max(cc[order] / (r[order] + 2 * loads))))
        alg = float(np.sum(w * cc))
        thm2 = max(thm2, alg / float(np.sum(w[order] * loads)))
        if name == "bssi":
            bssi_alg = alg
    if bssi_alg is None:
        rep = verify_schedule(instance, greedy(instance, np.asarray(lb.order)))
        bssi_alg = float(np.sum(w * np.asarray(rep.coflow_completion, dtype=float)))
    out["lemma3_max_completion_over_bound"] = lem3
    out["theorem2_greedy_over_load_sum"] = thm2
    out["theorem1_bssi_greedy_over_bssi_lb"] = bssi_alg / lbv
    if opt is not None:
        out["theorem1_bssi_greedy_over_opt"] = bssi_alg / float(opt)
    limits = dict(CLAIM_LIMITS)
    if releases:
        limits["lemma5_loads_over_bssi_lb"] = limits["theorem1_bssi_greedy_over_bssi_lb"] = 5.0
        limits.pop("theorem2_greedy_over_load_sum")    # the zero-release statement
    out["limits"] = limits
    out["holds"] = all(out[k] <= v * (1 + 1e-9) + 1e-12 for k, v in limits.items())
    return out
