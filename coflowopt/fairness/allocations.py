"""Instantaneous bandwidth allocations among coflows: HUG, DRF, PS-P, per-flow max-min, and
the work-conservation policies of Appendix D.2, with progress, isolation guarantee and
utilisation.

Every method maps (reported) correlation vectors to per-link allocations ``c_k^i`` (fractions of
link ``i``'s capacity) and is judged against the *true* vectors ``d_k``:

* **progress** ``P_k = min_{i: d_k^i > 0} c_k^i / d_k^i`` (Sec. 7.3.2, Table 7.1);
* **isolation guarantee** ``min_k P_k``;
* **utilisation** ``sum_i sum_k c_k^i`` (Table 7.1), also as a fraction of the ``L`` links
  (``L = 2P`` on a P x P fabric).

Methods (:data:`METHODS`)
-------------------------
``drf``
    HUG's Stage 1 alone: ``a_k = P* d_k`` (Eq. 7.2; multi-round DRF for bounded demands).  Optimal
    isolation guarantee, strategyproof, not work-conserving (Sec. 7.4.2, Lemma D.3.6).
``hug``
    Algorithm 6, non-cooperative: Stage 1, then each link's spare divided by local max-min
    fairness among the coflows with an endpoint on it (``d_k^i > 0``), no coflow exceeding
    ``max_j a_k^j`` (``= P*`` under max-1 normalisation) on any link (Sec. 7.6.1, App. D.1).
``hug-cooperative``
    Stage 1, then the spare divided max-min without the cap: work-conserving, still optimal
    isolation guarantee (Sec. 7.5.3, property 2).
``ps-p``
    Per-link, coflow-level equal split among the coflows with demand on the link, demand-agnostic
    (Sec. 7.4.1, App. D.2.1).  Elastic coflows use all of their share; with bounded demands a
    share a coflow cannot use goes to the others on the link ("work conservation for coflows
    with unmet demand": max-min with demand caps).
``per-flow``
    Per-flow max-min fairness.  On an instance: progressive filling over the flows of the big
    switch (each flow uses its ingress and egress port), or over the resources of the flows'
    paths on a topology.  For vectors given directly there are
    no flows: one flow per coflow per link with ``d_k^i > 0``, i.e. the per-link max-min of
    Fig. 7.1b (the same numbers as ``ps-p`` for elastic coflows).
``naive-wc``
    Stage 1, then all of a link's spare to the coflow reporting the highest demand on it: the
    "naive work conservation" of Sec. 7.4.3 that yields the payoff matrix of Fig. 7.5.

:func:`drf_with_spare` exposes every spare-division policy of App. D.2 (least-demand, equal,
proportional, ...).

Demand models
-------------
*Elastic* (default): a coflow uses all it is allocated on every link where it has an endpoint
(an allocation on a link with ``d_k^i = 0`` is useless and counts as unused).  *Inelastic*
(``elastic=False``, Sec. 7.4.4): it consumes only ``P_k d_k``.  *Bounded* demands (vectors with
``demand``): it uses at most ``demand_k^i``.

References
----------
Chowdhury's dissertation, Ch. 7 (Sec. 7.1, 7.3.2, 7.4, 7.5.2 Algorithm 6, 7.6.1, 7.6.3) and App.
D (D.1 formulations, D.2 spare-division policies, D.3.6 DRF utilisation).  PS-P: L. Popa et al.,
"FairCloud: Sharing the Network in Cloud Computing", SIGCOMM 2012.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from .._numbers import plain_number
from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from .correlation import (CorrelationVectors, as_correlation_vectors, correlation_vectors,
                          is_exact, to_exact, zeros)
from .drf import FLOAT_RTOL, flow_max_min, multi_round_drf, water_fill
from .hug import guaranteed_allocation, optimal_isolation_guarantee, stage2_caps

__all__ = ["FairAllocation", "METHODS", "SPARE_POLICIES", "allocate", "allocate_all",
           "drf_with_spare", "progress", "resolve_vectors"]

#: Allocation methods of :func:`allocate`, with a one-line description.
METHODS = {
    "hug": "HUG, non-cooperative: DRF guarantees + capped local max-min of the spare "
           "(Algorithm 6)",
    "hug-cooperative": "HUG, cooperative: DRF guarantees + uncapped max-min of the spare "
                       "(work-conserving)",
    "drf": "DRF = HUG Stage 1: a_k = P* d_k (not work-conserving)",
    "ps-p": "PS-P: per-link equal split among coflows with demand on the link",
    "per-flow": "per-flow max-min fairness (progressive filling over flows)",
    "naive-wc": "DRF + all spare to the highest reported demand (Sec. 7.4.3)",
}

#: Spare-division policies of :func:`drf_with_spare` (Sec. 7.4.3, App. D.2, Algorithm 6).
SPARE_POLICIES = {
    "none": "leave the spare unallocated (DRF)",
    "hug": "local max-min among coflows with d_k^i > 0, capped at max_j a_k^j (HUG Stage 2)",
    "max-min": "local max-min among coflows with d_k^i > 0, uncapped (cooperative HUG)",
    "highest-demand": "all to the highest reported demand on the link (Lemma D.2.6, Fig. 7.4)",
    "least-demand": "all to the least positive reported demand on the link (Lemma D.2.4)",
    "least-demand-any": "all to the least reported demand, zero included (Lemma D.2.3)",
    "equal": "equally among coflows with d_k^i > 0 (Lemma D.2.8)",
    "proportional": "in proportion to reported demand d_k^i (Lemma D.2.9)",
}

#: Which methods are work-conserving by design (elastic coflows).
_WORK_CONSERVING = {"hug": False, "hug-cooperative": True, "drf": False, "ps-p": True,
                    "per-flow": True, "naive-wc": True}


# ------------------------------------------------------------------------------ result
@dataclass(frozen=True, eq=False)
class FairAllocation:
    """One allocation of link bandwidth to coflows, judged against the true vectors.

    Attributes
    ----------
    method : str
    vectors : CorrelationVectors
        The true correlation vectors (progress is measured against ``vectors.d``).
    reported : CorrelationVectors
        The vectors the allocation was computed from (differs from ``vectors`` for a lie).
    guaranteed : ndarray (K, L)
        The method's guaranteed part (Stage 1 for DRF/HUG; the per-link shares for PS-P).
    allocation : ndarray (K, L)
        Final per-link allocation ``a_k^i`` (fraction of link ``i``) after any spare division.
    consumption : ndarray (K, L)
        What each coflow actually uses, ``c_k^i`` (elastic: the allocation on links where it has
        an endpoint; inelastic: ``P_k d_k``; bounded: at most its demand).
    progress : ndarray (K,)
        ``P_k = min_{i: d_k^i > 0} c_k^i / d_k^i`` with the true ``d``.
    isolation_guarantee : number
        ``min_k P_k``.
    utilisation : number
        ``sum_i sum_k c_k^i``.
    utilisation_fraction : number
        ``utilisation / L``.
    optimal_isolation_guarantee : number or None
        P* of the reported vectors (Eq. 7.2); ``None`` for bounded demands.
    elastic : bool
    work_conserving : bool
        Whether the method is work-conserving by design.
    flow_rates : ndarray (F,) or None
        Per-flow rates (``per-flow`` on an instance).
    params : dict
    """

    method: str
    vectors: CorrelationVectors
    reported: CorrelationVectors
    guaranteed: np.ndarray
    allocation: np.ndarray
    consumption: np.ndarray
    progress: np.ndarray
    isolation_guarantee: Any
    utilisation: Any
    utilisation_fraction: Any
    optimal_isolation_guarantee: Any
    elastic: bool
    work_conserving: bool
    flow_rates: np.ndarray | None = None
    params: dict = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return is_exact(self.allocation)

    @property
    def link_load(self) -> np.ndarray:
        """``sum_k c_k^i`` per link (<= 1 for a feasible allocation)."""
        return self.consumption.sum(axis=0)

    def check(self) -> None:
        """Raise if an allocation exceeds a link or a coflow's progress is negative.

        Exact allocations are checked exactly; float ones with tolerance ``1e-9``.
        """
        tol = 0 if self.exact else 1e-9
        over = np.flatnonzero(np.array([bool(v > 1 + tol)
                                        for v in self.allocation.sum(axis=0)]))
        if over.size:
            raise InvalidParameterError(f"{self.method}: link {self.vectors.links[over[0]]} is "
                                        f"allocated {self.allocation.sum(axis=0)[over[0]]} > 1")
        neg = [k for k in range(self.allocation.shape[0])
               if any(v < -tol for v in self.allocation[k])]
        if neg:
            raise InvalidParameterError(f"{self.method}: coflow {self.vectors.ids[neg[0]]} has a "
                                        "negative allocation")

    def to_dict(self, *, per_link: bool = True) -> dict[str, Any]:
        """JSON-ready form; exact values that are not dyadic floats become ``"p/q"`` strings."""
        names = self.vectors.links
        num = plain_number

        def sparse(row):
            return {names[i]: num(v) for i, v in enumerate(row) if v != 0}

        out = {
            "method": self.method,
            "elastic": self.elastic,
            "work_conserving": self.work_conserving,
            "optimal_isolation_guarantee": (None if self.optimal_isolation_guarantee is None
                                            else num(self.optimal_isolation_guarantee)),
            "isolation_guarantee": num(self.isolation_guarantee),
            "utilisation": num(self.utilisation),
            "utilisation_fraction": num(self.utilisation_fraction),
            "num_links": self.vectors.num_links,
            "coflows": [],
        }
        for k, cid in enumerate(self.vectors.ids):
            row = {"id": cid, "progress": num(self.progress[k])}
            if per_link:
                row["guaranteed"] = sparse(self.guaranteed[k])
                row["allocation"] = sparse(self.allocation[k])
                if not self.elastic or self.reported is not self.vectors:
                    row["consumption"] = sparse(self.consumption[k])
            out["coflows"].append(row)
        if self.params:
            out["params"] = dict(self.params)
        return out


# ------------------------------------------------------------------------------ helpers
def progress(allocation: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``P_k = min_{i: d_k^i > 0} a_k^i / d_k^i`` for every coflow (Sec. 7.3.2), shape (K,).

    Links with ``d_k^i = 0`` are skipped (the ratio is undefined there; Sec. 7 of the digest).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> import numpy as np
    >>> a = np.array([[F(1, 2), F(1, 2)]], dtype=object)
    >>> d = np.array([[F(1, 2), F(1)]], dtype=object)
    >>> progress(a, d).tolist()
    [Fraction(1, 2)]
    """
    K = d.shape[0]
    if is_exact(d) or is_exact(allocation):
        out = np.empty(K, dtype=object)
        for k in range(K):
            out[k] = min(a / x for a, x in zip(allocation[k], d[k]) if x > 0)
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(d > 0, allocation / np.where(d > 0, d, 1.0), np.inf)
    return r.min(axis=1)


