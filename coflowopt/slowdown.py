"""Slowdown: time in the system over the time alone in an empty network (one implementation).

Two papers normalise a completion time by the time the same work takes alone:

* Sincronia (SIGCOMM 2018, Sec. 5, the seed-000 fragment) and the dissertation (Sec. 7.7.4,
  Table 7.3) report a coflow's **slowdown** ``CCT / OCT``: ``CCT_k = C_k - r_k`` and the
  *oracle completion time* ``OCT_k = max_p d_k^p / b_p``, the coflow's CCT alone in an empty
  fabric (:attr:`Instance.rho <coflowopt.instance.Instance.rho>`: over the resources of its
  paths on a topology);
* seed 002 (Sviridov, Bianco, Giaccone, Globecom 2018, Sec. III-C) reports a flow's **normalised
  FCT**: "each FCT is then normalized by the theoretical minimum FCT that would be achieved by
  that flow in an empty DCN", with the FCT measured from the flow's first packet to its last
  (here: from its coflow's release to its completion) and the empty-network FCT its size over
  its path's bottleneck capacity (:attr:`Instance.flow_bottleneck_capacity`; fluid, so no
  propagation or store-and-forward delay: a reconstruction of the seed's packet-level minimum).

Both are :func:`slowdown` ``(completion - release) / alone``; :func:`coflow_slowdown` and
:func:`normalized_fct` supply the two denominators.  The completion times are those the
verifier recomputes (``VerificationReport.coflow_completion`` / ``flow_completion``).

References
----------
Agarwal et al., "Sincronia", SIGCOMM 2018, Sec. 4.4 and 5 (OCT, slowdown); digest
``../shared/reference/seeds-000-002.md`` Sec. 0 (OCT) and 3.6 item 6 ("Normalized FCT =
FCT / FCT_empty, the flow-level twin of Sincronia's slowdown; share one implementation").
"""

from __future__ import annotations

import numpy as np

__all__ = ["slowdown", "coflow_slowdown", "normalized_fct"]


def slowdown(completion, release, alone) -> np.ndarray:
    """``(completion - release) / alone``, elementwise.

    Parameters
    ----------
    completion, release, alone : array_like
        Completion times, release times and the times alone in an empty network (all > 0),
        broadcast together (float64, or objects such as Fractions).

    Returns
    -------
    ndarray

    Examples
    --------
    >>> slowdown([3.0, 4.0], [1.0, 0.0], [2.0, 1.0]).tolist()
    [1.0, 4.0]
    """
    return (np.asarray(completion) - np.asarray(release)) / np.asarray(alone)


def coflow_slowdown(instance, coflow_completion) -> np.ndarray:
    """Every coflow's ``CCT / OCT = (C_k - r_k) / rho_k`` (Sincronia's slowdown).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 0, 2.0)])])
    >>> coflow_slowdown(inst, [1.0, 3.0]).tolist()
    [1.0, 1.5]
    """
    return slowdown(coflow_completion, instance.release, instance.rho)


def normalized_fct(instance, flow_completion) -> np.ndarray:
    """Every flow's ``FCT / FCT alone``: ``(C_f - r_{k(f)}) / (size_f / bottleneck_f)`` (seed
    002's normalised FCT).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0), (0, 1, 2.0)])])
    >>> normalized_fct(inst, [2.0, 3.0]).tolist()
    [2.0, 1.5]
    """
    alone = instance.flow_size / instance.flow_bottleneck_capacity
    return slowdown(flow_completion, instance.release[instance.flow_coflow], alone)
