#!/usr/bin/env python3
"""Check a coflowopt certificate against an instance, trusting nothing but this file.

Standard library only (json, fractions, hashlib): no coflowopt import, no floating-point
arithmetic after reading.  Usage::

    python tools/check_certificate.py INSTANCE.json CERTIFICATE.json

Exit 0 and ``CONFIRMED: ...`` when the certificate proves its claim; exit 1 and
``REJECTED: <reason>`` when it does not; exit 2 for a file that cannot be read.

The instance is a ``coflowopt-instance`` JSON file: version 1, a big switch with ``ingress``
and ``egress`` capacities and coflows of flows ``[ingress, egress, size]``, whose resources are
its ports (ingress ``i`` is resource ``i``, egress ``j`` is resource ``m_in + j``); or version 2,
flows over shared resources (a topology): ``resources`` with capacities and coflows of flows
``{"src", "dst", "size", "path"}``, the path a list of distinct resource indices whose every
resource carries the flow.  ``coflowopt convert`` writes one from any format coflowopt reads.
Numbers mean what coflowopt means by them: the IEEE double nearest the literal (so ``0.1`` is
the double 0.1000000000000000055...), taken as an exact rational.

Certificates (``format: coflowopt-certificate``, ``version: 1``):

``lower_bound`` by an ``ordering-lp-dual`` proof
    The claim: every feasible fluid schedule has ``sum_k w_k C_k >= value`` (or
    ``sum_k w_k (C_k - r_k) >= value`` for the weighted CCT).  The proof: multipliers
    ``y >= 0`` on parallel inequalities ("cuts"), each a resource ``q`` (key ``"port"`` on a
    big switch, where ingress ``i`` is ``q = i`` and egress ``j`` is ``q = m_in + j``; key
    ``"resource"``, an index into ``resources``, on a version-2 instance; either key is read,
    not both), a threshold ``theta`` and a set ``S`` of coflows.  Every schedule's completion
    times satisfy (``proofs/ordering_lp_bound.md``; a resource of capacity ``c_q`` sends at
    most ``c_q dt`` in ``dt`` whatever the paths, so the port argument holds per resource)

        C_k >= r_k + rho_k,                 rho_k = max_q d_k^q / c_q               (I)
        sum_{k in S} d_k^q C_k >= theta d^q(S) + [sum_{k in S} (d_k^q)^2 + d^q(S)^2] / (2 c_q)
                                            for 0 <= theta <= min_{k in S} r_k      (P)

    (``d_k^q``: the data of coflow ``k`` through resource ``q``, the sizes of its flows whose
    path contains ``q``; ``d^q(S)`` its sum over ``S``).
    With ``z_k = w_k - sum_{cuts containing k} y d_k^q >= 0``, weak duality gives
    ``sum_k w_k C_k >= sum_cuts y rhs(P) + sum_k z_k (r_k + rho_k)``.  The checker rebuilds
    ``d``, ``rho`` and every right-hand side from the instance, checks ``y >= 0``,
    ``theta`` and ``z >= 0`` exactly, and confirms the claim if the sum is at least ``value``.

Every number in a certificate is a string ``"p/q"`` or ``"p"`` (exact rational) or a JSON
integer.
"""

from __future__ import annotations

import hashlib
import json
import sys
from fractions import Fraction

FORMAT = "coflowopt-certificate"
OBJECTIVES = ("weighted_completion_time", "weighted_cct")


class Rejected(Exception):
    """The certificate does not prove its claim (exit 1)."""


class Unreadable(Exception):
    """A file is not what it must be (exit 2)."""


