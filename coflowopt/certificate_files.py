"""Certificate files: what proves a number, in a file anyone can check without coflowopt.

A certified lower bound of the ordering-LP family (``isolated``, ``port``, ``bssi-dual``,
``ordering-lp``: every bound whose certificate is a dual of the ordering LP with parallel
inequalities, ``formulations/ordering_lp.md``) is written as its exact multipliers on its cuts;
``tools/check_certificate.py`` (standard library only) rebuilds every right-hand side from the
instance and confirms or rejects the claim in exact arithmetic.  The file format is documented
there; :func:`lower_bound_certificate` writes it.

Both instance formats are covered: a big switch (version 1, cuts on ports in the unified
numbering) and an instance over resources (version 2, a topology: cuts on resources, each
coflow's data at a resource summed over the flows whose path contains it).

Bounds of the other LPs (time-indexed, interval, LP-OV) are certified inside coflowopt
(``proofs/lp_certificates.md``) but have no standalone file form yet: asking for one is an
error that says so.

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
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError
from .formulations.certificates import check_certificate, fraction_str
from .formulations.ordering_lp import OrderingCuts, port_loads

__all__ = ["CERTIFICATE_FORMAT", "FILE_BOUNDS", "lower_bound_certificate", "instance_digest"]

CERTIFICATE_FORMAT = "coflowopt-certificate"
#: The registered bounds whose certificates have a file form (duals of the ordering LP).
FILE_BOUNDS = ("isolated", "port", "bssi-dual", "ordering-lp")


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
        a dual of the ordering LP.

    Returns
    -------
    dict
        ``format``, ``version``, ``claim`` (kind, objective, exact value), ``instance`` (digest,
        counts), ``proof`` (``ordering-lp-dual``: one entry per cut with a nonzero multiplier:
        ``port`` in the unified numbering on a big switch, ``resource`` (an index into the
        version-2 file's ``resources``) on an instance over resources, threshold, set of
        coflow indices, multiplier, all exact).

    Raises
    ------
    InvalidParameterError
        If the result is not a certified lower bound, or its LP has no file form yet.
    """
    if result.kind != "lower_bound" or result.certificate_status != "certified":
        raise InvalidParameterError(
            f"only a certified lower bound has a certificate file (this result: kind "
            f"{result.kind!r}, certificate {result.certificate_status!r})")
    cert = result.certificate
    if cert is None or cert.formulation != "ordering-lp":
        name = None if cert is None else cert.formulation
        raise InvalidParameterError(
            f"certificate files cover the ordering-LP family (isolated, port, bssi-dual, "
            f"ordering-lp) so far; the {result.algorithm!r} bound's certificate is a dual of "
            f"{name!r}, checked inside coflowopt only")
    chk = check_certificate(instance, cert, repair=True)
    if not chk.ok or chk.multipliers is None:
        raise InvalidParameterError(f"the certificate does not check: {chk.reason}")
    value = Fraction(result.value)
    if result.objective == "weighted_cct":
        proved = chk.value - sum((Fraction(float(w)) * Fraction(float(r)) for w, r in
                                  zip(instance.weight.tolist(), instance.release.tolist())),
                                 Fraction(0))
    else:
        proved = chk.value
    if proved != value:
        raise InvalidParameterError(f"the certificate proves {proved}, not the result's {value}")
    cuts = cert.rows if cert.rows is not None else OrderingCuts.empty()
    # the LP may be solved in units of 2^a data, 2^b capacity, 2^e weight
    # (formulations.certificates.unit_scaling): a multiplier y' there is y' 2^(e - a) here, a
    # threshold theta' is theta' 2^(a - b) (times), and the bound scales by 2^(a - b + e)
    unit = cert.params.get("unit") or {}
    a, b, e = (int(unit.get(k, 0)) for k in ("data_exp", "capacity_exp", "weight_exp"))
    y_scale, t_scale = Fraction(2) ** (e - a), Fraction(2) ** (a - b)
    y = chk.multipliers
    where = "port" if instance.is_big_switch else "resource"
    entries = []
    for i in np.flatnonzero(np.asarray([v != 0 for v in y], dtype=bool)).tolist():
        members = cuts.members[cuts.ptr[i]:cuts.ptr[i + 1]].tolist()
        entries.append({where: int(cuts.port[i]),
                        "theta": fraction_str(Fraction(float(cuts.theta[i])) * t_scale),
                        "set": [int(k) for k in members],
                        "multiplier": fraction_str(Fraction(y[i]) * y_scale)})
    return {
        "format": CERTIFICATE_FORMAT, "version": 1,
        "claim": {"kind": "lower_bound", "objective": result.objective,
                  "value": fraction_str(value), "value_float": float(value),
                  "algorithm": result.algorithm},
        "instance": {"digest": instance_digest(instance), "coflows": instance.num_coflows,
                     "flows": instance.num_flows},
        "proof": {"type": "ordering-lp-dual", "source": cert.source, "cuts": entries},
    }
