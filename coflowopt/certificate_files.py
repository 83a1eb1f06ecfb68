"""Certificate files: what proves a number, in a file anyone can check without coflowopt.

A certified lower bound is written as the exact dual that proves it, in the instance's units;
``tools/check_certificate.py`` (standard library only) rebuilds the LP's rows and right-hand
sides from the instance and confirms or rejects the claim in exact arithmetic.  The file format
is documented there; :func:`lower_bound_certificate` writes it.  The proofs:

* ``ordering-lp-dual``: the ordering-LP family (``isolated``, ``port``, ``bssi-dual``,
  ``ordering-lp``: every bound whose certificate is a dual of the ordering LP with parallel
  inequalities, ``formulations/ordering_lp.md``), its multipliers on its cuts;
* ``lp-ov-dual`` (``lp-ov``), ``interval-lp-dual`` (``interval-lp``) and
  ``time-indexed-lp-dual`` (``time-indexed-lp``, the fluid model): the LP's parameters that the
  instance does not fix (interval points, slot boundaries) and the nonzero multipliers, each on
  a row named by its kind and indices (coflow, resource, interval or slot, a group's path).

Both instance formats are covered: a big switch (version 1, rows on ports in the unified
numbering) and an instance over resources (version 2, a topology: rows on resources, each
coflow's data at a resource summed over the flows whose path contains it).  The slotted
time-indexed LP bounds the slotted optimum only and has no file.

Examples
--------
>>> from coflowopt import Instance, Coflow
>>> from coflowopt.bounds.simple import isolated_bound
>>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
>>> cert = lower_bound_certificate(inst, isolated_bound(inst))
>>> cert["claim"]["value"], cert["proof"]["cuts"]
('3', [])
"""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError
from .formulations.certificates import check_certificate, fraction_str, rebuild_lp
from .formulations.ordering_lp import OrderingCuts, port_loads

__all__ = ["CERTIFICATE_FORMAT", "FILE_BOUNDS", "lower_bound_certificate", "optimum_certificate",
           "integral_certificate", "instance_digest"]

CERTIFICATE_FORMAT = "coflowopt-certificate"
#: The registered bounds whose certificates have a file form: duals of the ordering LP,
#: LP-OV, the interval LP and the (fluid) time-indexed LP.
FILE_BOUNDS = ("isolated", "port", "bssi-dual", "ordering-lp", "lp-ov", "lp-ov-branch",
               "interval-lp", "time-indexed-lp")


#: Largest set whose ``DPB`` an optimum certificate leaves to the checker to recompute (over
#: its ``2^n`` subsets); larger sets' values are listed in ``proof.dp``.
DP_EXACT_MAX = 16
#: Most ``proof.dp`` entries :func:`optimum_certificate` writes.
DP_MAX_ENTRIES = 200_000

#: Most coflow indices an ``ordering-lp-dual`` file lists in its cuts' sets (about 70 MB of
#: JSON; a BSSI dual over 4,400 coflows).  Above it :func:`lower_bound_certificate` refuses.
MAX_SET_ENTRIES = 10_000_000


def instance_digest(instance) -> str:
    """sha256 of the instance's exact content (capacities; per coflow: weight, release, data
    per port), computed as ``tools/check_certificate.py`` computes it from the instance file.

    On an instance over resources (format version 2) the header is ``"resources"`` instead
    of the number of ingress ports, and the data per resource sums the sizes of the coflow's
    flows whose path contains it (the same data a big switch has per port; only the header
    tells the two kinds of file apart)."""
    cap = [Fraction(float(c)) for c in instance.capacity.tolist()]
    h = hashlib.sha256()
    if not instance.is_big_switch:
        return _resource_digest(instance, cap, h)
    h.update(repr([int(instance.num_ingress)] + [str(c) for c in cap]).encode())
    m_in = instance.num_ingress
    for k in range(instance.num_coflows):
        sl = instance.coflow_flows(k)
        d: dict[int, Fraction] = {}
        for i, j, z in zip(instance.flow_src[sl].tolist(), instance.flow_dst[sl].tolist(),
                           instance.flow_size[sl].tolist()):
            for q in (i, m_in + j):
                d[q] = d.get(q, Fraction(0)) + Fraction(z)
        h.update(repr([str(Fraction(float(instance.weight[k]))),
                       str(Fraction(float(instance.release[k]))),
                       sorted((q, str(v)) for q, v in d.items())]).encode())
    return h.hexdigest()


def _resource_digest(instance, cap: list[Fraction], h) -> str:
    """:func:`instance_digest` of an instance over resources (exact loads from
    :func:`~coflowopt.formulations.ordering_lp.port_loads`, one pass over the incidence)."""
    loads = port_loads(instance)
    h.update(repr(["resources"] + [str(c) for c in cap]).encode())
    # entries are sorted by (resource, coflow): regroup them by coflow, resources ascending
    by_coflow = np.lexsort((loads.port, loads.coflow))
    starts = np.searchsorted(loads.coflow[by_coflow], np.arange(instance.num_coflows + 1))
    for k in range(instance.num_coflows):
        ent = by_coflow[starts[k]:starts[k + 1]].tolist()
        h.update(repr([str(Fraction(float(instance.weight[k]))),
                       str(Fraction(float(instance.release[k]))),
                       [(int(loads.port[i]), str(loads.exact_load(i))) for i in ent]]).encode())
    return h.hexdigest()