def resolve_vectors(source, *, weighted: bool = False, exact: bool = False):
    """``(vectors, instance)`` from an Instance, CorrelationVectors or an array of vectors."""
    if isinstance(source, Instance):
        return correlation_vectors(source, weighted=weighted, exact=exact), source
    cv = as_correlation_vectors(source)
    if exact:
        cv = cv.as_exact()
    if weighted and not cv.weighted:
        cv = replace(cv, weighted=True)
    return cv, None


def _stage1(rep: CorrelationVectors):
    """HUG Stage 1: ``(guaranteed, P*)`` (closed form, or multi-round DRF when bounded)."""
    if rep.bounded:
        return multi_round_drf(rep).allocation, None
    return guaranteed_allocation(rep), optimal_isolation_guarantee(rep)


def _finish(method: str, true: CorrelationVectors, rep: CorrelationVectors, guaranteed,
            allocation, pstar, elastic: bool, *, flow_rates=None, params=None,
            work_conserving: bool | None = None) -> FairAllocation:
    exact = true.exact
    d = true.d
    usable = np.where(d > 0, allocation, zeros(allocation.shape, exact))
    if true.bounded:
        usable = np.minimum(usable, true.demand)
    prog = progress(usable, d)
    consumption = usable if elastic else d * prog[:, None]
    util = consumption.sum()
    L = d.shape[1]
    return FairAllocation(
        method=method, vectors=true, reported=rep, guaranteed=guaranteed, allocation=allocation,
        consumption=consumption, progress=prog, isolation_guarantee=prog.min(),
        utilisation=util, utilisation_fraction=util / L, optimal_isolation_guarantee=pstar,
        elastic=elastic,
        work_conserving=_WORK_CONSERVING.get(method, False) if work_conserving is None
        else work_conserving,
        flow_rates=flow_rates, params=dict(params or {}))


