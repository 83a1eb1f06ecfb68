"""The primal-dual 2-approximation for concurrent open shop (Mastrolilli et al. 2010).

Concurrent open shop: machines ``i`` and jobs ``j`` with processing times ``p_ij``; a job is
done when all its operations are, operations of one job may run in parallel on different
machines.  Dropping the coupling between a flow's ingress and egress port turns coflow
scheduling into concurrent open shop on the ``m_in + m_out`` ports, with ``p_{p,k} = d_k^p /
c_p`` (Sincronia Sec. 7; Roemer 2006), and Mastrolilli et al.'s primal-dual algorithm on those
machines is the ordering Sincronia calls BSSI.

This module implements it a second time, in the paper's own form and independently of
:mod:`coflowopt.orderings.bssi`: per step a dense recomputation of the machine loads over the
unscheduled jobs and of the residual weights ``w_j - sum_{l > k} y_l p_{mu(l), j}`` from the
recorded dual values.  It is O(K (K + P)) memory-light numpy per step, so O(K^2 (K + P))
overall: a cross-check, not the fast path.

References
----------
M. Mastrolilli, M. Queyranne, A. S. Schulz, O. Svensson, N. A. Uhan, "Minimizing the sum of
weighted completion times in a concurrent open shop", Operations Research Letters 38(5),
390-395, 2010 (the primal-dual algorithm and its 2-approximation); Sincronia technical report
Sec. 7 (the open-shop relaxation) and Sec. 3.1 (BSSI).
"""

from __future__ import annotations

import numpy as np

from ..instance import Instance
from ..registry import register
from .bssi import TIE_RTOL, processing_times

__all__ = ["mastrolilli"]


@register("ordering", "mastrolilli",
          summary="Mastrolilli-Queyranne-Schulz-Svensson-Uhan primal-dual for concurrent open "
          "shop on the 2m ports (equals BSSI with first-index ties)",
          reference="Mastrolilli, Queyranne, Schulz, Svensson, Uhan, Oper. Res. Lett. 38(5) "
          "2010; Sincronia tech. report Sec. 7",
          guarantee="2-approximation for the concurrent open shop relaxation; as a coflow "
          "order with work-conserving order-preserving rates and zero releases <= 4 OPT "
          "(it is BSSI)",
          tags=("weights", "heterogeneous_capacities", "zero_release_only"))
def mastrolilli(instance: Instance, *, weighted: bool = True) -> np.ndarray:
    """Order coflows by the concurrent open shop primal-dual algorithm on the ports.

    Parameters
    ----------
    instance : Instance
    weighted : bool, default True
        ``False`` uses unit weights.

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Examples
    --------
    T-S4 of the seeds digest: A, C, B (the same as BSSI).

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
    ...                               Coflow("B", [(0, 0, 9)]),
    ...                               Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    >>> mastrolilli(inst).tolist()
    [0, 2, 1]

    Notes
    -----
    For ``k = n`` down to 1: ``mu(k)`` is the machine with the largest load over the
    unscheduled jobs ``J``; ``sigma(k)`` minimises ``(w_j - sum_{l>k} y_l p_{mu(l) j}) /
    p_{mu(k) j}`` over ``j`` in ``J`` with ``p_{mu(k) j} > 0``; ``y_k`` is that minimum.  Ties
    go to the first machine and the first job (floats within a relative ``TIE_RTOL``), so the
    order equals ``bssi(instance, tie_break="first", release="ignore")``: with unit
    capacities this is Sincronia's statement that BSSI is this algorithm on the ``2m`` ports,
    and with other capacities it holds because both use processing times ``d / c``.
    Guarantee: the order's ``sum_k w_k max_p sum_{j<=k} p_{p j}`` is at most twice the optimum
    of the open-shop relaxation, hence at most 2 OPT of the coflow instance.  Release dates
    are ignored.  Time O(K^2 (K + P)).

    References
    ----------
    Mastrolilli et al., Oper. Res. Lett. 38(5), 2010, Sec. 2 (algorithm) and Theorem 1.
    """
    K, P = instance.num_coflows, instance.num_ports
    p = processing_times(instance).toarray().T          # machines x jobs, dense
    w = instance.weight.astype(float) if weighted else np.ones(K)
    unscheduled = np.ones(K, dtype=bool)
    mu: list[int] = []
    y: list[float] = []
    order = np.empty(K, dtype=np.int64)
    for k in range(K - 1, -1, -1):
        load = p[:, unscheduled].sum(axis=1)
        mu_k = int(np.flatnonzero(load >= load.max() * (1.0 - TIE_RTOL))[0])
        residual = w - (p[mu, :].T @ np.asarray(y)) if y else w.copy()
        residual = np.where(residual <= 1e-12 * max(w.max(), 1e-300), 0.0, residual)
        cand = np.flatnonzero(unscheduled & (p[mu_k] > 0))
        ratio = residual[cand] / p[mu_k, cand]
        j = int(cand[np.flatnonzero(ratio <= ratio.min() * (1.0 + TIE_RTOL))[0]])
        mu.append(mu_k)
        y.append(float(ratio.min()))
        order[k] = j
        unscheduled[j] = False
    return order