def lower_bound_certificate(instance, result) -> dict[str, Any]:
    """The certificate file (a JSON-ready dict) of a certified lower bound.

    Parameters
    ----------
    instance : Instance
        The instance the bound was computed on.
    result : Result
        A ``lower_bound`` result with ``certificate_status == "certified"`` whose certificate is
        a dual of the ordering LP, LP-OV, the interval LP or the fluid time-indexed LP.

    Returns
    -------
    dict
        ``format``, ``version``, ``claim`` (kind, objective, exact value), ``instance`` (digest,
        counts), ``proof``: ``ordering-lp-dual`` (one entry per cut with a nonzero multiplier:
        ``port`` in the unified numbering on a big switch, ``resource`` (an index into the
        version-2 file's ``resources``) on an instance over resources, threshold, set of
        coflow indices, multiplier, all exact), or ``lp-ov-dual``, ``interval-lp-dual``,
        ``time-indexed-lp-dual`` (the LP's parameters that the instance does not give -- the
        interval points, the slot boundaries -- and one entry per row with a nonzero multiplier,
        named by its kind and indices).  Every number is in the instance's units; the row forms
        are in ``tools/check_certificate.py``'s docstring.

    Raises
    ------
    InvalidParameterError
        If the result is not a certified lower bound, or its LP has no file form (the slotted
        time-indexed LP, which does not bound the fluid optimum; other formulations).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.bounds.lp_bounds import lp_ov_bound
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    >>> cert = lower_bound_certificate(inst, lp_ov_bound(inst))
    >>> cert["claim"]["value"], cert["proof"]["type"]
    ('4', 'lp-ov-dual')
    """
    if result.kind != "lower_bound" or result.certificate_status != "certified":
        raise InvalidParameterError(
            f"only a certified lower bound has a certificate file (this result: kind "
            f"{result.kind!r}, certificate {result.certificate_status!r})")
    cert = result.certificate
    name = None if cert is None else cert.formulation
    if name == "lp-ov-branch":
        return _lp_ov_branch_file(instance, result)
    writer = _PROOF_WRITERS.get(name)
    if writer is None:
        raise InvalidParameterError(
            f"certificate files cover the duals of {', '.join(_PROOF_WRITERS)}; the "
            f"{result.algorithm!r} bound's certificate is a dual of {name!r}, checked inside "
            "coflowopt only")
    if name == "time-indexed-lp" and cert.params.get("model", "fluid") != "fluid":
        raise InvalidParameterError(
            "the slotted time-indexed LP bounds the slotted optimum, not the fluid one: it has "
            "no certificate file (use model='fluid')")
    lp = rebuild_lp(instance, cert)
    chk = check_certificate(instance, cert, repair=True, lp=lp)
    if not chk.ok or chk.multipliers is None:
        raise InvalidParameterError(f"the certificate does not check: {chk.reason}")
    value = Fraction(result.value)
    proved = chk.value
    if result.objective == "weighted_cct":
        proved -= sum((Fraction(float(w)) * Fraction(float(r)) for w, r in
                       zip(instance.weight.tolist(), instance.release.tolist())), Fraction(0))
    if proved != value:
        raise InvalidParameterError(f"the certificate proves {proved}, not the result's {value}")
    return _lower_bound_document(instance, result, value,
                                 {"source": cert.source,
                                  **writer(instance, cert, lp, chk.multipliers)})


def _lower_bound_document(instance, result, value: Fraction, proof: dict) -> dict[str, Any]:
    """The certificate file of a lower bound ``value`` proved by ``proof``."""
    return {
        "format": CERTIFICATE_FORMAT, "version": 1,
        "claim": {"kind": "lower_bound", "objective": result.objective,
                  "value": fraction_str(value), "value_float": float(value),
                  "algorithm": result.algorithm},
        "instance": {"digest": instance_digest(instance), "coflows": instance.num_coflows,
                     "flows": instance.num_flows},
        "proof": proof,
    }


class _Units:
    """The LP's units (``params["unit"]``, :func:`~coflowopt.formulations.certificates.
    unit_scaling`): ``2^a`` data, ``2^b`` capacity, ``2^e`` weight; times ``2^(a - b)``.

    A row that is ``s`` times its instance-unit form in the LP's units, with multiplier
    ``y'`` there, has multiplier ``y' s 2^(a - b + e)`` in the instance's units (the bound
    scales by ``2^(a - b + e)``; every factor a power of two, so exact)."""

    def __init__(self, cert):
        unit = cert.params.get("unit") or {}
        self.a, self.b, self.e = (int(unit.get(k, 0)) for k in
                                  ("data_exp", "capacity_exp", "weight_exp"))

    def multiplier(self, y, row_exp: int) -> str:
        """``y'`` of a row scaled by ``2^row_exp`` in the LP's units, in the instance's."""
        return fraction_str(Fraction(y) * Fraction(2) ** (row_exp + self.a - self.b + self.e))

    def time(self, t) -> str:
        return fraction_str(Fraction(float(t)) * Fraction(2) ** (self.a - self.b))


def _nonzero(y) -> list[int]:
    return [i for i, v in enumerate(y) if v != 0]


def _ordering_lp_proof(instance, cert, lp, y) -> dict[str, Any]:
    """The cuts with nonzero multipliers (``ordering-lp-dual``)."""
    cuts = cert.rows if cert.rows is not None else OrderingCuts.empty()
    # a cut's row is sum_k d_k C_k >= ...: 2^(b - 2a) of its instance form; a threshold
    # theta' is theta' 2^(a - b) (a time)
    u = _Units(cert)
    where = "port" if instance.is_big_switch else "resource"
    nonzero = _nonzero(y)
    listed = sum(len(cuts.set(i)) for i in nonzero)
    if listed > MAX_SET_ENTRIES:
        # nested cuts (BSSI's, Smith's) are stored in O(K) in process, but the file lists
        # every set: K^2 / 2 coflow indices for a BSSI dual over K coflows
        raise InvalidParameterError(
            f"the certificate file would list {listed:,} coflow indices in its cuts' sets, more "
            f"than the file limit of {MAX_SET_ENTRIES:,} (the sets of a BSSI or Smith dual "
            f"grow with the square of the coflow count); the bound itself is certified in "
            f"exact arithmetic in process")
    entries = []
    for i in nonzero:
        members = cuts.set(i).tolist()
        entries.append({where: int(cuts.port[i]), "theta": u.time(cuts.theta[i]),
                        "set": [int(k) for k in members],
                        "multiplier": u.multiplier(y[i], u.b - 2 * u.a)})
    return {"type": "ordering-lp-dual", "cuts": entries}


def _lp_ov_proof(instance, cert, lp, y) -> dict[str, Any]:
    """One entry per row ``(coflow, resource)`` with a nonzero multiplier (``lp-ov-dual``)."""
    # the row c_q f_k - ... >= d is 2^-a of its instance form
    u = _Units(cert)
    where = "port" if instance.is_big_switch else "resource"
    ks, qs = lp.meta["row_coflow"], lp.meta["row_resource"]
    return {"type": "lp-ov-dual",
            "rows": [{"coflow": int(ks[i]), where: int(qs[i]),
                      "multiplier": u.multiplier(y[i], -u.a)} for i in _nonzero(y)]}


