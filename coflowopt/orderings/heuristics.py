"""Static "smallest first" coflow orderings: SCF, NCF, TCF and SEBF.

Each sorts the coflows once, ascending by a per-coflow key computed from the whole instance,
with ties kept in instance order (a stable sort).  That is how both reference simulators order
offline: coflowsim inserts every new coflow before the first one with a strictly larger key
(``CoflowSimulator.addToSortedJobs``), so equal keys keep their arrival order, and Sincronia's
``heuristics.cpp`` breaks ties by coflow id.

Re-evaluating SEBF on the *residual* demand at every event is Varys' online policy
(``coflowopt.policies.varys``), not an ordering.

References
----------
M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014,
Sec. 5.1 (SEBF, Eq. (1) for Gamma); M. Chowdhury, "Coflow: A Networking Abstraction for
Distributed Data-Parallel Applications", PhD dissertation, UC Berkeley 2015, Appendix A.3.1
(length, width, size) and Sec. 5 (SCF/NCF/TCF/SEBF); coflowsim
``src/main/java/coflowsim/simulators/CoflowSimulator.java`` (SCF/NCF/LCF/SEBF comparators) and
``datastructures/Job.java`` (``calcAlphaDeadline``, the static alpha); Sincronia simulator
``offlinesim/heuristics.cpp``.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import register

__all__ = ["scf", "ncf", "tcf", "sebf", "sort_by_key", "coflowsim_alpha"]

_REF = ("Chowdhury's dissertation App. A.3.1 and Sec. 5; Varys (SIGCOMM 2014) Sec. 5.1; "
        "coflowsim CoflowSimulator.java; sincronia-coflow/simulator offlinesim/heuristics.cpp")


def sort_by_key(key) -> np.ndarray:
    """Coflow indices by ascending ``key``, ties in instance order (stable)."""
    return np.argsort(np.asarray(key), kind="stable").astype(np.int64)


@register("ordering", "scf", summary="shortest coflow first: ascending length (size of the "
          "largest flow), ties in instance order", reference=_REF,
          tags=())
def scf(instance: Instance) -> np.ndarray:
    """Shortest-Coflow-First: ascending *length*, the size of the coflow's largest flow.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)]),
    ...                               Coflow("B", [(0, 0, 1), (1, 1, 1), (1, 0, 1)])])
    >>> scf(inst).tolist()
    [1, 0]

    Notes
    -----
    No approximation guarantee.  coflowsim computes the length as ``maxShuffleBytes /
    numMappers`` (the largest reducer's bytes over the mapper count), which is the largest
    flow when every reducer's bytes are split evenly over the mappers, as in the
    coflow-benchmark reader's ``uniform`` split.  Time O(F + K log K).

    References
    ----------
    Chowdhury's dissertation, App. A.3.1 (length); coflowsim ``SCFComparator``; Sincronia
    ``heuristics.cpp`` ``SCF_Comp``.
    """
    return sort_by_key(instance.length)


def _width(instance: Instance, width: str) -> np.ndarray:
    if width == "flows":
        return instance.width
    if width == "endpoints":
        return np.minimum(instance.num_senders, instance.num_receivers)
    raise InvalidParameterError(f"width must be 'flows' or 'endpoints', got {width!r}")


@register("ordering", "ncf", summary="narrowest coflow first: ascending width (number of "
          "flows, or min(#senders, #receivers)), ties in instance order", reference=_REF,
          tags=("non_clairvoyant",))
def ncf(instance: Instance, *, width: str = "flows") -> np.ndarray:
    """Narrowest-Coflow-First: ascending *width*.

    Parameters
    ----------
    instance : Instance
    width : {"flows", "endpoints"}, default "flows"
        ``"flows"``: the number of flows (the dissertation's width, App. A.3.1).
        ``"endpoints"``: ``min(#senders, #receivers)``, the distinct ingress and egress ports
        (coflowsim's ``NCFComparator`` and Sincronia's ``coflow.cpp``); on an instance over
        resources, the distinct source and destination hosts.

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Raises
    ------
    InvalidParameterError
        For another ``width``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1), (0, 2, 1)]),
    ...                               Coflow("B", [(0, 0, 1), (1, 1, 1)])])
    >>> ncf(inst).tolist(), ncf(inst, width="endpoints").tolist()
    ([1, 0], [0, 1])

    Notes
    -----
    No approximation guarantee; reads no flow size (non-clairvoyant).  Widths are integers, so
    ties are common and go by instance order.  Time O(F + K log K).

    References
    ----------
    Chowdhury's dissertation, App. A.3.1; coflowsim ``NCFComparator``; Sincronia
    ``heuristics.cpp`` ``NCF_Comp``.
    """
    return sort_by_key(_width(instance, width))


@register("ordering", "tcf", summary="smallest total coflow first: ascending total size, ties "
          "in instance order", reference=_REF, tags=())
def tcf(instance: Instance) -> np.ndarray:
    """Smallest-Total-size-Coflow-First: ascending total size (sum of flow sizes).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)]),
    ...                               Coflow("B", [(0, 0, 1), (1, 1, 1)])])
    >>> tcf(inst).tolist()
    [1, 0]

    Notes
    -----
    No approximation guarantee.  coflowsim calls this ordering LCF and uses the *remaining*
    bytes when a coflow arrives, which offline is the total size.  Time O(F + K log K).

    References
    ----------
    Chowdhury's dissertation, App. A.3.1 (size); coflowsim ``LCFComparator``; Sincronia
    ``heuristics.cpp`` ``TCF_Comp``.
    """
    return sort_by_key(instance.total_size)


def coflowsim_alpha(instance: Instance) -> np.ndarray:
    """coflowsim's static alpha of every coflow (data units, capacities ignored).

    ``max(max_i send_i, max_j recv_j)`` with every sender charged ``total / #senders`` (coflowsim
    splits a coflow's bytes evenly over its mappers) and every receiver its own bytes.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 4), (1, 0, 1)])])
    >>> coflowsim_alpha(inst).tolist()   # senders 2.5 each, receiver 5
    [5.0]

    References
    ----------
    coflowsim ``datastructures/Job.java``, ``calcAlphaDeadline``.
    """
    # coflowsim's alpha charges senders and receivers, which exist on a big switch only
    instance.require_big_switch("sebf with gamma='coflowsim' (coflowsim's alpha is per port)")
    send = instance.total_size / instance.num_senders
    m_in = instance.num_ingress
    loads = instance.port_loads_sparse.tocsc()[:, m_in:]
    recv = np.asarray(loads.max(axis=1).todense()).ravel()
    return np.maximum(send, recv)


@register("ordering", "sebf", summary="smallest effective bottleneck first: ascending isolated "
          "bottleneck Gamma = rho_k = max_p d_k^p / c_p, computed once",
          reference=_REF, tags=("heterogeneous_capacities",))
def sebf(instance: Instance, *, gamma: str = "rho") -> np.ndarray:
    """Smallest-Effective-Bottleneck-First with the bottleneck computed once, as coflowsim does.

    Parameters
    ----------
    instance : Instance
    gamma : {"rho", "coflowsim"}, default "rho"
        ``"rho"``: ``Gamma_k = rho_k = max_p d_k^p / c_p``, the time coflow ``k`` needs alone
        (Varys Eq. (1) in an empty fabric), capacity-aware; on an instance over resources
        ``p`` ranges over the resources of the coflow's paths.  ``"coflowsim"``: the static
        alpha of coflowsim (:func:`coflowsim_alpha`), in data units, with each sender charged
        an even share of the total.  The two orders agree with equal capacities and evenly
        split coflows (every ingress of a coflow sends ``total / #senders``), the
        coflow-benchmark traces' case; they differ when capacities differ or a coflow's
        senders send unequal amounts.

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first (ties in instance order).

    Raises
    ------
    InvalidParameterError
        For another ``gamma``.
    NotSupportedError
        ``gamma="coflowsim"`` on an instance over resources (coflowsim's alpha is per port).

    Examples
    --------
    T-S4 of the seeds digest: rho = 6, 9, 11, so the order is A, B, C.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
    ...                               Coflow("B", [(0, 0, 9)]),
    ...                               Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    >>> sebf(inst).tolist()
    [0, 1, 2]

    Notes
    -----
    No approximation guarantee (Sincronia Sec. 3, Fig. 4: SEBF can be arbitrarily worse than
    optimal).  Varys re-evaluates Gamma on residual demand at every event; coflowsim sorts by
    the static alpha computed when a coflow is loaded (``Job.calcAlphaDeadline``) and never
    re-sorts, so offline this static order is coflowsim's SEBF.  Time O(F + K log K).

    References
    ----------
    Varys (SIGCOMM 2014) Sec. 5.1, Eq. (1); coflowsim ``SEBFComparator`` and
    ``Job.calcAlphaDeadline``; Sincronia ``heuristics.cpp`` ``SEBF_Ordering``.
    """
    if gamma == "rho":
        return sort_by_key(instance.rho)
    if gamma == "coflowsim":
        return sort_by_key(coflowsim_alpha(instance))
    raise InvalidParameterError(f"gamma must be 'rho' or 'coflowsim', got {gamma!r}")