def _check_reported(true: CorrelationVectors, reported) -> CorrelationVectors:
    if reported is None:
        return true
    rep = as_correlation_vectors(reported, ids=true.ids)
    if rep.d.shape != true.d.shape:
        raise InvalidParameterError(f"reported vectors have shape {rep.d.shape}, the true ones "
                                    f"{true.d.shape}")
    rep = rep.as_exact() if true.exact else rep.as_float()
    if true.weighted and not rep.weighted:
        rep = replace(rep, weight=true.weight, weighted=True)
    return rep


def _divide_spare(rep: CorrelationVectors, guaranteed, policy: str):
    """Stage 2 for every link: ``guaranteed`` plus the link's spare divided by ``policy``."""
    if policy not in SPARE_POLICIES:
        raise InvalidParameterError(f"spare policy must be one of {sorted(SPARE_POLICIES)}, got "
                                    f"{policy!r}")
    exact = rep.exact
    alloc = guaranteed.copy()
    if policy == "none":
        return alloc
    demand = rep.scaled()
    caps = stage2_caps(guaranteed) if policy == "hug" else None
    K, L = demand.shape
    spare_all = 1 - guaranteed.sum(axis=0)
    # eligibility is having an endpoint on the link (d_k^i > 0), whatever the weight
    eligible = rep.d > 0
    if policy == "max-min" and not exact and not rep.bounded:
        # cooperative HUG in float: every eligible coflow of a link with spare gets
        # spare / (eligible coflows), all links at once (water_fill's unbounded case)
        count = eligible.sum(axis=0)
        links = (spare_all > FLOAT_RTOL) & (count > 0)
        share = spare_all / np.maximum(count, 1)
        return np.where(eligible & links, alloc + share, alloc)
    for i in range(L):
        spare = spare_all[i]
        if not spare > (0 if exact else FLOAT_RTOL):
            continue
        col = demand[:, i]
        pos = np.flatnonzero(eligible[:, i])
        if policy in ("hug", "max-min"):
            if pos.size == 0:
                continue
            head = None
            if caps is not None:
                head = np.maximum(caps[pos] - guaranteed[pos, i], 0)
            if rep.bounded:
                room = np.maximum(rep.demand[pos, i] - guaranteed[pos, i], 0)
                head = room if head is None else np.minimum(head, room)
            alloc[pos, i] = alloc[pos, i] + water_fill(head, spare, count=pos.size)
            continue
        if policy == "least-demand-any":
            cand = np.arange(K)
        else:
            cand = pos
        if cand.size == 0:
            continue
        vals = col[cand]
        if policy == "highest-demand":
            best = vals.max()
            win = cand[np.array([bool(v == best) for v in vals])]
            alloc[win, i] = alloc[win, i] + spare / win.size
        elif policy in ("least-demand", "least-demand-any"):
            best = vals.min()
            win = cand[np.array([bool(v == best) for v in vals])]
            alloc[win, i] = alloc[win, i] + spare / win.size
        elif policy == "equal":
            alloc[cand, i] = alloc[cand, i] + spare / cand.size
        elif policy == "proportional":
            alloc[cand, i] = alloc[cand, i] + spare * vals / vals.sum()
    return alloc