def _interval_lp_proof(instance, cert, lp, y) -> dict[str, Any]:
    """The interval points and the rows with nonzero multipliers (``interval-lp-dual``).

    The file writes the capacity rows as ``-sum_k d_k^q y_kl >= -c_q tau_l``: its multiplier
    is minus the LP's (a ``<=`` row, whose multiplier is ``<= 0``)."""
    u = _Units(cert)
    where = "port" if instance.is_big_switch else "resource"
    m0, m1, (K, Lm1) = lp.row_blocks["monotone"]
    c0, c1, (P, L) = lp.row_blocks["capacity"]
    rows = []
    for i in _nonzero(y):
        if i < m1:         # y_k,l+1 - y_k,l >= 0 (0-based l): interval l + 2, 1-based
            k, l = divmod(i - m0, Lm1)
            rows.append({"row": "monotone", "coflow": k, "interval": l + 2,
                         "multiplier": u.multiplier(y[i], 0)})
        else:              # sum_k d_k^q y_kl <= c_q tau_l: 2^-a of its instance form
            q, l = divmod(i - c0, L)
            rows.append({"row": "capacity", where: q, "interval": l + 1,
                         "multiplier": u.multiplier(-y[i], -u.a)})
    return {"type": "interval-lp-dual", "tau": [u.time(t) for t in cert.params["tau"]],
            "rows": rows}


def _time_indexed_lp_proof(instance, cert, lp, y) -> dict[str, Any]:
    """The slot boundaries and the rows with nonzero multipliers (``time-indexed-lp-dual``).

    Groups (a coflow's flows on one path) are named by coflow and path (resources ascending;
    ``[i, m_in + j]`` on a big switch); the capacity rows are written ``-sum x >= -c_q
    Delta_t`` (minus the LP's multiplier)."""
    from .formulations.time_indexed import flow_groups
    u = _Units(cert)
    where = "port" if instance.is_big_switch else "resource"
    groups = flow_groups(instance)
    ge, gr = groups.resource_entries()
    paths: list[list[int]] = [[] for _ in range(groups.num_groups)]
    for g, q in zip(ge.tolist(), gr.tolist()):
        paths[g].append(int(q))
    named = [(int(k), tuple(sorted(p))) for k, p in zip(groups.coflow.tolist(), paths)]
    if len(set(named)) != len(named):
        raise InvalidParameterError(
            "a coflow has two flow groups over the same resources in a different order: the "
            "certificate file names groups by their resource sets and cannot tell them apart")
    loads = port_loads(instance)
    T, S = int(cert.params["slots"]), lp.row_blocks["cumulative"][2][1]
    # boundaries b_t = t delta as the builder computes them (floats in the LP's units)
    bounds = np.arange(T + 1, dtype=float) * float(cert.params["slot"])
    blocks = sorted((v[0], v[1], k) for k, v in lp.row_blocks.items())
    rows = []
    for i in _nonzero(y):
        start, _, block = next(bl for bl in blocks if bl[0] <= i < bl[1])
        j = i - start
        if block == "capacity":           # sum x <= c Delta: 2^-a; written negated
            q, t = divmod(j, T)
            rows.append({"row": "capacity", where: q, "slot": t + 1,
                         "multiplier": u.multiplier(-y[i], -u.a)})
        elif block in ("cumulative", "linking"):      # data rows: 2^-a
            g, t = divmod(j, S if block == "cumulative" else T)
            k, path = named[g]
            rows.append({"row": block, "coflow": k, "path": list(path), "slot": t + 1,
                         "multiplier": u.multiplier(y[i], -u.a)})
        elif block == "completion":       # a time row: 2^(b - a)
            rows.append({"row": "completion", "coflow": j,
                         "multiplier": u.multiplier(y[i], u.b - u.a)})
        else:                             # d C - sum s x >= d^2 / 2c: 2^(b - 2a)
            rows.append({"row": "mean-busy-time", "coflow": int(loads.coflow[j]),
                         where: int(loads.port[j]),
                         "multiplier": u.multiplier(y[i], u.b - 2 * u.a)})
    return {"type": "time-indexed-lp-dual", "boundaries": [u.time(t) for t in bounds[1:]],
            "overflow": bool(cert.params.get("overflow", True)), "rows": rows}


#: The LP formulations whose duals have a file form, and their writers.
def _lp_ov_branch_file(instance, result) -> dict[str, Any]:
    """The certificate file of an ``lp-ov-branch`` bound (``lp-ov-branch-dual``): one entry
    per leaf, its decisions ``[a, b]`` ("a completes before b") from the root and either the
    LP-OV rows of its dual (as ``lp-ov-dual``) or ``"empty": true`` (a cycle)."""
    from .bounds.lp_ov_branch import check_branch_certificate
    from .formulations.certificates import in_units
    from .formulations.lp_ov import build_lp_ov
    cert = result.certificate
    value, why, _ = check_branch_certificate(instance, cert, repair=False)
    if value is None:
        raise InvalidParameterError(f"the certificate does not check: {why}")
    if result.objective == "weighted_cct":
        value -= sum((Fraction(float(w)) * Fraction(float(r)) for w, r in
                      zip(instance.weight.tolist(), instance.release.tolist())), Fraction(0))
    if value != Fraction(result.value):
        raise InvalidParameterError(f"the certificate proves {value}, not the result's "
                                    f"{Fraction(result.value)}")
    lp = build_lp_ov(in_units(instance, cert.params.get("unit")),
                     ports=cert.params.get("ports", "used"))
    leaves = []
    for i, lf in enumerate(cert.leaves):
        entry: dict[str, Any] = {"decisions": [[int(a), int(b)] for a, b in lf.decisions]}
        if lf.row_duals is None:
            entry["empty"] = True
        else:
            entry["rows"] = _lp_ov_proof(instance, cert.leaf_certificate(i), lp,
                                         lf.row_duals)["rows"]
        leaves.append(entry)
    return _lower_bound_document(instance, result, value,
                                 {"source": cert.source, "type": "lp-ov-branch-dual",
                                  "leaves": leaves})


_PROOF_WRITERS = {"ordering-lp": _ordering_lp_proof, "lp-ov": _lp_ov_proof,
                  "interval-lp": _interval_lp_proof, "time-indexed-lp": _time_indexed_lp_proof}