# ------------------------------------------------------------------------------ numbers
def exact(x, where: str) -> Fraction:
    """An exact rational from a certificate field: ``"p/q"``, ``"p"`` or a JSON integer."""
    if isinstance(x, bool):
        raise Unreadable(f"{where}: expected a rational, got {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str):
        text = x.strip()
        if len(text) > 2000:
            raise Unreadable(f"{where}: a rational of {len(text)} characters (at most 2000)")
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            pass
    raise Unreadable(f"{where}: expected a rational as \"p/q\", got {x!r}")


def instance_number(x, where: str) -> Fraction:
    """A number of the instance file: the double nearest the literal, exactly."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise Unreadable(f"{where}: expected a number, got {x!r}")
    f = float(x)
    if f != f or f in (float("inf"), float("-inf")):
        raise Unreadable(f"{where}: not a finite number")
    return Fraction(f)


# ------------------------------------------------------------------------------ instance
class Instance:
    """The instance as the checker reads it: exact rationals, capacities per resource (the
    ports of a big switch in the unified numbering) and data per coflow and resource."""

    def __init__(self, doc):
        if not isinstance(doc, dict) or doc.get("format") != "coflowopt-instance":
            raise Unreadable("instance: not a coflowopt-instance JSON document")
        version = doc.get("version")
        if isinstance(version, bool) or version not in (1, 2):
            raise Unreadable(f"instance: version {version!r} (this checker reads 1 and 2)")
        self.version = version
        if version == 2:
            self._read_resources(doc)
        else:
            self._read_big_switch(doc)
        self.K = len(self.load)
        if self.K == 0:
            raise Unreadable("instance: no coflow")
        self.rho = [max(v / self.cap[q] for q, v in d.items()) for d in self.load]

    def _coflow(self, k, c) -> str:
        """Read a coflow's id, weight and release; return where it is (for messages)."""
        where = f"instance coflows[{k}]"
        if not isinstance(c, dict) or not isinstance(c.get("flows"), list) or not c["flows"]:
            raise Unreadable(f"{where}: needs a non-empty list of flows")
        self.ids.append(str(c.get("id", k)))
        self.weight.append(instance_number(c.get("weight", 1), f"{where}.weight"))
        self.release.append(instance_number(c.get("release", 0), f"{where}.release"))
        return where

    def _read_resources(self, doc):
        """Version 2: resources with capacities; a flow's size counts at every resource of
        its path."""
        self.m_in = None
        try:
            res = doc["resources"]
            self.cap = [instance_number(r["capacity"], f"instance resources[{q}].capacity")
                        for q, r in enumerate(res)]
            coflows = doc["coflows"]
        except (KeyError, TypeError) as e:
            raise Unreadable(f"instance: missing or malformed field {e}") from None
        if not self.cap:
            raise Unreadable("instance: no resource")
        if any(c <= 0 for c in self.cap):
            raise Unreadable("instance: a capacity is not positive")
        if not isinstance(coflows, list):
            raise Unreadable("instance: coflows must be a list")
        self.ids, self.weight, self.release = [], [], []
        self.load = []
        for k, c in enumerate(coflows):
            where = self._coflow(k, c)
            d: dict[int, Fraction] = {}
            for n, fl in enumerate(c["flows"]):
                fw = f"{where}.flows[{n}]"
                if not isinstance(fl, dict) or "size" not in fl or "path" not in fl:
                    raise Unreadable(f"{fw}: a flow is {{\"src\", \"dst\", \"size\", "
                                     "\"path\"}")
                path = fl["path"]
                if not isinstance(path, list) or not path or not all(
                        isinstance(q, int) and not isinstance(q, bool) and
                        0 <= q < len(self.cap) for q in path):
                    raise Unreadable(f"{fw}.path: a non-empty list of resource indices in "
                                     f"0..{len(self.cap) - 1}")
                if len(set(path)) != len(path):
                    raise Unreadable(f"{fw}.path: a resource appears twice")
                z = instance_number(fl["size"], f"{fw}.size")
                if z <= 0:
                    raise Unreadable(f"{fw}: size must be > 0")
                for q in path:
                    d[q] = d.get(q, Fraction(0)) + z
            self.load.append(d)

    def _read_big_switch(self, doc):
        """Version 1: ingress and egress ports; a flow loads its two ports."""
        try:
            self.cap = [instance_number(c, f"instance ingress[{i}]")
                        for i, c in enumerate(doc["ingress"])]
            self.m_in = len(self.cap)
            self.cap += [instance_number(c, f"instance egress[{j}]")
                         for j, c in enumerate(doc["egress"])]
            coflows = doc["coflows"]
        except (KeyError, TypeError) as e:
            raise Unreadable(f"instance: missing or malformed field {e}") from None
        if any(c <= 0 for c in self.cap):
            raise Unreadable("instance: a capacity is not positive")
        if not isinstance(coflows, list):
            raise Unreadable("instance: coflows must be a list")
        self.ids, self.weight, self.release = [], [], []
        self.load: list[dict[int, Fraction]] = []   # d_k^q
        for k, c in enumerate(coflows):
            where = self._coflow(k, c)
            d: dict[int, Fraction] = {}
            for n, fl in enumerate(c["flows"]):
                fw = f"{where}.flows[{n}]"
                if not isinstance(fl, list) or len(fl) != 3:
                    raise Unreadable(f"{fw}: a flow is [ingress, egress, size]")
                i, j, size = fl
                if not (isinstance(i, int) and isinstance(j, int) and 0 <= i < self.m_in
                        and 0 <= j < len(self.cap) - self.m_in):
                    raise Unreadable(f"{fw}: port out of range")
                z = instance_number(size, f"{fw}[2]")
                if z <= 0:
                    raise Unreadable(f"{fw}: size must be > 0")
                for q in (i, self.m_in + j):
                    d[q] = d.get(q, Fraction(0)) + z
            self.load.append(d)

    def digest(self) -> str:
        """sha256 of the instance's exact content (capacities; per coflow: weight, release,
        loads per resource), the same whatever the file's layout; certificates record it.  The
        header is the number of ingress ports (version 1) or ``"resources"`` (version 2)."""
        h = hashlib.sha256()
        head = [self.m_in] if self.version == 1 else ["resources"]
        h.update(repr(head + [str(c) for c in self.cap]).encode())
        for k in range(self.K):
            h.update(repr([str(self.weight[k]), str(self.release[k]),
                           sorted((q, str(v)) for q, v in self.load[k].items())]).encode())
        return h.hexdigest()


# ------------------------------------------------------------------------------ proofs
def check_ordering_lp_dual(inst: Instance, proof: dict, objective: str) -> Fraction:
    """The bound the ordering-LP dual proves (raises Rejected if it proves nothing)."""
    cuts = proof.get("cuts")
    if not isinstance(cuts, list):
        raise Unreadable("proof.cuts: expected a list")
    z = list(inst.weight)          # w_k - sum of y d_k^q over the cuts containing k
    total = Fraction(0)
    for n, cut in enumerate(cuts):
        where = f"proof.cuts[{n}]"
        if not isinstance(cut, dict):
            raise Unreadable(f"{where}: expected an object")
        if "port" in cut and "resource" in cut:
            raise Unreadable(f"{where}: names both a port and a resource")
        key = "resource" if "resource" in cut else "port"
        q = cut.get(key)
        if not isinstance(q, int) or isinstance(q, bool) or not 0 <= q < len(inst.cap):
            raise Rejected(f"{where}: {key} {q!r} is not a {key} of the instance")
        members = cut.get("set")
        if not isinstance(members, list) or not members or \
                not all(isinstance(k, int) and not isinstance(k, bool) for k in members):
            raise Unreadable(f"{where}.set: expected a non-empty list of coflow indices")
        if len(set(members)) != len(members):
            raise Rejected(f"{where}: the set repeats a coflow")
        if any(not 0 <= k < inst.K for k in members):
            raise Rejected(f"{where}: the set names a coflow index outside 0..{inst.K - 1}")
        y = exact(cut.get("multiplier"), f"{where}.multiplier")
        theta = exact(cut.get("theta", 0), f"{where}.theta")
        if y < 0:
            raise Rejected(f"{where}: negative multiplier {y}")
        if theta < 0 or theta > min(inst.release[k] for k in members):
            raise Rejected(f"{where}: threshold {theta} is not in [0, min release of the set]: "
                           "the inequality would not be valid")
        loads = [inst.load[k].get(q, Fraction(0)) for k in members]
        dS = sum(loads, Fraction(0))
        rhs = theta * dS + (sum((v * v for v in loads), Fraction(0)) + dS * dS) / \
            (2 * inst.cap[q])
        total += y * rhs
        for k, v in zip(members, loads):
            z[k] -= y * v
    for k in range(inst.K):
        if z[k] < 0:
            raise Rejected(f"coflow {k} ({inst.ids[k]!r}): its multipliers exceed its weight by "
                           f"{-z[k]} (dual infeasible)")
        total += z[k] * (inst.release[k] + inst.rho[k])
    if objective == "weighted_cct":
        total -= sum((w * r for w, r in zip(inst.weight, inst.release)), Fraction(0))
    return total


PROOFS = {"ordering-lp-dual": check_ordering_lp_dual}


def check(instance_doc, cert) -> str:
    """The verdict on one certificate: a sentence (raises Rejected or Unreadable)."""
    inst = Instance(instance_doc)
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise Unreadable(f"certificate: not a {FORMAT} document")
    if cert.get("version") != 1:
        raise Unreadable(f"certificate: version {cert.get('version')!r} (this checker reads 1)")
    claim = cert.get("claim")
    if not isinstance(claim, dict):
        raise Unreadable("certificate: missing 'claim'")
    kind, objective = claim.get("kind"), claim.get("objective")
    if kind != "lower_bound":
        raise Unreadable(f"claim.kind {kind!r}: this checker confirms 'lower_bound' claims")
    if objective not in OBJECTIVES:
        raise Unreadable(f"claim.objective must be one of {', '.join(OBJECTIVES)}")
    value = exact(claim.get("value"), "claim.value")
    recorded = (cert.get("instance") or {}).get("digest")
    if recorded is not None and recorded != inst.digest():
        raise Rejected("the certificate is for another instance (digest "
                       f"{recorded[:12]}..., this instance {inst.digest()[:12]}...)")
    proof = cert.get("proof")
    if not isinstance(proof, dict) or proof.get("type") not in PROOFS:
        raise Unreadable(f"proof.type must be one of {', '.join(PROOFS)}")
    proved = PROOFS[proof["type"]](inst, proof, objective)
    if proved < value:
        raise Rejected(f"the proof gives {proved} ({float(proved):.12g}), less than the claimed "
                       f"{value} ({float(value):.12g})")
    return (f"{objective} >= {value} ({float(value):.12g}) for every feasible schedule "
            f"({proof['type']}, {len(proof.get('cuts', []))} cuts, checked exactly)")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1] if argv and argv[0] in ("-h", "--help") else
              "usage: check_certificate.py INSTANCE.json CERTIFICATE.json", file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    docs = []
    for path in argv:
        try:
            with open(path, encoding="utf-8") as fh:
                docs.append(json.load(fh))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            print(f"check_certificate: {path}: cannot read JSON ({e})", file=sys.stderr)
            return 2
    try:
        print("CONFIRMED: " + check(*docs))
        return 0
    except Rejected as e:
        print(f"REJECTED: {e}")
        return 1
    except Unreadable as e:
        print(f"check_certificate: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