# ------------------------------------------------------------------------------ methods
def drf_with_spare(vectors, policy: str = "hug", *, reported=None, elastic: bool = True,
                   method: str | None = None) -> FairAllocation:
    """DRF guarantees (HUG Stage 1) plus a spare-division policy of App. D.2 / Algorithm 6.

    Parameters
    ----------
    vectors : CorrelationVectors or array_like
        The true correlation vectors.
    policy : str
        One of :data:`SPARE_POLICIES`.
    reported : CorrelationVectors or array_like, optional
        What the coflows report (default: the truth).  The allocation is computed from these;
        progress from the true vectors.
    elastic : bool
        Elastic (default) or inelastic consumption (Sec. 7.4.4).
    method : str, optional
        Name recorded in the result (default ``"drf+<policy>"``).

    Returns
    -------
    FairAllocation

    Examples
    --------
    Lemma D.2.8: dividing the 8/15 spare of link 2 equally raises C_A's share to 2/3:

    >>> from fractions import Fraction as F
    >>> r = drf_with_spare([[F(1, 2), 1], [1, F(1, 6)], [1, 0]], "equal")
    >>> str(r.allocation[0, 1]), str(r.optimal_isolation_guarantee)
    ('2/3', '2/5')
    """
    true = as_correlation_vectors(vectors)
    rep = _check_reported(true, reported)
    if rep.bounded and policy not in ("none", "hug", "max-min"):
        raise NotSupportedError(f"spare policy {policy!r} is defined for elastic coflows only; "
                                "bounded demands support 'none', 'hug' and 'max-min'")
    guaranteed, pstar = _stage1(rep)
    alloc = _divide_spare(rep, guaranteed, policy)
    name = method or f"drf+{policy}"
    return _finish(name, true, rep, guaranteed, alloc, pstar, elastic,
                   params={"spare": policy},
                   work_conserving=policy not in ("none", "hug"))