def bound_proof(instance, cert, value: Fraction) -> dict[str, Any]:
    """The file form of an LP certificate whose multipliers prove exactly ``value`` (``sum w
    C``, instance units), checked strictly (no repair) on the LP rebuilt from ``instance``:
    the ``proof`` of a lower-bound file (``ordering-lp-dual``, ``lp-ov-dual``...), as an
    optimum certificate's ``lower-bound`` node carries it (a bound on every schedule closes any
    node).  For ``bnb``'s seed bound solved exactly (:func:`~coflowopt.exact.exact_lp.
    exact_bound`, proofs/bnb-exact-seed-bound.md).

    Raises
    ------
    InvalidParameterError
        If the formulation has no file form or the multipliers do not prove ``value``.
    """
    writer = _PROOF_WRITERS.get(cert.formulation)
    if writer is None:
        raise InvalidParameterError(f"certificate files cover the duals of "
                                    f"{', '.join(_PROOF_WRITERS)}, not {cert.formulation!r}")
    lp = rebuild_lp(instance, cert)
    chk = check_certificate(instance, cert, repair=False, claimed=value, lp=lp)
    if not chk.ok or chk.value != value or chk.multipliers is None:
        raise InvalidParameterError(f"the multipliers do not prove {value} exactly "
                                    f"({chk.reason or chk.value})")
    return {"source": cert.source, **writer(instance, cert, lp, chk.multipliers)}


# ----------------------------------------------------------------------------- optima
def _fr(x) -> Fraction:
    return Fraction(float(x))