def _per_link_share(rep: CorrelationVectors) -> np.ndarray:
    """PS-P: every link divided equally among the coflows with demand on it (max-min with
    demand caps when demands are bounded)."""
    exact = rep.exact
    K, L = rep.d.shape
    eligible = rep.d > 0
    if not exact and not rep.bounded:
        # float, elastic: 1 / (coflows on the link) for each of them, all links at once
        count = eligible.sum(axis=0)
        return np.where(eligible, 1.0 / np.maximum(count, 1), 0.0)
    alloc = zeros((K, L), exact)
    one = Fraction(1) if exact else 1.0
    for i in range(L):
        pos = np.flatnonzero(eligible[:, i])
        if pos.size == 0:
            continue
        head = rep.demand[pos, i] if rep.bounded else None
        alloc[pos, i] = water_fill(head, one, count=pos.size)
    return alloc


def _per_flow_instance(instance: Instance, exact: bool):
    """Per-flow max-min on the big switch: ``(rates, per-link coflow allocation)``; on
    resources the progressive filling over the flows' paths of the ``fair`` policy
    (:func:`coflowopt.policies.flow_level.max_min_rates`, float only)."""
    if not instance.is_big_switch:
        if exact:
            raise NotSupportedError(
                "per-flow max-min on an instance over resources is computed in float "
                "(coflowopt.policies.flow_level.max_min_rates, the fair policy's progressive "
                "filling); use exact=False")
        from ..policies.flow_level import max_min_rates
        cap = instance.capacity.astype(float)
        rates = max_min_rates(instance, np.arange(instance.num_flows))
        K, P = instance.num_coflows, instance.num_ports
        length = instance.path_length
        alloc = np.bincount(np.repeat(instance.flow_coflow, length) * P + instance.flow_resource,
                            weights=np.repeat(rates, length), minlength=K * P).reshape(K, P)
        return rates, alloc / cap[None, :]
    cap = to_exact(instance.capacity) if exact else instance.capacity.astype(float)
    src = instance.flow_src
    dst = instance.flow_egress_port
    rates = flow_max_min(src, dst, cap)
    K, P = instance.num_coflows, instance.num_ports
    alloc = zeros((K, P), exact)
    k = instance.flow_coflow
    np.add.at(alloc, (k, src), rates)
    np.add.at(alloc, (k, dst), rates)
    return rates, alloc / cap[None, :]