class _OptimumProof:
    """The closed nodes of an ``event-sequence-search`` proof, each with a bound that
    ``tools/check_certificate.py`` rebuilds exactly (its docstring, ``optimum``; the covering
    argument is ``proofs/optimum-certificates.md``).

    Nodes are suffixes of event codes (``k >= 0`` the completion of coflow ``k``, ``-(g+1)``
    the release of group ``g``), as in :mod:`coflowopt.exact.branch_and_bound`, whose closed
    nodes (``extra["closed_nodes"]``) are the candidates; a candidate whose bound cannot be
    written, and any other node, is expanded.
    """

    def __init__(self, instance, dominance):
        from .exact.subset_bounds import ExactSubsetBounds
        inst = self.inst = instance
        K = inst.num_coflows
        self.w = [_fr(v) for v in inst.weight.tolist()]
        self.r = [_fr(v) for v in inst.release.tolist()]
        self.cap = [_fr(c) for c in inst.capacity.tolist()]
        self.members = [k for k in range(K) if self.w[k] > 0]
        self.bit = {k: 1 << i for i, k in enumerate(self.members)}
        self.esb = ExactSubsetBounds(inst, self.members)
        self.e = dict(zip(self.members, self.esb.e))
        self.times = sorted(set(r for r in self.r if r > 0))
        self.group = [self.times.index(r) if r > 0 else -1 for r in self.r]
        self.G = len(self.times)
        self.pairs: dict[tuple, Fraction] = {}
        ptr, res = inst.flow_resource_ptr.tolist(), inst.flow_resource.tolist()
        for f, (k, z) in enumerate(zip(inst.flow_coflow.tolist(), inst.flow_size.tolist())):
            key = (int(k), tuple(sorted(res[ptr[f]:ptr[f + 1]])))
            self.pairs[key] = self.pairs.get(key, Fraction(0)) + _fr(z)
        self.before: set = set()
        self.rule = "subset" if dominance == "subset" else bool(dominance)
        if dominance:
            from .exact.branch_and_bound import dominance_pairs
            data: dict = {k: {} for k in self.members}
            for (c, p), z in self.pairs.items():
                if c in data:
                    data[c][p] = z
            self.before = set(dominance_pairs(
                self.members, {k: self.r[k] for k in self.members},
                {k: self.w[k] for k in self.members}, data,
                "subset" if dominance == "subset" else "identical"))
        self.root = tuple(k for k in range(K) if self.w[k] == 0)
        self.lps = 0
        # DP values of large sets (the file's proof.dp; proofs/optimum-certificates.md,
        # section 3a): exact DPB lower bounds of sets above DP_EXACT_MAX given by bnb (its float
        # tables, exact on its data), the size above which a closure's set needs a listed
        # entry (None: no proof.dp, DPB recomputed for every set as before), and per such set
        # (mask) the least value of DPB its closures need
        self.dp_big: dict[int, Fraction] = {}
        self.list_above: int | None = None
        self.needs: dict[int, Fraction] = {}
        self._bound: Fraction | None = None     # the last bound close() computed
        self._smith: dict | None = None
        # (value, proof): a lower bound on every schedule in a lower-bound file's form
        # (bound_proof), which closes any node it reaches; None: none
        self.global_bound: tuple[Fraction, dict] | None = None

    def unplaced(self, suffix):
        done = set(c for c in suffix if c >= 0)
        U = [k for k in self.members if k not in done]
        return U, self.G - sum(1 for c in suffix if c < 0)

    def mask(self, ks) -> int:
        m = 0
        for k in ks:
            m |= self.bit.get(k, 0)
        return m

    def children(self, suffix):
        U, rho = self.unplaced(suffix)
        out = [(k,) + suffix for k in U
               if not any((k, j) in self.before for j in U if j != k)]
        if rho > 0 and not any(self.group[k] == rho - 1 for k in U):
            out.append((-rho,) + suffix)
        return out

    def dpb(self, m: int) -> Fraction | None:
        """A lower bound on ``DPB`` of the set ``m`` (a mask): recomputed exactly up to
        :data:`DP_EXACT_MAX` coflows (or for any set when bnb gave no values), else bnb's
        value (None when it gave none for this set)."""
        v = self.dp_big.get(m)
        if v is None and (m.bit_count() <= DP_EXACT_MAX or not self.dp_big):
            v = self.esb.dpb(m)
        return v

    def need(self, U, value: Fraction, target: Fraction) -> None:
        """Record what a closure of bound ``value`` (which adds ``DPB(U)``) needs of
        ``DPB(U)``: ``DPB(U) - (value - target)``, when ``U`` is above ``list_above``."""
        m = self.mask(U)
        if self.list_above is not None and m.bit_count() > self.list_above:
            n = self.dpb(m) - (value - target)
            if n > self.needs.get(m, 0):
                self.needs[m] = n

    def chain(self, suffix, U) -> Fraction | None:
        m = self.mask(U)
        total = self.dpb(m)
        if total is None:
            return None
        for c in suffix:
            if c >= 0 and c in self.bit:
                m |= self.bit[c]
                total += self.w[c] * max(self.esb.mlb(m), self.e[c])
        return total

    # --- the node's event LP (the checker's canonical form, instance units)
    def _events(self, suffix, U, rho):
        ev = [("rel", g) for g in range(rho)] + ([("block", None)] if U else [])
        return ev + [("rel", -c - 1) if c < 0 else ("done", c) for c in suffix]

    def block_charge(self, U, rho):
        """``(w_min, M)`` of the charged node LP (proofs/bnb-block-charge.md): the least
        weight of ``U`` and ``M(U) = max(MLB(U), max_{k in U} r_k + rho_k)``; None when the
        latest unplaced release has no coflow in ``U`` (the block may then come later than
        the last completion of ``U``)."""
        if not U or (rho > 0 and not any(self.group[k] == rho - 1 for k in U)):
            return None
        M = max([self.esb.mlb(self.mask(U))] + [self.e[k] for k in U])
        return min(self.w[k] for k in U), M

    def lp_duals(self, suffix, U, rho, target: Fraction, charge=None):
        """Multipliers of the node's event LP proving ``DPB(U) + LP >= target`` (dict in the
        file's form), or None.  With ``charge = (w_min, M)`` the LP charges the block event
        ``w_min`` and starts it no earlier than ``M``, and the bound is
        ``DPB(U) - w_min M + LP`` (proofs/bnb-block-charge.md)."""
        import scipy.sparse as sp
        from .exact.exact_lp import exact_lp_solution
        from .formulations.linear_program import LinearProgram
        ev = self._events(suffix, U, rho)
        N = len(ev)
        rel_ev = {x: n for n, (kd, x) in enumerate(ev) if kd == "rel"}
        done_ev = {x: n for n, (kd, x) in enumerate(ev) if kd == "done"}
        Uset = set(U)
        cols: list = [("t", n) for n in range(N)]
        windows = {}
        for (k, path), z in self.pairs.items():
            lo = rel_ev[self.group[k]] if self.group[k] >= 0 else -1
            hi = rho if k in Uset else done_ev[k]
            windows[(k, path)] = range(lo + 1, hi + 1)
            cols += [("x", (k, path), n) for n in windows[(k, path)]]
        col_of = {c: i for i, c in enumerate(cols)}
        rows, keys, lo_r, hi_r = [], [], [], []
        for n in range(1, N):
            rows.append({col_of[("t", n)]: Fraction(1), col_of[("t", n - 1)]: Fraction(-1)})
            keys.append(("order", n))
            lo_r.append(Fraction(0)); hi_r.append(None)
        cap_rows: dict = {}
        for (k, path), win in windows.items():
            for n in win:
                for q in path:
                    cap_rows.setdefault((n, q), []).append(col_of[("x", (k, path), n)])
        for (n, q), xs in sorted(cap_rows.items()):
            row = {col_of[("t", n)]: self.cap[q]}
            if n > 0:
                row[col_of[("t", n - 1)]] = -self.cap[q]
            for j in xs:
                row[j] = Fraction(-1)
            rows.append(row); keys.append(("capacity", n, q))
            lo_r.append(Fraction(0)); hi_r.append(None)
        for pair, win in windows.items():
            rows.append({col_of[("x", pair, n)]: Fraction(1) for n in win})
            keys.append(("demand", pair))
            lo_r.append(self.pairs[pair]); hi_r.append(self.pairs[pair])
        W = [self.w[x] if kd == "done" else Fraction(0) for kd, x in ev]
        t_lo: dict = {}
        if charge is not None:
            W[rho] = charge[0]          # the block event follows the prefix releases
            t_lo[rho] = charge[1]

        def build(phase: bool):
            c = ([Fraction(0)] * N if phase else list(W)) + [Fraction(0)] * (len(cols) - N)
            clo = [self.times[x] if kd == "rel" else t_lo.get(n, Fraction(0))
                   for n, (kd, x) in enumerate(ev)] + [Fraction(0)] * (len(cols) - N)
            chi = [self.times[x] if kd == "rel" else None for kd, x in ev] + \
                [self.pairs[cl[1]] for cl in cols[N:]]
            rws = [dict(r) for r in rows]
            if phase:   # an artificial "unsent" column in every demand row, cost 1
                for i, key in enumerate(keys):
                    if key[0] == "demand":
                        rws[i][len(c)] = Fraction(1)
                        c.append(Fraction(1)); clo.append(Fraction(0)); chi.append(None)
            ptr, idx, val = [0], [], []
            for r in rws:
                for j, v in sorted(r.items()):
                    idx.append(j); val.append(v)
                ptr.append(len(idx))
            A = sp.csr_matrix((np.array([float(v) for v in val]), np.array(idx, dtype=np.int32),
                               np.array(ptr, dtype=np.int64)), shape=(len(rws), len(c)))

            def arr(v, inf):
                return np.array([inf if x is None else float(x) for x in v])
            return LinearProgram("event-lp-certificate", c=arr(c, 0.0), A=A,
                                 row_lo=arr(lo_r, -np.inf), row_hi=arr(hi_r, np.inf),
                                 col_lo=arr(clo, -np.inf), col_hi=arr(chi, np.inf),
                                 exact={"A_data": val, "c": c, "col_lo": clo, "col_hi": chi,
                                        "row_lo": lo_r, "row_hi": hi_r})
        self.lps += 1
        ex = exact_lp_solution(build(False))
        scale = Fraction(1)
        if ex is None:
            ex = exact_lp_solution(build(True))     # infeasible?  a Farkas-type multiplier
            if ex is None or ex.value <= 0:
                return None
        y = [max(v, Fraction(0)) if kk[0] != "demand" else v for v, kk in zip(ex.y, keys)]
        duals = self._duals(y, keys)
        v = self.lagrangian(ev, U, rho, duals, W, t_lo)
        if v is None:
            return None
        base = self.dpb(self.mask(U))
        if base is None:
            return None
        if charge is not None:
            base -= charge[0] * charge[1]
        if base + v < target:
            # a phase-one multiplier proves emptiness: scale it until it proves the target
            v0 = self.lagrangian(ev, U, rho, duals, [Fraction(0)] * N, t_lo)
            if v0 is None or v0 <= 0:
                return None
            scale = Fraction(math.ceil((target - base) / v0) + 1)
            y = [scale * v for v in y]
            duals = self._duals(y, keys)
            v = self.lagrangian(ev, U, rho, duals, W, t_lo)
            if v is None or base + v < target:
                return None
        self._bound = base + v
        return {k: [[*key, fraction_str(val)] for key, val in ent] for k, ent in duals.items()}

    @staticmethod
    def _duals(y, keys) -> dict:
        out: dict = {"order": [], "capacity": [], "demand": []}
        for v, key in zip(y, keys):
            if v == 0:
                continue
            if key[0] == "order":
                out["order"].append(((key[1],), v))
            elif key[0] == "capacity":
                out["capacity"].append(((key[1], key[2]), v))
            else:
                out["demand"].append(((key[1][0], list(key[1][1])), v))
        return out

    def lagrangian(self, ev, U, rho, duals, W, t_lo=None) -> Fraction | None:
        """The bound the multipliers prove (the checker's arithmetic, redone here so that a
        node is written only with a bound that holds); ``t_lo``: earliest times of
        completion events (the charged block), else 0."""
        N = len(ev)
        y_ord = [Fraction(0)] * (N + 1)
        for (n,), v in duals["order"]:
            y_ord[n] += v
        y_cap: dict = {}
        cap_n: dict = {}
        for (n, q), v in duals["capacity"]:
            y_cap[(n, q)] = v
            cap_n[n] = cap_n.get(n, Fraction(0)) + self.cap[q] * v
        y_dem = {(k, tuple(p)): v for (k, p), v in duals["demand"]}
        total = Fraction(0)
        for n, (kd, x) in enumerate(ev):
            d = W[n] - y_ord[n] + y_ord[n + 1] - cap_n.get(n, 0) + cap_n.get(n + 1, 0)
            if kd == "rel":
                total += d * self.times[x]
            elif d < 0:
                return None
            elif t_lo and n in t_lo:
                total += d * t_lo[n]
        rel_ev = {x: n for n, (kd, x) in enumerate(ev) if kd == "rel"}
        done_ev = {x: n for n, (kd, x) in enumerate(ev) if kd == "done"}
        Uset = set(U)
        for (k, path), z in self.pairs.items():
            yd = y_dem.get((k, path), Fraction(0))
            total += yd * z
            lo = rel_ev[self.group[k]] if self.group[k] >= 0 else -1
            hi = rho if k in Uset else done_ev[k]
            for n in range(lo + 1, hi + 1):
                d = sum((y_cap.get((n, q), Fraction(0)) for q in path), Fraction(0)) - yd
                if d < 0:
                    total += d * z
        return total

    def close(self, suffix, target: Fraction) -> dict | None:
        """A bound for the node that the checker confirms ``>= target``, or None."""
        if self.global_bound is not None and self.global_bound[0] >= target:
            # a bound on every schedule bounds this node's region (the seed's exact LP)
            return {"type": "lower-bound", "proof": self.global_bound[1]}
        U, rho = self.unplaced(suffix)
        if suffix and suffix[0] < 0 and U and \
                self.esb.mlb(self.mask(U)) > self.times[-suffix[0] - 1]:
            return {"type": "empty"}
        ch = self.chain(suffix, U)
        if ch is not None and ch >= target:
            self.need(U, ch, target)
            return {"type": "chain"}
        duals = self.lp_duals(suffix, U, rho, target)
        if duals is not None:
            self.need(U, self._bound, target)
            return {"type": "lp", "duals": duals}
        # the node LP with its block charged (the search's node LP since the block charge)
        charge = self.block_charge(U, rho)
        if charge is not None:
            duals = self.lp_duals(suffix, U, rho, target, charge)
            if duals is not None:
                self.need(U, self._bound, target)
                return {"type": "lp-charged", "duals": duals}
        return None

    # --- proof.dp: the values of DPB of large sets that the closures use
    def cheap(self, m: int) -> Fraction:
        """The checker's polynomial lower bound on ``DPB`` of the set ``m``
        (``tools/check_certificate.py``, ``EventSearch.cheap``): the larger of ``sum w e``
        and, per resource ``q`` and release ``a`` of the set, ``sum_{r_k < a} w_k e_k + a W_a +
        Smith's least sum w L`` over the coflows released at or after ``a``."""
        esb = self.esb      # its integers: times in units 1 / t_scale, weights 1 / w_scale
        r, w, e = esb._r, esb._w, esb._e
        if self._smith is None:
            # per resource: (member position, d / c) in Smith's order (exact ratios)
            self._smith = [sorted(((i, ld[q]) for i, ld in enumerate(esb._ld)),
                                  key=lambda ip: Fraction(ip[1], w[ip[0]]))
                           for q in range(esb._P) if any(ld[q] for ld in esb._ld)]
        S = [i for i in range(esb.n) if m >> i & 1]
        iso = {i: w[i] * e[i] for i in S}
        v = sum(iso.values())
        for a in set(r[i] for i in S):
            base = sum(iso[i] for i in S if r[i] < a) + a * sum(w[i] for i in S if r[i] >= a)
            for jobs in self._smith:
                t, tot = 0, base
                for i, p in jobs:
                    if m >> i & 1 and r[i] >= a:
                        t += p
                        tot += w[i] * t
                v = max(v, tot)
        return Fraction(v, esb.t_scale * esb.w_scale)

    def dp_entries(self, child_exact: int, max_entries: int, t_end: float) -> list[dict]:
        """The entries ``{set, value, last}`` that prove what the closures need of ``DPB`` of
        sets above ``list_above``, each checked here as the checker checks it.

        A set's value is the most any closure or listed parent needs of it; its children
        ``S - k`` (``k`` in ``last``: the coflows of ``S`` that Lemma D's pairs put before no
        other coflow of ``S``) need ``v(S) - w_k max(MLB(S), e_k)``.  A child is left out when
        the cheap bound meets its need, or when it has at most ``child_exact`` coflows (the
        checker recomputes its ``DPB``; checked here too); sets are processed largest first,
        so a set's value is final when it is reached."""
        import time
        from collections import Counter
        by_size: dict[int, dict[int, Fraction]] = {}
        for m, n in self.needs.items():
            by_size.setdefault(m.bit_count(), {})[m] = n
        from .exact.branch_and_bound import dominance_pairs
        data: dict = {k: {} for k in self.members}
        for (c, p), z in self.pairs.items():
            if c in data:
                data[c][p] = z
        after = {k: 0 for k in self.members}
        for a, b in dominance_pairs(self.members, {k: self.r[k] for k in self.members},
                                    {k: self.w[k] for k in self.members}, data, "subset"):
            if not data[a]:
                continue        # the checker's condition: a has data (MLB(P) >= e_a)
            after[a] |= self.bit[b]
        entries: list[dict] = []
        for size in range(max(by_size, default=0), 0, -1):
            level = by_size.pop(size, {})
            for done, (m, n) in enumerate(level.items()):
                if n <= 0 or n <= self.cheap(m):
                    continue
                if size <= child_exact:
                    if self.esb.dpb(m) < n:
                        raise InvalidParameterError(
                            f"no certificate: a set of {size} coflows needs DPB >= {n}, "
                            f"more than its DPB {self.esb.dpb(m)}")
                    continue
                if len(entries) >= max_entries or time.perf_counter() > t_end:
                    per = Counter(len(e["set"]) for e in entries)
                    raise InvalidParameterError(
                        f"no certificate: the DP values the closures need of sets above "
                        f"{self.list_above} coflows take more than {len(entries):,} entries "
                        f"(cap {max_entries:,}) or the time limit (entries per set size: "
                        f"{', '.join(f'{n}: {per[n]:,}' for n in sorted(per, reverse=True))}; "
                        f"{len(level) - done:,} sets of {size} coflows left at that size)")
                S = [k for k in self.members if m & self.bit[k]]
                last = [k for k in S if not after[k] & m]
                M = self.esb.mlb(m)
                kids = by_size.setdefault(size - 1, {})
                for k in last:
                    cn = n - self.w[k] * max(M, self.e[k])
                    if cn <= 0:
                        continue
                    if size == 1:
                        raise InvalidParameterError(
                            f"no certificate: coflow {k} needs DPB >= {n}, more than its "
                            "term")
                    c = m ^ self.bit[k]
                    if cn > kids.get(c, 0):
                        kids[c] = cn
                entries.append({"set": S, "value": fraction_str(n), "last": last})
        return entries