def allocate(source, method: str = "hug", *, weighted: bool = False, exact: bool = False,
             reported=None, elastic: bool = True) -> FairAllocation:
    """Allocate link bandwidth among coflows with one of :data:`METHODS`.

    Parameters
    ----------
    source : Instance, CorrelationVectors or array_like (K, L)
        An instance (its MADD correlation vectors on the ``m_in + m_out`` ports of a big
        switch, on the resources of a topology) or vectors given directly.
    method : str
        One of :data:`METHODS`.
    weighted : bool
        Use ``w_k d_k`` (Sec. 7.6.3; ``per-flow`` and ``ps-p`` ignore weights).
    exact : bool
        Compute in Fractions (automatic for vectors given as ints/Fractions).
    reported : CorrelationVectors or array_like, optional
        Misreported vectors the allocation is computed from (progress still uses the truth).
        Not available for ``per-flow`` on an instance, which never looks at vectors.
    elastic : bool
        Elastic (default) or inelastic consumption.

    Returns
    -------
    FairAllocation

    Raises
    ------
    InvalidParameterError
        Unknown method, or mismatched reported vectors.
    NotSupportedError
        ``naive-wc`` with bounded demands; ``per-flow`` with a misreport on an instance;
        ``per-flow`` with ``exact=True`` on an instance over resources.

    Examples
    --------
    The two-link example (Fig. 7.1, 7.3, 7.7):

    >>> from fractions import Fraction as F
    >>> d = [[F(1, 2), 1], [1, F(1, 6)]]
    >>> [str(allocate(d, m).isolation_guarantee) for m in ("hug", "drf", "ps-p", "per-flow")]
    ['2/3', '2/3', '1/2', '1/2']
    >>> [[str(x) for x in row] for row in allocate(d, "hug").allocation]
    [['1/3', '2/3'], ['2/3', '1/3']]
    """
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(METHODS)}; got "
                                    f"{method!r}")
    true, instance = resolve_vectors(source, weighted=weighted, exact=exact)
    rep = _check_reported(true, reported)
    params = {"weighted": true.weighted}
    if method == "drf":
        return drf_with_spare(true, "none", reported=rep, elastic=elastic, method="drf")
    if method == "hug":
        return drf_with_spare(true, "hug", reported=rep, elastic=elastic, method="hug")
    if method == "hug-cooperative":
        return drf_with_spare(true, "max-min", reported=rep, elastic=elastic,
                              method="hug-cooperative")
    if method == "naive-wc":
        return drf_with_spare(true, "highest-demand", reported=rep, elastic=elastic,
                              method="naive-wc")
    pstar = None if rep.bounded else optimal_isolation_guarantee(rep)
    if method == "ps-p":
        alloc = _per_link_share(rep)
        return _finish("ps-p", true, rep, alloc, alloc, pstar, elastic, params=params)
    # per-flow
    if instance is not None:
        if reported is not None:
            raise NotSupportedError("per-flow fairness never looks at correlation vectors: a "
                                    "misreport has no effect on an instance")
        rates, alloc = _per_flow_instance(instance, true.exact)
        return _finish("per-flow", true, rep, alloc, alloc, pstar, elastic, flow_rates=rates,
                       params={**params, "level": "flows"})
    alloc = _per_link_share(rep)
    return _finish("per-flow", true, rep, alloc, alloc, pstar, elastic,
                   params={**params, "level": "one flow per coflow per link"})


def allocate_all(source, *, methods=None, weighted: bool = False, exact: bool = False,
                 elastic: bool = True) -> dict[str, FairAllocation]:
    """Every method of :data:`METHODS` (or ``methods``) on the same input, by name."""
    names = list(METHODS) if methods is None else list(methods)
    return {m: allocate(source, m, weighted=weighted, exact=exact, elastic=elastic)
            for m in names}