def optimum_certificate(instance, result, *, max_nodes: int = 200_000,
                        time_limit: float = 600.0, dp_exact_max: int | None = None,
                        dp_child_exact: int | None = None,
                        max_dp_entries: int = DP_MAX_ENTRIES) -> dict[str, Any]:
    """The certificate file (a JSON-ready dict) of an optimum proved by ``bnb``.

    Parameters
    ----------
    instance : Instance
    result : Result
        A ``bnb`` result run with ``certificate_nodes=True``, ``kind="optimal"`` and
        ``certificate_status == "proved exactly"`` (an exact schedule, an exact proof).
    max_nodes, time_limit : int, float
        Effort for nodes whose closing bound has to be rebuilt (expanded) in the file's terms.
    dp_exact_max : int, optional
        Closures on sets of more coflows read ``DPB`` from listed entries (``proof.dp``, the
        checker recomputes it only up to this size).  Default: :data:`DP_EXACT_MAX` when the
        exact proof read ``DPB`` of larger sets from bnb's float tables
        (``extra["dp_values"]``), else no ``proof.dp`` (every set recomputed).
    dp_child_exact : int, optional
        Sets of at most this many coflows (at most ``dp_exact_max``, the default) that an
        entry needs are left to the checker's recomputation instead of being listed (on 4x4
        K=20 seed 0: 986 entries and a 0.25 MB file at 16, 46,424 and 6.1 MB at 12, checked
        in the same 10-11 s).
    max_dp_entries : int
        Most entries in ``proof.dp``; more: no certificate.

    Returns
    -------
    dict
        ``claim`` (``optimum``, exact value), ``instance`` (digest), ``schedule`` (pieces
        ``[flow, start, end, rate]``, exact) and ``proof`` (``event-sequence-search``: the
        closed nodes with their bounds: ``chain``, ``lp`` / ``lp-charged`` (exact multipliers
        of the node's event LP), ``empty``, or ``lower-bound`` (a lower-bound file's proof, a
        bound on every schedule: bnb's seed bound solved exactly, ``extra["seed_proof"]``)),
        all checked by ``tools/check_certificate.py``.

    Raises
    ------
    InvalidParameterError
        If the result is not an exactly proved optimum with recorded nodes, or a node could
        not be closed with a bound the checker can rebuild (no certificate is written that the
        checker would have to trust).

    Notes
    -----
    The covering argument and why each bound holds: ``proofs/optimum-certificates.md``.
    """
    import time
    from .verify import verify_schedule
    if result.algorithm != "bnb" or result.kind != "optimal" or \
            result.certificate_status != "proved exactly":
        raise InvalidParameterError(
            "a certificate of an optimum needs an optimum proved exactly by bnb (this result: "
            f"{result.algorithm!r}, kind {result.kind!r}, {result.certificate_status!r})")
    if result.objective != "weighted_completion_time":
        raise InvalidParameterError("optimum certificates are for sum w C")
    used = ((result.certificate or {}).get("exact") or {}).get("dp_from_float_tables")
    big = (result.extra or {}).get("dp_values")
    if used and big is None:
        # the file's chain bounds would be rebuilt over 2^|U| subsets (here and by the
        # checker): sets that large would take hours and gigabytes
        raise InvalidParameterError(
            f"no certificate: the exact proof read {used} DP bound(s) of sets of more than "
            f"{result.certificate['exact'].get('max_set')} coflows from the float tables and "
            "the run did not record them (certificate_nodes=True)")
    if dp_exact_max is None and used:
        dp_exact_max = DP_EXACT_MAX
    if dp_child_exact is None:
        dp_child_exact = dp_exact_max
    if dp_exact_max is not None and not 0 <= dp_child_exact <= dp_exact_max <= DP_EXACT_MAX:
        raise InvalidParameterError(f"need 0 <= dp_child_exact <= dp_exact_max <= "
                                    f"{DP_EXACT_MAX}")
    nodes = (result.extra or {}).get("closed_nodes")
    if nodes is None:
        raise InvalidParameterError("the bnb run did not record its closed nodes "
                                    "(certificate_nodes=True)")
    sched = result.schedule
    rep = verify_schedule(instance, sched, mode="exact")
    value = rep.weighted_completion_time
    if not rep.ok or not isinstance(value, Fraction) or value != Fraction(result.value):
        raise InvalidParameterError("the schedule does not verify exactly at the result's value")
    dom = result.params.get("dominance", True)
    proof = _OptimumProof(instance, dom if dom == "subset" else bool(dom))
    proof.list_above = dp_exact_max
    for key, v in (big or {}).items():
        proof.dp_big[proof.mask(int(k) for k in key.split(","))] = Fraction(v)
    seed = (result.extra or {}).get("seed_proof")
    if seed is not None:
        # bnb's seed bound solved exactly (its file form, written by bound_proof)
        proof.global_bound = (Fraction(seed["value"]), seed["proof"])
    cand = set(tuple(s) for s in nodes)
    t_end = time.perf_counter() + time_limit
    closed, stack, seen = [], [proof.root], 0
    while stack:
        s = stack.pop()
        seen += 1
        if seen > max_nodes or time.perf_counter() > t_end:
            raise InvalidParameterError(
                f"no certificate: the proof's nodes could not all be closed with checkable "
                f"bounds within {max_nodes} nodes / {time_limit:g} s")
        kids = proof.children(s)
        if s in cand or not kids:
            b = proof.close(s, value)
            if b is not None:
                closed.append({"suffix": list(s), "bound": b})
                continue
            if not kids:
                raise InvalidParameterError(
                    f"no certificate: the event sequence {list(s)} has no bound the checker "
                    f"can rebuild that reaches {value}")
        stack.extend(kids)
    dp = None
    if dp_exact_max is not None:
        t_dp = time.perf_counter()
        entries = proof.dp_entries(dp_child_exact, max_dp_entries,
                                   max(t_end, t_dp + 1.0))
        dp = {"exact_max_set": dp_exact_max, "entries": entries}
        dp_stats = {"dp_entries": len(entries), "dp_sets_needed": len(proof.needs),
                    "dp_milliseconds": int(1000 * (time.perf_counter() - t_dp))}
    pieces = [[int(f), fraction_str(Fraction(a)), fraction_str(Fraction(b)),
               fraction_str(Fraction(r))]
              for f, a, b, r in zip(sched.flow.tolist(), sched.start.tolist(),
                                    sched.end.tolist(), sched.rate.tolist())]
    return {
        "format": CERTIFICATE_FORMAT, "version": 1,
        "claim": {"kind": "optimum", "objective": "weighted_completion_time",
                  "value": fraction_str(value), "value_float": float(value),
                  "algorithm": "bnb"},
        "instance": {"digest": instance_digest(instance), "coflows": instance.num_coflows,
                     "flows": instance.num_flows},
        "schedule": {"pieces": pieces},
        "proof": {"type": "event-sequence-search",
                  "dominance": proof.rule if proof.before else False,
                  "nodes": closed,
                  **({} if dp is None else {"dp": dp}),
                  "stats": {"bnb_closed_nodes": len(cand), "nodes_written": len(closed),
                            "nodes_walked": seen, "lps": proof.lps,
                            **({} if dp is None else dp_stats)}},
    }


def integral_certificate(instance, fluid: dict[str, Any], *, slot: float = 1.0,
                         schedule=None) -> dict[str, Any]:
    """The certificate file of a bound or optimum of the integral model (slotted schedules).

    Parameters
    ----------
    instance : Instance
    fluid : dict
        A certificate file of the fluid model (:func:`lower_bound_certificate` or
        :func:`optimum_certificate`, objective ``sum w C``): its value ``L`` bounds every
        integral schedule.
    slot : float
        Slot length ``s``.
    schedule : SlottedSchedule, optional
        A slotted schedule; when it verifies (:func:`coflowopt.slotted.verify_slotted`) at
        the bound, the claim is its ``optimum``, else (or when absent) the claim is the
        ``lower_bound``.

    Returns
    -------
    dict
        ``claim`` (``model: "integral"``, ``slot``, ``kind``, exact ``value``: the larger of
        ``L`` rounded up to the lattice ``gcd_k (w_k s)`` and the integral isolation bound),
        ``proof`` (``fluid-bound-lattice`` with the fluid certificate) and, for an optimum,
        ``slotted`` (the schedule's coflowopt-slotted-schedule document); checked by
        ``tools/check_certificate.py`` (``proofs/integral-lattice-bound.md``).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.bounds.simple import isolated_bound
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 0, 1)])])
    >>> fluid = lower_bound_certificate(inst, isolated_bound(inst))
    >>> integral_certificate(inst, fluid)["claim"]["value"]
    '3'
    """
    from .exact.integral_mip import (integral_isolated_bound, objective_lattice,
                                     round_up_to_lattice)
    from .slotted import verify_slotted
    if fluid.get("claim", {}).get("objective") != "weighted_completion_time" or \
            fluid["claim"].get("model", "fluid") != "fluid":
        raise InvalidParameterError("an integral certificate needs a fluid certificate of "
                                    "sum w C")
    L = Fraction(fluid["claim"]["value"])
    rounded = round_up_to_lattice(L, objective_lattice(instance, slot))
    iso = Fraction(integral_isolated_bound(instance, slot=slot).value)
    value, kind, doc = max(rounded, iso), "lower_bound", None
    if schedule is not None:
        rep = verify_slotted(instance, schedule)
        if not rep.ok:
            raise InvalidParameterError(f"the slotted schedule does not verify: {rep}")
        if rep.weighted_completion_time == value:
            from .formats.slotted_schedule import slotted_to_dict
            kind, doc = "optimum", slotted_to_dict(schedule, instance)
    cert = {"format": CERTIFICATE_FORMAT, "version": 1,
            "claim": {"kind": kind, "model": "integral", "slot": fraction_str(Fraction(slot)),
                      "objective": "weighted_completion_time", "value": fraction_str(value),
                      "value_float": float(value), "algorithm": "fluid-bound-lattice"},
            "instance": {"digest": instance_digest(instance), "coflows": instance.num_coflows,
                         "flows": instance.num_flows},
            "proof": {"type": "fluid-bound-lattice", "fluid": fluid,
                      "fluid_value": fraction_str(L), "rounded": fraction_str(rounded),
                      "integral_isolated": fraction_str(iso)}}
    if doc is not None:
        cert["slotted"] = doc
    return cert
