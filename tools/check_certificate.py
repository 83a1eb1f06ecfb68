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
    not both), a threshold ``theta`` (0 when absent) and a set ``S`` of coflows.  Every
    schedule's completion times satisfy (``proofs/ordering_lp_bound.md``; a resource of
    capacity ``c_q`` sends at most ``c_q dt`` in ``dt`` whatever the paths, so the port
    argument holds per resource)

        C_k >= r_k + rho_k,                 rho_k = max_q d_k^q / c_q               (I)
        sum_{k in S} d_k^q C_k >= theta d^q(S) + [sum_{k in S} (d_k^q)^2 + d^q(S)^2] / (2 c_q)
                                            for 0 <= theta <= min_{k in S} r_k      (P)

    (``d_k^q``: the data of coflow ``k`` through resource ``q``, the sizes of its flows whose
    path contains ``q``; ``d^q(S)`` its sum over ``S``).
    With ``z_k = w_k - sum_{cuts containing k} y d_k^q >= 0``, weak duality gives
    ``sum_k w_k C_k >= sum_cuts y rhs(P) + sum_k z_k (r_k + rho_k)``.  The checker rebuilds
    ``d``, ``rho`` and every right-hand side from the instance, checks ``y >= 0``,
    ``theta`` and ``z >= 0`` exactly, and confirms the claim if the sum is at least ``value``.

``lower_bound`` by an LP dual: ``lp-ov-dual``, ``interval-lp-dual``, ``time-indexed-lp-dual``
    The claim is the same (every feasible schedule has ``sum_k w_k C_k >= value``, or the
    weighted CCT, which is ``sum_k w_k r_k`` less).  The proof: the parameters of an LP that
    the instance does not fix (interval points, slot boundaries) and ``rows``, one entry per
    row with a nonzero multiplier, named by ``"row"`` (its kind) and its indices: ``coflow``
    (0-based, file order), ``port`` / ``resource`` (as for cuts), ``interval`` / ``slot``
    (1-based), ``path`` (a group: the coflow's flows whose path is exactly this set of
    resources, ``[i, m_in + j]`` on a big switch; sizes summed, ``D_g``).  Every row is written
    ``sum_j a_j x_j >= side`` (or ``=``) and rebuilt here from the instance and the LP's
    parameters alone; a multiplier ``y`` must be ``>= 0`` on a ``>=`` row.  For columns ``x``
    with ``lo <= x <= hi``, cost ``c`` and ``d = c - A^T y`` (weak duality with bounded
    variables, Neumaier and Shcherbina, Math. Program. 99 (2004), section 2;
    ``proofs/lp_certificates.md``), every LP-feasible ``x`` has

        c^T x + c_0 >= c_0 + sum_rows y side + sum_j d_j (lo_j if d_j > 0 else hi_j)      (W)

    which is rejected when some ``d_j != 0`` meets an infinite bound (the completion times
    are unbounded above: their reduced cost must be ``>= 0``).  The LP is a relaxation (every
    feasible schedule maps to a feasible point of objective ``sum_k w_k C_k``, the proofs
    cited below), so (W) bounds every schedule; the checker confirms the claim when (W) is at
    least ``value``.  With ``iso_k = r_k + rho_k`` and ``d_k^q``, ``d^q`` as above:

    ``lp-ov-dual`` (LP-OV, Shafiee and Ghaderi; ``formulations/lp_ov.md``, validity
    ``proofs/lp_ov_bound.md``).  Columns ``f_k >= iso_k`` (cost ``w_k``) and, for coflows
    ``a < b``, ``x_ab`` in ``[0, 1]`` ("``a`` completes before ``b``"; ``b`` before ``a`` is
    ``1 - x_ab``).  Row ``{coflow k, port|resource q}``, for any coflow and resource::

        c_q f_k + sum_{k' != k} d_k'^q u_kk' >= d^q,   u_kk' = x_kk' (k < k'), 1 - x_k'k (k' < k)

    (by ``C_k`` every resource has carried all its data except that of the coflows completing
    after ``k``), i.e. ``c_q f_k + sum_{k' > k} d_k'^q x_kk' - sum_{k' < k} d_k'^q x_k'k >=
    d_k^q + sum_{k' > k} d_k'^q``.

    ``lp-ov-branch-dual`` (LP-OV with branching on pairwise orders; ``formulations/
    lp_ov_branch.md``).  ``leaves``: each ``{"decisions": [[a, b], ...], "rows": [...]}`` (the
    rows as ``lp-ov-dual``) or ``{"decisions": [...], "empty": true}``.  A decision ``[a, b]``
    says "``a`` completes before ``b``" (ties in completion times broken by index, so every
    schedule has one strict order).  The decision lists must be the leaves of a complete binary
    tree: all start with the same pair, in both orientations, and the tails of each side cover
    again (recursively; one empty list is the root); so every schedule's order falls into a
    leaf.  In a leaf the decisions and everything they imply by transitivity hold; a leaf
    whose decisions contain a cycle holds no schedule and is skipped (it must not carry rows
    that matter; ``empty`` is only allowed there).  Otherwise LP-OV with ``x_ab`` fixed to 1
    for every implied "a before b", ``a < b``, and to 0 for "b before a" is a relaxation of the
    leaf, and (W) with those bounds is its bound.  The proof gives the smallest leaf bound.

    ``interval-lp-dual`` (the interval-indexed LP, Qiu, Stein and Zhong; ``formulations/
    interval_lp.md``, validity ``proofs/interval_lp_bound.md``).  ``tau``: points
    ``0 < tau_1 < ... < tau_L`` (any such grid is valid).  Columns ``y_kl`` (``l = 1..L``,
    "``k`` complete by ``tau_l``") in ``[0, 1]``, ``[0, 0]`` when ``tau_l < iso_k``; with
    ``a_kl = max(tau_{l-1}, iso_k)`` (``tau_0 = 0``) the cost of ``y_kl`` is ``w_k (a_kl -
    a_k,l+1)`` and ``c_0 = sum_k w_k a_k,L+1``.  Rows ``{"row": "monotone", coflow k, interval
    l}`` (``l = 2..L``): ``y_kl - y_k,l-1 >= 0``; ``{"row": "capacity", port|resource q,
    interval l}``: ``- sum_k d_k^q y_kl >= - c_q tau_l``.

    ``time-indexed-lp-dual`` (the fluid time-indexed LP after Varys' appendix, with
    mean-busy-time rows; ``formulations/time_indexed.md``, validity
    ``proofs/time_indexed_bound.md``, theorem 1, and theorem 2 without the overflow slot).
    ``boundaries``: ``0 < b_1 < ... < b_T`` (slot ``t = [b_{t-1}, b_t)``, ``Delta_t = b_t -
    b_{t-1}``); ``overflow``: whether slot ``T + 1 = [b_T, inf)`` carries data (``S = T + 1``
    data slots; else ``S = T`` and ``b_T`` must be at least the safe horizon ``max_k r_k +
    sum_f size_f / min_{q in path(f)} c_q``, checked).  Columns: ``x_gs`` (data of group ``g``
    of coflow ``k`` in slot ``s``) in ``[0, D_g]``, ``[0, 0]`` when ``s <= T`` and ``b_s <=
    r_k``; ``X_gs`` (sent by the end of slot ``s``) in ``[0, D_g]``, ``X_gS = D_g``; ``z_kt``
    (``t = 1..T``) in ``[0, 1]``, ``[0, 0]`` when ``b_t < iso_k``; ``C_k >= iso_k`` (cost
    ``w_k``).  Rows: ``capacity`` ``{q, slot t}``: ``- sum_{g: q in path} x_gt >= - c_q
    Delta_t``; ``cumulative`` ``{coflow, path, slot s}``: ``X_gs - X_g,s-1 - x_gs = 0``
    (``X_g0`` absent; multiplier of either sign); ``linking`` ``{coflow, path, slot t}``:
    ``X_gt - D_g z_kt >= 0``; ``completion`` ``{coflow k}``: ``C_k + sum_t Delta_t z_kt >=
    b_T``; ``mean-busy-time`` ``{coflow k, port|resource q}`` (``d = d_k^q > 0``): ``d C_k -
    sum_{g of k, q in path} sum_s max(b_{s-1}, r_k) x_gs >= d^2 / (2 c_q)``.

``optimum`` by an ``event-sequence-search`` proof (``proofs/optimum-certificates.md``)
    The claim: the least ``sum_k w_k C_k`` (or weighted CCT) over all feasible fluid schedules
    is ``value``.  Two parts, both checked exactly:

    * ``schedule``: pieces ``[flow, start, end, rate]`` (flow = global index in the instance
      file's order: coflow by coflow, flow by flow).  Checked: ``start >= release``,
      ``end > start``, ``rate >= 0``, every flow receives exactly its size, and at every instant
      the rates through every resource sum to at most its capacity (a sweep over the
      breakpoints); its objective must equal ``value``.  So ``OPT <= value``.
    * ``proof``: the closed nodes of a search over *event sequences* (the positive-weight
      coflows' completions sorted by ``(C_k, -w_k, k)``, the distinct positive release times
      ("groups" ``g = 0, 1, ...`` ascending) interleaved, a release before the completions at
      or after it; zero-weight completions moved to the end).  A node is a *suffix* of codes
      (``k >= 0`` the completion of coflow ``k``, ``-(g+1)`` the release of group ``g``); its
      region is the schedules whose sequence ends with it.  The root is the zero-weight
      coflows (index order).  A node's children put in front of the suffix either the
      completion of a positive-weight coflow ``k`` not in it (``U`` = those coflows) or, when
      no coflow of ``U`` belongs to it, the latest release group not in it; so the children's
      regions cover the parent's (the event just before the suffix is one of them).  With
      ``"dominance": true`` a child completing ``k`` is omitted when ``U`` holds a coflow
      ``j`` identical to ``k`` (same release, same data on the same paths) that ranks after
      ``k`` in ``(-w, index)``: relabelling identical coflows so that their completion times
      follow that rank keeps the schedule feasible and does not raise its cost.  With
      ``"dominance": "subset"`` (which includes that rule) the child completing ``k`` is
      omitted when ``U`` holds a ``j`` that must complete after it: same release, ``k``'s
      data on every path at most ``j``'s, ``w_k >= w_j``, and ``k`` before ``j`` in
      ``(-w, total data, index)``; some optimal schedule completes every such ``k`` before
      its ``j`` (an exchange of rate profiles; its sequence breaks ties by that order,
      ``proofs/completion-order-dominance.md``).  The checker
      walks the tree from the root; a node listed in ``nodes`` is closed and its bound is
      checked, any other node is expanded; reaching a complete sequence that is not closed
      rejects the certificate.  Closing bounds (every one ``>= value``):

      ``chain``: ``DPB(U) + sum_j w_{s_j} max(MLB(U + {s_1..s_j}), r_{s_j} + rho_{s_j})`` over
      the suffix's positive-weight completions in time order, with ``MLB(S) = max_q max_a
      (a + sum_{k in S, r_k >= a} d_k^q / c_q)`` and ``DPB(S) = min_{k in S} [w_k max(MLB(S),
      r_k + rho_k) + DPB(S - k)]``, recomputed here.

      ``lp``: ``DPB(U) +`` the Lagrangian bound of the node's event LP at the given multipliers.
      Events: the release groups not in the suffix (ascending), one *block* event (weight 0) by
      which every coflow of ``U`` is complete (when ``U`` is not empty), then the suffix.
      Columns ``t_n`` (``= r`` at a release, else ``>= 0``) and ``x_{j,n}`` in ``[0, s_j]``
      for each *pair* ``j`` (a coflow's flows with one path, sizes summed) and each interval
      ``n`` with ``rel(k_j) < n <= done(k_j)``.  Rows: ``order`` ``(n)``: ``t_n - t_{n-1} >=
      0``; ``capacity`` ``(n, q)``: ``c_q (t_n - t_{n-1}) - sum_{j: q in path(j)} x_{j,n} >=
      0`` (``t_{-1} = 0``); ``demand`` ``(k, path)``: ``sum_n x_{j,n} = s_j``.  Objective
      ``sum_n W_n t_n``.  Multipliers of inequality rows must be ``>= 0``; the bound is
      ``sum_j y_j s_j + sum_n min_{t_n} d_n t_n + sum_{j,n} min(0, d_{j,n} s_j)`` with the
      reduced costs ``d = c - A^T y`` (``-infinity``, so rejected, when an unbounded ``t_n``
      has ``d_n < 0``).

      ``lp-charged``: ``DPB(U) - w_min M(U) +`` the Lagrangian bound of the node's event LP
      as for ``lp`` but with the block event of weight ``w_min = min_{k in U} w_k`` and
      ``t_block >= M(U) = max(MLB(U), max_{k in U} r_k + rho_k)`` (its term
      ``d_block M(U)``).  Allowed only when no release is unplaced or the latest unplaced
      release group has a coflow in ``U``: the block time is then the completion time ``T``
      of the last coflow ``k`` of ``U``, ``T >= M(U)``, and ``sum_{U} w C >= DPB(U - k) +
      w_k T >= DPB(U) + w_min (T - M(U))`` (``proofs/bnb-block-charge.md``).

      ``empty``: the suffix starts with the release of group ``g`` and ``MLB(U) > r_g``: ``U``
      cannot complete by then, the region is empty.

      ``lower-bound``: ``proof``, the proof of a ``lower_bound`` claim (any type above:
      ``ordering-lp-dual``, ``lp-ov-dual``...), checked as such for ``sum_k w_k C_k``: a
      bound on every feasible schedule bounds every region (bnb's seed bound, its LP solved
      exactly at the solver's basis, ``proofs/bnb-exact-seed-bound.md``; usually the root).

      ``dp`` (optional; ``proofs/optimum-certificates.md``, section 3a): without it ``DPB`` is
      recomputed for every set the bounds above read (``2^|S|`` subsets).  With it,
      ``{"exact_max_set": m, "entries": [{"set": S, "value": v, "last": L}, ...]}``
      (``m <= 16``; ``S`` and ``L`` increasing positive-weight coflow indices): ``DPB`` is
      recomputed only for sets of at most ``m`` coflows; a larger set reads its listed ``v``,
      or, unlisted, the *cheap* bound: the larger of ``sum_{k in S} w_k e_k`` and, for each
      resource ``q`` and release ``a`` of ``S``, ``sum_{k in S, r_k < a} w_k e_k + a W_a +
      min_order sum w L`` over the coflows of ``S`` released at or after ``a`` (weight
      ``W_a``) with processing times ``d_k^q / c_q`` (Smith's rule; ``MLB(P) >= a + sum_{k
      in P, r_k >= a} d_k^q / c_q``).  Each entry is checked on its own: every coflow of
      ``S`` outside ``L`` has a coflow ``j`` of ``S`` that Lemma D (``proofs/bnb-dpb-chains.md``)
      puts after it (same release, its data at most ``j``'s on every path, its weight at
      least ``j``'s, before ``j`` in ``(-w, total data, index)``, and some data), and for every
      ``k`` of ``L``, ``v <= w_k max(MLB(S), e_k) + DPB(S - k)`` with ``DPB(S - k)`` bounded
      by its listed value, the cheap bound or, within ``m``, ``DPB`` recomputed.  By
      induction on ``|S|`` every listed ``v`` is at most ``DPB(S)``.

``optimum`` / ``lower_bound`` of the integral model (``claim.model: "integral"``,
``proofs/integral-lattice-bound.md``)
    The model (coflowopt's ``slotted``): slots ``[t s, (t+1) s)`` of length ``s``
    (``claim.slot``); every size and every ``c_q s`` a whole number (checked); in a slot a flow
    sends whole units, counted on every resource of its path, at most ``c_q s`` per resource;
    a flow sends in slot ``t`` only if ``t s >= r_k``; a coflow completes at the end of its
    last slot with units, ``C_k = (t_last + 1) s``.  The claim: every integral schedule has
    ``sum_k w_k C_k >= value`` (``lower_bound``), or the least such value is ``value``
    (``optimum``).  Proof ``{"type": "fluid-bound-lattice", "fluid": CERTIFICATE}``: a
    certificate of the *fluid* model (any of the above, ``lower_bound`` or ``optimum``, same
    instance and objective), checked here first; its value ``L`` bounds every integral
    schedule too (run ``u`` units of slot ``t`` at rate ``u / s`` over the slot: a fluid
    schedule with the same completion times).  Every integral ``sum_k w_k C_k`` is a multiple
    of ``g = gcd {w_k s : w_k > 0}`` (``C_k / s`` is an integer), so it is at least ``L``
    rounded up to a multiple of ``g``; and at least the integral isolation bound ``sum_k w_k s
    (a_k + max_q ceil(d_k^q / (c_q s)))`` (``a_k = ceil(r_k / s)``, a multiple of ``g``).  The
    larger of the two (less ``sum_k w_k r_k`` for the weighted CCT) must be ``>= value``.  An
    ``optimum`` also carries ``slotted``, a ``coflowopt-slotted-schedule`` document (``slot``
    equal to ``claim.slot``; ``slots[t]`` lists ``[coflow, flow position, units]`` sent in slot
    ``t``), checked exactly against every rule above; its objective must equal ``value``.

Every number in a certificate is a string ``"p/q"`` or ``"p"`` (exact rational) or a JSON
integer.  Fields that restate rather than prove are optional, and checked when present (a
wrong one is rejected, a malformed one is exit 2, none is passed over): ``instance``
(``digest``, the SHA-256 of the instance's canonical form; ``coflows``, ``flows``: counts),
``claim.value_float`` (the double nearest ``claim.value``), the integral proof's
``fluid_value``, ``rounded`` and ``integral_isolated``; names (``claim.algorithm``,
``proof.source``) must be strings and ``proof.stats`` counts.  A field of the wrong kind that
no rule names is still exit 2 ("malformed certificate, not checked"), never a traceback.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
import re
import sys
from fractions import Fraction

FORMAT = "coflowopt-certificate"
OBJECTIVES = ("weighted_completion_time", "weighted_cct")
#: The largest ``proof.dp.exact_max_set``: DPB recomputed over the 2^16 subsets of a set.
DP_EXACT_MAX = 16


class Rejected(Exception):
    """The certificate does not prove its claim (exit 1)."""


class Unreadable(Exception):
    """A file is not what it must be (exit 2)."""


#: what check() raises on a malformed field that no rule names (exit 2, never a traceback,
#: never a confirmation); a caller of check() (coflowopt lib check) catches the same
MALFORMED = (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError,
             OverflowError, RecursionError)


# ------------------------------------------------------------------------------ numbers
#: the written forms of a rational: ``p``, ``p/q``, or a decimal whose exponent has at most four
#: digits (ASCII digits only).  Fraction() alone would also take "1e999999999", a 10^9-digit
#: integer that takes minutes to build, and other scripts' digits and underscores.
_RATIONAL = re.compile(r"[+-]?(?:[0-9]+/[0-9]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?)",
                       re.ASCII)


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
        if _RATIONAL.fullmatch(text):
            try:
                return Fraction(text)
            except ZeroDivisionError:
                raise Unreadable(f"{where}: {text!r} has denominator 0") from None
    raise Unreadable(f"{where}: expected a rational as \"p/q\", got {x!r:.60}")


def listed(x, where: str) -> list:
    """A certificate field that must be a JSON array."""
    if not isinstance(x, list):
        raise Unreadable(f"{where}: expected a list, got {x!r:.40}")
    return x


def instance_number(x, where: str) -> Fraction:
    """A number of the instance file: the double nearest the literal, exactly."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise Unreadable(f"{where}: expected a number, got {x!r}")
    f = float(x)
    if f != f or f in (float("inf"), float("-inf")):
        raise Unreadable(f"{where}: not a finite number")
    return Fraction(f)


# ------------------------------------------------------------------------------ instance
#: Every double is an integer multiple of 2^-1074: loads (sums of sizes) are summed as integers
#: on that grid (a Fraction per addition is 5x slower on the FB trace's 700,000 flows).
_DOUBLE_GRID = 2 ** 1074
_GRID_FACTOR: dict[int, int] = {}


def _scaled(z: Fraction) -> int:
    """``z * 2^1074`` for a double ``z`` (taken exactly), an integer."""
    f = _GRID_FACTOR.get(z.denominator)
    if f is None:
        f = _GRID_FACTOR[z.denominator] = _DOUBLE_GRID // z.denominator
    return z.numerator * f


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
        self.flows: list[tuple[int, tuple, Fraction]] = []   # (coflow, sorted path, size)
        for k, c in enumerate(coflows):
            where = self._coflow(k, c)
            d: dict[int, int] = {}     # data x 2^1074 (sizes are doubles): exact ints
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
                    d[q] = d.get(q, 0) + _scaled(z)
                self.flows.append((k, tuple(sorted(path)), z))
            self.load.append({q: Fraction(v, _DOUBLE_GRID) for q, v in d.items()})

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
        self.flows: list[tuple[int, tuple, Fraction]] = []   # (coflow, sorted path, size)
        for k, c in enumerate(coflows):
            where = self._coflow(k, c)
            d: dict[int, int] = {}     # data x 2^1074 (sizes are doubles): exact ints
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
                    d[q] = d.get(q, 0) + _scaled(z)
                self.flows.append((k, (i, self.m_in + j), z))
            self.load.append({q: Fraction(v, _DOUBLE_GRID) for q, v in d.items()})

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


# ------------------------------------------------------------------------------ LP duals
def lagrangian_bound(rows, costs: dict, bounds, offset: Fraction = Fraction(0)) -> Fraction:
    """``LB(y)`` of an LP ``min c^T x + offset`` over named rows and bounded columns.

    ``rows`` yields ``(where, y, sense, coefficients, side)`` for every row with a multiplier:
    ``sense`` is ``">="`` (the row ``sum_j a_j x_j >= side``; ``y`` must be ``>= 0``) or
    ``"="`` (``y`` free); ``coefficients`` maps a column key to ``a_j``.  ``costs`` maps the
    columns with a non-zero cost to ``c_j``; ``bounds(key)`` gives ``(lo, hi)``, ``None`` for
    an infinite side.  With ``d = c - A^T y``::

        c^T x + offset >= offset + sum_i y_i side_i + sum_j d_j (lo_j if d_j > 0 else hi_j)

    for every ``x`` with the rows and bounds (weak duality with bounded variables; a zero
    ``d_j`` contributes nothing).  A non-zero ``d_j`` facing an infinite bound proves nothing:
    rejected."""
    # A^T y as integers over one common denominator D (a Fraction per product and sum is
    # 20x slower on the FB trace's LP-OV: 1.5 million products); D grows to the lcm of the
    # products' denominators as they come, the sums scaled up with it -- exact either way
    aty: dict = {}
    D, per = 1, {}                  # per[den] = D // den for the denominators seen
    total = offset
    for where, y, sense, coeffs, side in rows:
        if sense == ">=" and y < 0:
            raise Rejected(f"{where}: negative multiplier {y} on an inequality row")
        if y == 0:
            continue
        total += y * side
        yn, yd = y.numerator, y.denominator
        for j, a in coeffs.items():
            den = a.denominator * yd
            f = per.get(den)
            if f is None:
                if D % den:
                    grow = den // math.gcd(D, den)
                    D *= grow
                    for key in aty:
                        aty[key] *= grow
                    per.clear()
                f = per[den] = D // den
            aty[j] = aty.get(j, 0) + a.numerator * yn * f
    by_side: dict = {}              # zero-cost columns: sum of D d_j per bound they meet
    for j in set(costs) | set(aty):
        c = costs.get(j)
        if c is None:               # d_j = -aty_j / D: its sign is the integer's
            dn = -aty[j]
            if dn == 0:
                continue
            d = None
        else:
            d = c - Fraction(aty.get(j, 0), D)
            if d == 0:
                continue
        lo, hi = bounds(j)
        up = (d > 0) if d is not None else dn > 0
        side = lo if up else hi
        if side is None:
            d = Fraction(dn, D) if d is None else d
            raise Rejected(f"the reduced cost of {j[0]}{list(j[1:])} is {d} "
                           f"({float(d):.6g}) and that column is unbounded "
                           f"{'below' if up else 'above'}: the multipliers are not dual "
                           "feasible")
        if d is None:
            by_side[side] = by_side.get(side, 0) + dn
        else:
            total += d * side
    return total + sum((Fraction(n, D) * side for side, n in by_side.items()), Fraction(0))


def _rows_list(proof: dict) -> list:
    rows = proof.get("rows")
    if not isinstance(rows, list):
        raise Unreadable("proof.rows: expected a list")
    return rows


def _index(row: dict, key: str, n: int, where: str) -> int:
    """An integer field of a row in ``0 .. n - 1`` (Rejected otherwise)."""
    v = row.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < n:
        raise Rejected(f"{where}: {key} {v!r} is not in 0..{n - 1}")
    return v


def _resource(inst: Instance, row: dict, where: str) -> int:
    """The resource a row names: ``"port"`` (a big switch, unified numbering) or
    ``"resource"`` (an index into a version-2 file's ``resources``), not both."""
    if "port" in row and "resource" in row:
        raise Unreadable(f"{where}: names both a port and a resource")
    key = "resource" if "resource" in row else "port"
    return _index(row, key, len(inst.cap), where)


def _row(rows: list, n: int) -> tuple[dict, str, Fraction]:
    row, where = rows[n], f"proof.rows[{n}]"
    if not isinstance(row, dict):
        raise Unreadable(f"{where}: expected an object")
    return row, where, exact(row.get("multiplier"), f"{where}.multiplier")


def _cct_shift(inst: Instance, objective: str) -> Fraction:
    return sum((w * r for w, r in zip(inst.weight, inst.release)), Fraction(0)) \
        if objective == "weighted_cct" else Fraction(0)


def _at_resource(inst: Instance) -> list[list[tuple[int, Fraction]]]:
    """Per resource, ``(k, d_k^q)`` for the coflows with data there, ``k`` ascending."""
    at: list[list] = [[] for _ in inst.cap]
    for k, d in enumerate(inst.load):
        for q, v in d.items():
            at[q].append((k, v))
    return at


def _grid(values, where: str, limit: int = 100_000) -> list[Fraction]:
    """``[0, p_1, ..., p_L]`` from a list of positive, strictly increasing exact points."""
    if not isinstance(values, list) or not values or len(values) > limit:
        raise Unreadable(f"{where}: expected a list of 1..{limit} points")
    pts = [exact(v, f"{where}[{i}]") for i, v in enumerate(values)]
    prev = Fraction(0)
    for i, p in enumerate(pts):
        if not p > prev:
            raise Rejected(f"{where}[{i}]: {p} is not after {prev} (the points must be "
                           "positive and increasing)")
        prev = p
    return [Fraction(0)] + pts


def check_lp_ov_dual(inst: Instance, proof: dict, objective: str,
                     fixed: dict | None = None) -> Fraction:
    """The bound an ``lp-ov-dual`` proof gives (module docstring); ``fixed`` maps a pair
    ``(a, b)``, ``a < b``, to the value its column ``x_ab`` is fixed at (a leaf of
    ``lp-ov-branch-dual``)."""
    fixed = fixed or {}
    rows = _rows_list(proof)
    at = _at_resource(inst)
    # per resource: the coflows there, their data negated, and suffix sums of their data
    ks = [[k for k, _ in lst] for lst in at]
    neg = [[-d for _, d in lst] for lst in at]
    suffix = []
    for lst in at:
        acc, out = Fraction(0), [Fraction(0)] * (len(lst) + 1)
        for i in range(len(lst) - 1, -1, -1):
            acc += lst[i][1]
            out[i] = acc
        suffix.append(out)

    def gen():
        for n in range(len(rows)):
            row, where, y = _row(rows, n)
            k = _index(row, "coflow", inst.K, where)
            q = _resource(inst, row, where)
            # c_q f_k + sum_{k' != k} d_k'^q u_kk' >= d^q, u_kk' = x_kk' (k < k') or
            # 1 - x_k'k (k' < k): the constants of the latter move to the right-hand side,
            # which is the data of k and of the coflows after it
            lst, i = at[q], bisect.bisect_left(ks[q], k)
            coeffs = {("x", lst[m][0], k): neg[q][m] for m in range(i)}
            nxt = i + 1 if i < len(lst) and lst[i][0] == k else i
            coeffs.update((("x", k, lst[m][0]), lst[m][1]) for m in range(nxt, len(lst)))
            coeffs[("f", k)] = inst.cap[q]
            yield where, y, ">=", coeffs, suffix[q][i]

    iso = [r + rho for r, rho in zip(inst.release, inst.rho)]

    def bounds(j):
        if j[0] == "f":
            return iso[j[1]], None
        v = fixed.get(j[1:])
        return (Fraction(0), Fraction(1)) if v is None else (v, v)

    total = lagrangian_bound(
        gen(), {("f", k): w for k, w in enumerate(inst.weight) if w}, bounds)
    return total - _cct_shift(inst, objective)


def _closure(decisions: list) -> list | None:
    """The relations implied by ``decisions`` (``(a, b)``: a completes before b) through
    transitivity; ``None`` when they contain a cycle."""
    succ: dict = {}
    for a, b in decisions:
        succ.setdefault(a, set()).add(b)
    out = []
    for a in list(succ):
        seen, stack = set(), [a]
        while stack:
            for v in succ.get(stack.pop(), ()):
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        if a in seen:
            return None
        out.extend((a, b) for b in seen)
    return out


def _covers(paths: list, prefix: list) -> None:
    """Reject unless the decision paths are the leaves of a complete binary tree."""
    if len(paths) == 1 and not paths[0]:
        return
    if any(not p for p in paths):
        raise Rejected(f"the leaves under {prefix} do not cover every order: a leaf ends where "
                       "others branch")
    a, b = paths[0][0]
    sides: dict = {(a, b): [], (b, a): []}
    for p in paths:
        if p[0] not in sides:
            raise Rejected(f"the leaves under {prefix} do not cover every order: they branch "
                           f"on {list((a, b))} and on {list(p[0])}")
        sides[p[0]].append(p[1:])
    for side, rest in sides.items():
        if not rest:
            raise Rejected(f"the leaves under {prefix} do not cover every order: no leaf has "
                           f"{list(side)}")
        _covers(rest, prefix + [list(side)])


def check_lp_ov_branch_dual(inst: Instance, proof: dict, objective: str) -> Fraction:
    """The bound an ``lp-ov-branch-dual`` proof gives (module docstring): the smallest leaf."""
    leaves = proof.get("leaves")
    if not isinstance(leaves, list) or not leaves:
        raise Unreadable("proof.leaves: expected a non-empty list")
    paths = []
    for n, leaf in enumerate(leaves):
        where = f"proof.leaves[{n}]"
        dec = leaf.get("decisions") if isinstance(leaf, dict) else None
        if not isinstance(dec, list):
            raise Unreadable(f"{where}.decisions: expected a list")
        path = []
        for i, d in enumerate(dec):
            if not isinstance(d, list) or len(d) != 2:
                raise Unreadable(f"{where}.decisions[{i}]: expected [a, b]")
            a = _index({"a": d[0]}, "a", inst.K, f"{where}.decisions[{i}]")
            b = _index({"b": d[1]}, "b", inst.K, f"{where}.decisions[{i}]")
            if a == b:
                raise Rejected(f"{where}.decisions[{i}]: a coflow cannot precede itself")
            path.append((a, b))
        paths.append(path)
    _covers(paths, [])
    best = None
    for n, (leaf, path) in enumerate(zip(leaves, paths)):
        rel = _closure(path)
        if rel is None:            # a cycle: no schedule completes the coflows so
            continue
        if leaf.get("empty"):
            raise Rejected(f"proof.leaves[{n}] is declared empty but its decisions have no "
                           "cycle")
        fixed = {(min(a, b), max(a, b)): Fraction(1 if a < b else 0) for a, b in rel}
        try:
            v = check_lp_ov_dual(inst, leaf, objective, fixed)
        except (Rejected, Unreadable) as e:
            raise type(e)(f"proof.leaves[{n}]: {e}") from None
        best = v if best is None or v < best else best
    if best is None:
        raise Rejected("every leaf's decisions contain a cycle")
    return best


def check_interval_lp_dual(inst: Instance, proof: dict, objective: str) -> Fraction:
    """The bound an ``interval-lp-dual`` proof gives (module docstring)."""
    tau = _grid(proof.get("tau"), "proof.tau")
    L = len(tau) - 1
    iso = [r + rho for r, rho in zip(inst.release, inst.rho)]
    # a_kl = max(tau_{l-1}, r_k + rho_k), l = 1..L+1
    a = [[max(tau[l - 1], iso[k]) for l in range(1, L + 2)] for k in range(inst.K)]
    offset = sum((w * a[k][L] for k, w in enumerate(inst.weight)), Fraction(0))
    costs = {}
    for k, w in enumerate(inst.weight):
        for l in range(1, L + 1):
            c = w * (a[k][l - 1] - a[k][l])
            if c:
                costs[("y", k, l)] = c
    at = _at_resource(inst)
    rows = _rows_list(proof)

    def gen():
        for n in range(len(rows)):
            row, where, y = _row(rows, n)
            kind = row.get("row")
            if kind == "monotone":          # y_kl - y_k,l-1 >= 0, l = 2..L
                k = _index(row, "coflow", inst.K, where)
                l = _index(row, "interval", L + 1, where)
                if l < 2:
                    raise Rejected(f"{where}: monotone rows are for intervals 2..{L}")
                yield where, y, ">=", {("y", k, l): Fraction(1), ("y", k, l - 1): Fraction(-1)}, \
                    Fraction(0)
            elif kind == "capacity":        # - sum_k d_k^q y_kl >= - c_q tau_l, l = 1..L
                q = _resource(inst, row, where)
                l = _index(row, "interval", L + 1, where)
                if l < 1:
                    raise Rejected(f"{where}: capacity rows are for intervals 1..{L}")
                yield where, y, ">=", {("y", k, l): -d for k, d in at[q]}, -inst.cap[q] * tau[l]
            else:
                raise Unreadable(f"{where}.row: expected monotone or capacity, got {kind!r}")

    def bounds(j):
        _, k, l = j
        return Fraction(0), Fraction(0) if tau[l] < iso[k] else Fraction(1)

    return lagrangian_bound(gen(), costs, bounds, offset) - _cct_shift(inst, objective)


def check_time_indexed_lp_dual(inst: Instance, proof: dict, objective: str) -> Fraction:
    """The bound a ``time-indexed-lp-dual`` proof gives (module docstring)."""
    b = _grid(proof.get("boundaries"), "proof.boundaries", limit=10_000_000)
    T = len(b) - 1
    overflow = proof.get("overflow")
    if not isinstance(overflow, bool):
        raise Unreadable("proof.overflow: expected true or false")
    # groups: a coflow's flows on one path (sorted resources), sizes summed
    size: dict[tuple, Fraction] = {}
    for k, path, z in inst.flows:
        size[(k, path)] = size.get((k, path), Fraction(0)) + z
    keys = sorted(size)
    gid = {key: g for g, key in enumerate(keys)}
    if not overflow:
        # without the overflow slot the LP needs b_T >= H, a time by which some optimal
        # schedule is complete (proofs/time_indexed_bound.md, theorem 2)
        H = max(inst.release) + sum((z / min(inst.cap[q] for q in path)
                                     for _, path, z in inst.flows), Fraction(0))
        if b[T] < H:
            raise Rejected(f"proof.boundaries: without the overflow slot the last boundary "
                           f"{b[T]} must be at least the safe horizon {H}")
    S = T + 1 if overflow else T
    through: list[list[int]] = [[] for _ in inst.cap]     # groups whose path contains q
    for g, (k, path) in enumerate(keys):
        for q in path:
            through[q].append(g)
    iso = [r + rho for r, rho in zip(inst.release, inst.rho)]

    def start(k, s):                 # the earliest time data of k is sent in slot s
        return max(b[s - 1], inst.release[k])

    def group(row, where):
        k = _index(row, "coflow", inst.K, where)
        path = row.get("path")
        g = gid.get((k, tuple(sorted(path)))) if isinstance(path, list) and all(
            isinstance(q, int) and not isinstance(q, bool) for q in path) else None
        if g is None:
            raise Rejected(f"{where}: coflow {k} has no flow on the path {path!r}")
        return g

    def slot(row, where, hi):
        t = _index(row, "slot", hi + 1, where)
        if t < 1:
            raise Rejected(f"{where}: slot {t} is not in 1..{hi}")
        return t

    rows = _rows_list(proof)

    def gen():
        for n in range(len(rows)):
            row, where, y = _row(rows, n)
            kind = row.get("row")
            if kind == "capacity":          # - sum_{g through q} x_gt >= - c_q (b_t - b_t-1)
                q = _resource(inst, row, where)
                t = slot(row, where, T)
                yield where, y, ">=", {("x", g, t): Fraction(-1) for g in through[q]}, \
                    -inst.cap[q] * (b[t] - b[t - 1])
            elif kind == "cumulative":      # X_gs - X_g,s-1 - x_gs = 0
                g = group(row, where)
                s = slot(row, where, S)
                co = {("X", g, s): Fraction(1), ("x", g, s): Fraction(-1)}
                if s > 1:
                    co[("X", g, s - 1)] = Fraction(-1)
                yield where, y, "=", co, Fraction(0)
            elif kind == "linking":         # X_gt - D_g z_kt >= 0
                g = group(row, where)
                t = slot(row, where, T)
                yield where, y, ">=", {("X", g, t): Fraction(1),
                                       ("z", keys[g][0], t): -size[keys[g]]}, Fraction(0)
            elif kind == "completion":      # C_k + sum_t (b_t - b_t-1) z_kt >= b_T
                k = _index(row, "coflow", inst.K, where)
                co = {("z", k, t): b[t] - b[t - 1] for t in range(1, T + 1)}
                co[("C", k)] = Fraction(1)
                yield where, y, ">=", co, b[T]
            elif kind == "mean-busy-time":
                # d C_k - sum_{g of k through q} sum_s max(b_s-1, r_k) x_gs >= d^2 / (2 c_q)
                k = _index(row, "coflow", inst.K, where)
                q = _resource(inst, row, where)
                d = inst.load[k].get(q, Fraction(0))
                if d == 0:
                    raise Rejected(f"{where}: coflow {k} sends nothing through {q}: no "
                                   "mean-busy-time row")
                co = {("C", k): d}
                for g in through[q]:
                    if keys[g][0] == k:
                        for s in range(1, S + 1):
                            co[("x", g, s)] = -start(k, s)
                yield where, y, ">=", co, d * d / (2 * inst.cap[q])
            else:
                raise Unreadable(f"{where}.row: expected capacity, cumulative, linking, "
                                 f"completion or mean-busy-time, got {kind!r}")

    def bounds(j):
        kind = j[0]
        if kind == "C":
            return iso[j[1]], None
        if kind == "z":
            return Fraction(0), Fraction(0) if b[j[2]] < iso[j[1]] else Fraction(1)
        D = size[keys[j[1]]]
        if kind == "X":
            return (D if j[2] == S else Fraction(0)), D
        # x_gs: nothing is sent in a slot that ends by the release (the overflow slot never)
        k, s = keys[j[1]][0], j[2]
        return Fraction(0), D if s > T or b[s] > inst.release[k] else Fraction(0)

    total = lagrangian_bound(gen(), {("C", k): w for k, w in enumerate(inst.weight) if w},
                             bounds)
    return total - _cct_shift(inst, objective)


# ------------------------------------------------------------------------------ optimum
def check_schedule(inst: Instance, sched) -> tuple[Fraction, int]:
    """Verify a schedule exactly; return its ``sum_k w_k C_k`` and its number of pieces."""
    if not isinstance(sched, dict) or not isinstance(sched.get("pieces"), list):
        raise Unreadable("schedule: expected {\"pieces\": [[flow, start, end, rate], ...]}")
    F = len(inst.flows)
    sent = [Fraction(0)] * F
    done = [Fraction(0)] * F
    deltas: dict[int, dict[Fraction, Fraction]] = {}
    for n, pc in enumerate(sched["pieces"]):
        where = f"schedule.pieces[{n}]"
        if not isinstance(pc, list) or len(pc) != 4:
            raise Unreadable(f"{where}: a piece is [flow, start, end, rate]")
        f = pc[0]
        if not isinstance(f, int) or isinstance(f, bool) or not 0 <= f < F:
            raise Rejected(f"{where}: flow {f!r} is not a flow of the instance (0..{F - 1})")
        a, b, rate = (exact(v, f"{where}[{i + 1}]") for i, v in enumerate(pc[1:]))
        k, path, _ = inst.flows[f]
        if rate < 0:
            raise Rejected(f"{where}: negative rate {rate}")
        if not b > a:
            raise Rejected(f"{where}: end {b} is not after start {a}")
        if rate == 0:
            continue
        if a < inst.release[k]:
            raise Rejected(f"{where}: flow {f} sends at {a}, before its coflow's release "
                           f"{inst.release[k]}")
        sent[f] += rate * (b - a)
        done[f] = max(done[f], b)
        for q in path:
            dq = deltas.setdefault(q, {})
            dq[a] = dq.get(a, Fraction(0)) + rate
            dq[b] = dq.get(b, Fraction(0)) - rate
    for f, (k, _, z) in enumerate(inst.flows):
        if sent[f] != z:
            raise Rejected(f"flow {f} (coflow {k}) receives {sent[f]}, not its size {z}")
    for q, dq in deltas.items():
        load = Fraction(0)
        for t in sorted(dq):
            load += dq[t]
            if load > inst.cap[q]:
                raise Rejected(f"resource {q}: rates sum to {load} > capacity {inst.cap[q]} "
                               f"from time {t}")
    C = [Fraction(0)] * inst.K
    for f, (k, _, _) in enumerate(inst.flows):
        C[k] = max(C[k], done[f])
    return sum((w * c for w, c in zip(inst.weight, C)), Fraction(0)), len(sched["pieces"])


class EventSearch:
    """The search tree of an ``event-sequence-search`` proof and its closing bounds (module
    docstring, ``optimum``)."""

    def __init__(self, inst: Instance, proof: dict):
        self.inst = inst
        K = inst.K
        self.members = [k for k in range(K) if inst.weight[k] > 0]
        self.pos = {k: i for i, k in enumerate(self.members)}
        self.times = sorted(set(r for r in inst.release if r > 0))
        self.group = [self.times.index(r) if r > 0 else -1 for r in inst.release]
        self.G = len(self.times)
        self.e = [inst.release[k] + inst.rho[k] for k in range(K)]
        self.pairs: dict[tuple, Fraction] = {}      # (coflow, path) -> size
        for k, path, z in inst.flows:
            self.pairs[(k, path)] = self.pairs.get((k, path), Fraction(0)) + z
        self.resources = sorted(set(q for d in inst.load for q in d))
        self.before = set()     # (a, b): a completes before b
        dom = proof.get("dominance", False)
        if dom not in (True, False, "subset"):
            raise Unreadable(f"proof.dominance: expected true, false or \"subset\", got "
                             f"{dom!r}")
        if dom == "subset":
            # a's data on every path at most b's, same release, w_a >= w_b, and a before b
            # in (-w, total data, index) (proofs/completion-order-dominance.md)
            data: dict = {k: {} for k in self.members}
            for (c, p), z in self.pairs.items():
                if c in data:
                    data[c][p] = z
            tot = {k: sum(data[k].values(), Fraction(0)) for k in self.members}
            for a in self.members:
                for b in self.members:
                    if a != b and inst.release[a] == inst.release[b] and \
                            inst.weight[a] >= inst.weight[b] and \
                            (-inst.weight[a], tot[a], a) < (-inst.weight[b], tot[b], b) and \
                            all(z <= data[b].get(p, 0) for p, z in data[a].items()):
                        self.before.add((a, b))
        elif dom is True:
            sig: dict = {}
            for k in self.members:
                key = (inst.release[k], tuple(sorted((p, z) for (c, p), z in self.pairs.items()
                                                     if c == k)))
                sig.setdefault(key, []).append(k)
            for grp in sig.values():
                grp.sort(key=lambda k: (-inst.weight[k], k))
                for i, a in enumerate(grp):
                    for b in grp[i + 1:]:
                        self.before.add((a, b))
        nodes = proof.get("nodes")
        if not isinstance(nodes, list):
            raise Unreadable("proof.nodes: expected a list")
        self.closed: dict[tuple, dict] = {}
        for n, nd in enumerate(nodes):
            suf = nd.get("suffix") if isinstance(nd, dict) else None
            if not isinstance(suf, list) or not all(isinstance(c, int) and
                                                    not isinstance(c, bool) for c in suf):
                raise Unreadable(f"proof.nodes[{n}].suffix: expected a list of integer codes")
            if not isinstance(nd.get("bound"), dict):
                raise Unreadable(f"proof.nodes[{n}].bound: expected an object")
            self.closed[tuple(suf)] = nd["bound"]
        self.root = tuple(k for k in range(K) if inst.weight[k] == 0)
        # MLB and DPB on exact integers: times (loads over capacities, releases) in units of
        # 1 / tu, weights in units of 1 / wu (the common denominators); sets as bit masks
        # (bit k: coflow k), memoised
        pt = {k: {q: v / inst.cap[q] for q, v in inst.load[k].items()} for k in self.members}
        self.tu = math.lcm(1, *(x.denominator for d in pt.values() for x in d.values()),
                           *(inst.release[k].denominator for k in self.members))
        self.wu = math.lcm(1, *(inst.weight[k].denominator for k in self.members))
        self.p_int = {k: {q: int(x * self.tu) for q, x in d.items()} for k, d in pt.items()}
        self.r_int = {k: int(inst.release[k] * self.tu) for k in self.members}
        self.w_int = {k: int(inst.weight[k] * self.wu) for k in self.members}
        self.e_int = {k: self.r_int[k] + max(self.p_int[k].values(), default=0)
                      for k in self.members}
        self._mlbi: dict[int, int] = {}
        self._dpbi: dict[int, int] = {0: 0}
        # DP values of large sets (proof.dp): None = DPB recomputed for every set (no "dp")
        self.exact_max: int | None = None
        self.listed: dict[frozenset, Fraction] = {}
        self.entries: list[tuple] = []
        self._cheap: dict[frozenset, Fraction] = {}
        self._smith: dict | None = None
        if proof.get("dp") is not None:
            self._read_dp(proof["dp"])

    # --- subset bounds
    @staticmethod
    def _mask(S) -> int:
        m = 0
        for k in S:
            m |= 1 << k
        return m

    @staticmethod
    def _bits(mask: int):
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low

    def _mlb_int(self, mask: int, memo: bool = True) -> int:
        """``MLB`` of the set ``mask`` in units of ``1 / tu``: ``max_a max_q (a + sum_{k,
        r_k >= a} d_k^q / c_q)`` over the releases ``a`` of its members (a resource counts
        where the members carry data); ``memo=False`` for the DP's sets (read once each)."""
        v = self._mlbi.get(mask)
        if v is None:
            ks = list(self._bits(mask))
            v = 0
            for a in set(self.r_int[k] for k in ks):
                acc: dict[int, int] = {}
                for k in ks:
                    if self.r_int[k] >= a:
                        for q, x in self.p_int[k].items():
                            acc[q] = acc.get(q, 0) + x
                if acc:
                    v = max(v, a + max(acc.values()))
            if memo:
                self._mlbi[mask] = v
        return v

    def _dpb_int(self, mask: int) -> int:
        """``DPB`` of the set ``mask`` in units of ``1 / (tu wu)``: ``min_{k} [w_k max(MLB(S),
        e_k) + DPB(S - k)]``."""
        v = self._dpbi.get(mask)
        if v is None:
            m = self._mlb_int(mask, memo=False)
            v = min(self.w_int[k] * max(m, self.e_int[k]) + self._dpb_int(mask & ~(1 << k))
                    for k in self._bits(mask))
            self._dpbi[mask] = v
        return v

    def mlb(self, S) -> Fraction:
        return Fraction(self._mlb_int(self._mask(S)), self.tu)

    def dpb(self, S) -> Fraction:
        return Fraction(self._dpb_int(self._mask(S)), self.tu * self.wu)

    # --- DP values of large sets: proof.dp (proofs/optimum-certificates.md, section 3a)
    def _read_dp(self, dp) -> None:
        inst = self.inst
        if not isinstance(dp, dict):
            raise Unreadable("proof.dp: expected an object")
        m = dp.get("exact_max_set")
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m <= DP_EXACT_MAX:
            raise Unreadable(f"proof.dp.exact_max_set: expected an integer 0..{DP_EXACT_MAX}")
        self.exact_max = m
        # Lemma D's pairs (a, b): same release, a's data at most b's on every path (so on
        # every resource), w_a >= w_b, a before b in (-w, total data, index), a with data
        # (so MLB(P) >= e_a for P holding a): some order attaining DPB(S) completes a before
        # b, for every set S holding both (proofs/bnb-dpb-chains.md)
        data: dict = {k: {} for k in self.members}
        for (c, p), z in self.pairs.items():
            if c in data:
                data[c][p] = z
        tot = {k: sum(data[k].values(), Fraction(0)) for k in self.members}
        self.dp_after: dict[int, set] = {k: set() for k in self.members}
        for a in self.members:
            for b in self.members:
                if a != b and tot[a] > 0 and inst.release[a] == inst.release[b] and \
                        inst.weight[a] >= inst.weight[b] and \
                        (-inst.weight[a], tot[a], a) < (-inst.weight[b], tot[b], b) and \
                        all(z <= data[b].get(p, 0) for p, z in data[a].items()):
                    self.dp_after[a].add(b)
        members = set(self.members)
        for n, ent in enumerate(listed(dp.get("entries"), "proof.dp.entries")):
            where = f"proof.dp.entries[{n}]"
            if not isinstance(ent, dict):
                raise Unreadable(f"{where}: expected an object")
            sets = []
            for key in ("set", "last"):
                x = listed(ent.get(key), f"{where}.{key}")
                if not all(isinstance(k, int) and not isinstance(k, bool) for k in x) or \
                        any(a >= b for a, b in zip(x, x[1:])):
                    raise Unreadable(f"{where}.{key}: expected coflow indices, increasing")
                sets.append(frozenset(x))
            S, last = sets
            if not S or not S <= members:
                raise Rejected(f"{where}: the set must be non-empty positive-weight coflows")
            if S in self.listed:
                raise Rejected(f"{where}: the set is listed twice")
            self.listed[S] = exact(ent.get("value"), f"{where}.value")
            self.entries.append((S, last, where))

    def cheap(self, S: frozenset) -> Fraction:
        """A lower bound on ``DPB(S)`` in polynomial time: the larger of ``sum_k w_k e_k`` and,
        for each resource ``q`` and release ``a`` of ``S``, ``sum_{r_k < a} w_k e_k + a W_a +
        Smith_q`` (``W_a``, ``Smith_q``: the total weight and Smith's rule's least
        ``sum w L`` of the coflows released at or after ``a`` with processing times
        ``d_k^q / c_q``: ``MLB(P) >= a + sum_{k in P, r_k >= a} d_k^q / c_q``)."""
        v = self._cheap.get(S)
        if v is not None:
            return v
        if self._smith is None:
            # per resource: (coflow, d_k^q / c_q in units 1 / tu) in Smith's order (d / (c w)
            # ascending, exact ratios)
            self._smith = {}
            for q in self.resources:
                jobs = [(k, self.p_int[k].get(q, 0)) for k in self.members]
                self._smith[q] = sorted(jobs, key=lambda kp: Fraction(kp[1], self.w_int[kp[0]]))
        r, w = self.r_int, self.w_int          # in units 1 / (tu wu) below
        iso = {k: w[k] * self.e_int[k] for k in S}
        v = sum(iso.values())
        for a in set(r[k] for k in S):
            base = sum(iso[k] for k in S if r[k] < a) + a * sum(w[k] for k in S if r[k] >= a)
            for q in self.resources:
                t, tot = 0, base
                for k, p in self._smith[q]:
                    if k in S and r[k] >= a:
                        t += p
                        tot += w[k] * t
                v = max(v, tot)
        v = self._cheap[S] = Fraction(v, self.tu * self.wu)
        return v

    def dpv(self, S: frozenset, need: Fraction | None = None) -> Fraction:
        """A lower bound on ``DPB(S)``: ``DPB(S)`` recomputed when ``S`` has at most
        ``exact_max_set`` coflows (no limit without ``proof.dp``), else its listed value
        (checked by :meth:`check_dp`), else :meth:`cheap`.  With ``need``, a listed value or
        the cheap bound that meets it is taken first, and ``DPB`` recomputed only when they
        fall short."""
        v = self.listed.get(S)
        small = self.exact_max is None or len(S) <= self.exact_max
        if v is not None and (need is not None and v >= need or not small):
            return v
        c = self.cheap(S) if not small or need is not None else None
        if c is not None and (not small or c >= need):
            return c
        return max(self.dpb(S), v or 0)

    def check_dp(self) -> int:
        """Check every listed ``v(S)`` on its own: ``v(S) <= w_k max(MLB(S), e_k) + DPB(S - k)``
        for every ``k`` of ``last``, ``DPB(S - k)`` bounded by :meth:`dpv`, and every coflow of
        ``S`` outside ``last`` has a coflow of ``S`` that Lemma D puts after it.  By induction
        on ``|S|`` every listed value is then at most ``DPB(S)``."""
        inst = self.inst
        for S, last, where in self.entries:
            v = self.listed[S]
            if not last <= S:
                raise Rejected(f"{where}: 'last' holds coflows outside the set")
            for k in S - last:
                if not self.dp_after[k] & S:
                    raise Rejected(f"{where}: coflow {k} may complete last in the set (no "
                                   "coflow of the set must follow it) but is not in 'last'")
            m = self.mlb(S)
            for k in sorted(last):
                step = inst.weight[k] * max(m, self.e[k])
                if v - step <= 0:
                    continue
                T = S - {k}
                low = self.dpv(T, v - step) if T else Fraction(0)
                if step + low < v:
                    how = "its listed value" if T in self.listed else \
                        "DPB" if self._mask(T) in self._dpbi else "the cheap bound"
                    raise Rejected(
                        f"{where}: value {v} ({float(v):.12g}) exceeds w_k max(MLB(S), e_k) + "
                        f"DPB(S - k) >= {step + low} ({float(step + low):.12g}) for k = {k} "
                        f"(DPB of the {len(T)} other coflows bounded by "
                        f"{how})")
        return len(self.entries)

    def unplaced(self, suffix: tuple) -> tuple[frozenset, int]:
        """``U`` (positive-weight coflows not completed in the suffix) and ``rho`` (the number
        of release groups not in it)."""
        U = frozenset(self.members) - set(c for c in suffix if c >= 0)
        return U, self.G - sum(1 for c in suffix if c < 0)

    def children(self, suffix: tuple) -> list[tuple]:
        U, rho = self.unplaced(suffix)
        out = [(k,) + suffix for k in sorted(U)
               if not any((k, j) in self.before for j in U if j != k)]
        if rho > 0 and not any(self.group[k] == rho - 1 for k in U):
            out.append((-rho,) + suffix)
        return out

    def valid(self, suffix: tuple) -> bool:
        return len(set(suffix)) == len(suffix) and all(
            -self.G <= c < self.inst.K for c in suffix)

    # --- closing bounds
    def chain(self, suffix: tuple, U: frozenset) -> Fraction:
        total, S = self.dpv(U), set(U)
        for c in suffix:
            if c >= 0 and c in self.pos:
                S.add(c)
                total += self.inst.weight[c] * max(self.mlb(frozenset(S)), self.e[c])
        return total

    def lp(self, suffix: tuple, U: frozenset, rho: int, duals: dict, where: str,
           charge: tuple | None = None) -> Fraction:
        """The bound the multipliers prove on the node's event LP; with ``charge = (w, M)``
        the block event has weight ``w`` and starts no earlier than ``M``."""
        inst = self.inst
        events: list = [("rel", g) for g in range(rho)]
        if U:
            events.append(("block", None))
        events += [("rel", -c - 1) if c < 0 else ("done", c) for c in suffix]
        N = len(events)
        W = [inst.weight[x] if kind == "done" else Fraction(0) for kind, x in events]
        fixed = [self.times[x] if kind == "rel" else None for kind, x in events]
        rel_ev = {x: n for n, (kind, x) in enumerate(events) if kind == "rel"}
        done_ev = {x: n for n, (kind, x) in enumerate(events) if kind == "done"}
        blk = rho if U else None          # the block event follows the prefix releases
        t_lo = Fraction(0)
        if charge is not None:
            W[blk], t_lo = charge
        if not isinstance(duals, dict):
            raise Unreadable(f"{where}.duals: expected an object")
        y_ord = [Fraction(0)] * (N + 1)
        y_cap: dict[tuple, Fraction] = {}
        y_dem: dict[tuple, Fraction] = {}
        for n_, ent in enumerate(listed(duals.get("order", []), f"{where}.duals.order")):
            if not isinstance(ent, list) or len(ent) != 2 or not isinstance(ent[0], int) \
                    or not 1 <= ent[0] < N:
                raise Rejected(f"{where}.duals.order[{n_}]: not an order row (1..{N - 1})")
            y = exact(ent[1], f"{where}.duals.order[{n_}]")
            if y < 0:
                raise Rejected(f"{where}.duals.order[{n_}]: negative multiplier")
            y_ord[ent[0]] += y
        for n_, ent in enumerate(listed(duals.get("capacity", []), f"{where}.duals.capacity")):
            if not isinstance(ent, list) or len(ent) != 3 or not isinstance(ent[0], int) \
                    or not 0 <= ent[0] < N or not isinstance(ent[1], int) \
                    or not 0 <= ent[1] < len(inst.cap):
                raise Rejected(f"{where}.duals.capacity[{n_}]: not a capacity row")
            y = exact(ent[2], f"{where}.duals.capacity[{n_}]")
            if y < 0:
                raise Rejected(f"{where}.duals.capacity[{n_}]: negative multiplier")
            y_cap[(ent[0], ent[1])] = y_cap.get((ent[0], ent[1]), Fraction(0)) + y
        for n_, ent in enumerate(listed(duals.get("demand", []), f"{where}.duals.demand")):
            key = (ent[0], tuple(sorted(ent[1]))) if isinstance(ent, list) and len(ent) == 3 \
                and isinstance(ent[1], list) and all(isinstance(q, int) for q in ent[1]) \
                else None
            if key not in self.pairs:
                raise Rejected(f"{where}.duals.demand[{n_}]: not a (coflow, path) pair")
            y_dem[key] = y_dem.get(key, Fraction(0)) + exact(ent[2],
                                                             f"{where}.duals.demand[{n_}]")
        cap_n: dict[int, Fraction] = {}          # sum_q c_q y_cap[n, q]
        for (n, q), y in y_cap.items():
            cap_n[n] = cap_n.get(n, Fraction(0)) + inst.cap[q] * y
        total = Fraction(0)
        for n in range(N):
            d = W[n] - y_ord[n] + y_ord[n + 1] - cap_n.get(n, Fraction(0)) + \
                cap_n.get(n + 1, Fraction(0))
            if fixed[n] is not None:
                total += d * fixed[n]
            elif d < 0:
                raise Rejected(f"{where}: the reduced cost of t_{n} is {d} < 0 (t_{n} is "
                               "unbounded above: the multipliers prove nothing)")
            elif n == blk:
                total += d * t_lo               # t_block >= t_lo (0 unless charged)
        for (k, path), z in self.pairs.items():
            y = y_dem.get((k, path), Fraction(0))
            total += y * z
            lo = rel_ev.get(self.group[k], -1) if self.group[k] >= 0 else -1
            hi = blk if k in U else done_ev.get(k)
            if hi is None:
                raise Rejected(f"{where}: coflow {k} has no completion event")
            for n in range(lo + 1, hi + 1):
                d = sum((y_cap.get((n, q), Fraction(0)) for q in path), Fraction(0)) - y
                if d < 0:
                    total += d * z
        return total

    def bound(self, suffix: tuple, b: dict, where: str) -> Fraction | None:
        """The closing bound of a node (``None`` for an empty region)."""
        U, rho = self.unplaced(suffix)
        kind = b.get("type")
        if kind == "chain":
            return self.chain(suffix, U)
        if kind == "lp":
            return self.dpv(U) + self.lp(suffix, U, rho, b.get("duals"), where)
        if kind == "lp-charged":
            # the last coflow k of U completes at the block time T >= M(U), so
            # cost(U) >= DPB(U) + w_min (T - M(U)): the LP charges w_min T, the bound takes
            # w_min M(U) back (proofs/bnb-block-charge.md); valid only when the latest
            # unplaced release (before the block in the LP) has a coflow in U
            if not U:
                raise Rejected(f"{where}: 'lp-charged' needs unplaced coflows")
            if rho > 0 and not any(self.group[k] == rho - 1 for k in U):
                raise Rejected(f"{where}: 'lp-charged' needs a coflow of the latest unplaced "
                               "release among the unplaced coflows")
            w_min = min(self.inst.weight[k] for k in U)
            M = max([self.mlb(U)] + [self.e[k] for k in U])
            return self.dpv(U) - w_min * M + self.lp(suffix, U, rho, b.get("duals"), where,
                                                     (w_min, M))
        if kind == "empty":
            if not suffix or suffix[0] >= 0 or not U:
                raise Rejected(f"{where}: 'empty' needs a suffix starting with a release "
                               "and coflows before it")
            r = self.times[-suffix[0] - 1]
            if not self.mlb(U) > r:
                raise Rejected(f"{where}: the makespan bound of the coflows before release "
                               f"{r} is {self.mlb(U)} <= {r}: the region is not empty")
            return None
        if kind == "lower-bound":
            # a lower bound on every feasible schedule's sum w C (a lower_bound file's proof,
            # checked as such) bounds every region, this node's included
            proof = b.get("proof")
            if not isinstance(proof, dict) or proof.get("type") not in PROOFS:
                raise Unreadable(f"{where}.proof.type must be one of {', '.join(PROOFS)}")
            return PROOFS[proof["type"]](self.inst, proof, "weighted_completion_time")
        raise Unreadable(f"{where}.type must be chain, lp, lp-charged, empty or lower-bound")

    def cover(self, target: Fraction) -> tuple[int, int]:
        """Walk the tree from the root; every leaf of the walk must be a closed node whose
        bound is ``>= target``.  Returns (closed nodes used, nodes expanded)."""
        stack, used, expanded = [self.root], 0, 0
        while stack:
            s = stack.pop()
            b = self.closed.get(s)
            if b is not None:
                where = f"node {list(s)}"
                v = self.bound(s, b, where)
                if v is not None and v < target:
                    raise Rejected(f"{where}: its {b.get('type')} bound {v} "
                                   f"({float(v):.12g}) is below the claimed optimum")
                used += 1
                continue
            kids = self.children(s)
            if not kids:
                raise Rejected(f"the search space is not covered: the event sequence {list(s)} "
                               "is in no closed node")
            expanded += 1
            stack.extend(kids)
        return used, expanded


def check_optimum(inst: Instance, cert: dict, value: Fraction, objective: str) -> str:
    """Confirm an ``optimum`` claim: a feasible schedule of that value, and a closed search
    tree whose every bound is at least that value."""
    shift = sum((w * r for w, r in zip(inst.weight, inst.release)), Fraction(0)) \
        if objective == "weighted_cct" else Fraction(0)
    sv, pieces = check_schedule(inst, cert.get("schedule"))
    if sv - shift != value:
        raise Rejected(f"the schedule's {objective} is {sv - shift} ({float(sv - shift):.12g}), "
                       f"not the claimed {value}")
    proof = cert.get("proof")
    if not isinstance(proof, dict) or proof.get("type") != "event-sequence-search":
        raise Unreadable("proof.type must be event-sequence-search for an optimum")
    search = EventSearch(inst, proof)
    dp = search.check_dp()
    used, expanded = search.cover(value + shift)
    return (f"{objective} = {value} ({float(value):.12g}) is optimal: the schedule "
            f"({pieces} pieces) is feasible with that value and {used} closed nodes "
            f"({expanded} expanded) cover every event sequence"
            f"{f' ({dp} DP values of large sets)' if dp else ''}, checked exactly")


# ------------------------------------------------------------------------- integral model
def _whole(x: Fraction) -> bool:
    return x.denominator == 1


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def _integral_model(inst: Instance, slot: Fraction) -> None:
    """Rule 1 of the integral model: whole sizes and whole ``c_q s``."""
    for f, (k, _, z) in enumerate(inst.flows):
        if not _whole(z):
            raise Rejected(f"flow {f} (coflow {k}) has size {z}: not a whole number (the "
                           "instance is not in the integral model)")
    for q, c in enumerate(inst.cap):
        if not _whole(c * slot):
            raise Rejected(f"resource {q}: capacity x slot = {c * slot} is not a whole number")


def check_slotted(inst: Instance, doc, slot: Fraction) -> tuple[Fraction, int]:
    """Verify a slotted schedule exactly; return its ``sum_k w_k C_k`` and its number of
    entries (every rule of the integral model; raises Rejected or Unreadable)."""
    if not isinstance(doc, dict) or doc.get("format") != "coflowopt-slotted-schedule" or \
            doc.get("version") != 1 or not isinstance(doc.get("slots"), list):
        raise Unreadable("slotted: expected a coflowopt-slotted-schedule document (version 1, "
                         "'slot', 'slots')")
    if instance_number(doc.get("slot"), "slotted.slot") != slot:
        raise Rejected(f"slotted.slot {doc.get('slot')!r} is not the claim's slot {slot}")
    first, n_of = [], []            # global index of each coflow's first flow, its flow count
    for f, (k, _, _) in enumerate(inst.flows):
        if k == len(first):
            first.append(f)
            n_of.append(0)
        n_of[k] += 1
    F = len(inst.flows)
    sent = [0] * F
    last = [-1] * F
    entries = 0
    for t, row in enumerate(doc["slots"]):
        if not isinstance(row, list):
            raise Unreadable(f"slotted.slots[{t}]: a list of [coflow, flow, units]")
        load: dict[int, int] = {}
        for n, e in enumerate(row):
            where = f"slotted.slots[{t}][{n}]"
            if not (isinstance(e, list) and len(e) == 3 and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in e)):
                raise Unreadable(f"{where}: an entry is [coflow, flow position, units], "
                                 "integers")
            k, pos, u = e
            if not (0 <= k < inst.K and 0 <= pos < n_of[k]):
                raise Rejected(f"{where}: coflow {k}, flow {pos} is not a flow of the instance")
            if u < 0:
                raise Rejected(f"{where}: negative units {u}")
            entries += 1
            if u == 0:
                continue
            if t * slot < inst.release[k]:
                raise Rejected(f"{where}: coflow {k} sends in slot {t}, which starts at "
                               f"{t * slot} < its release {inst.release[k]}")
            f = first[k] + pos
            sent[f] += u
            last[f] = t
            for q in inst.flows[f][1]:
                load[q] = load.get(q, 0) + u
        for q, v in load.items():
            if v > inst.cap[q] * slot:
                raise Rejected(f"slot {t}: resource {q} carries {v} units > capacity x slot "
                               f"{inst.cap[q] * slot}")
    C = [Fraction(0)] * inst.K
    for f, (k, _, z) in enumerate(inst.flows):
        if sent[f] != z:
            raise Rejected(f"flow {f} (coflow {k}) sends {sent[f]} units, not its size {z}")
        C[k] = max(C[k], (last[f] + 1) * slot)
    return sum((w * c for w, c in zip(inst.weight, C)), Fraction(0)), entries


def integral_bound(inst: Instance, slot: Fraction, fluid_wct: Fraction
                   ) -> tuple[Fraction, Fraction, Fraction | None]:
    """(bound, isolation bound, lattice step ``g``) on every integral ``sum_k w_k C_k``: the
    fluid bound rounded up to the lattice ``g Z`` and the integral isolation bound, the larger
    (``g`` is None when every weight is 0: every value is 0)."""
    g = None
    for w in inst.weight:
        if w > 0:
            v = w * slot
            g = v if g is None else Fraction(
                math.gcd(g.numerator * v.denominator, v.numerator * g.denominator),
                g.denominator * v.denominator)
    iso = Fraction(0)
    for k in range(inst.K):
        a = _ceil(inst.release[k] / slot)
        b = max(_ceil(d / (inst.cap[q] * slot)) for q, d in inst.load[k].items())
        iso += inst.weight[k] * slot * (a + b)
    if g is None:
        return Fraction(0), iso, None
    rounded = g * _ceil(fluid_wct / g)
    return max(rounded, iso), iso, g


def check_integral(instance_doc, inst: Instance, cert: dict, kind: str, value: Fraction,
                   objective: str) -> str:
    """Confirm a claim of the integral model (``claim.model: "integral"``)."""
    claim = cert["claim"]
    slot = exact(claim.get("slot"), "claim.slot")
    if slot <= 0:
        raise Unreadable("claim.slot must be > 0")
    _integral_model(inst, slot)
    proof = cert.get("proof")
    if not isinstance(proof, dict) or proof.get("type") != "fluid-bound-lattice" or \
            not isinstance(proof.get("fluid"), dict):
        raise Unreadable("proof: an integral claim needs {\"type\": \"fluid-bound-lattice\", "
                         "\"fluid\": a fluid certificate}")
    fluid = proof["fluid"]
    fclaim = fluid.get("claim") if isinstance(fluid.get("claim"), dict) else {}
    if fclaim.get("model", "fluid") != "fluid":
        raise Unreadable("proof.fluid: must be a certificate of the fluid model")
    if fclaim.get("objective") != objective:
        raise Rejected(f"proof.fluid bounds {fclaim.get('objective')!r}, the claim "
                       f"{objective!r}")
    try:
        check(instance_doc, fluid)
    except Rejected as e:
        raise Rejected(f"proof.fluid: {e}") from None
    except Unreadable as e:
        raise Unreadable(f"proof.fluid: {e}") from None
    shift = _cct_shift(inst, objective)
    L = exact(fclaim.get("value"), "proof.fluid.claim.value")
    bound, iso, g = integral_bound(inst, slot, L + shift)
    if bound - shift < value:
        raise Rejected(f"the fluid bound {L} ({float(L):.12g}) rounded up to the lattice "
                       f"{g} and the integral isolation bound {iso - shift} give "
                       f"{bound - shift} ({float(bound - shift):.12g}), less than the claimed "
                       f"{value}")
    # the proof's restatements (optional), in the claim's objective: checked, never passed
    # over (after the bound, so that a proof that falls short is reported as such first)
    rounded = g * _ceil((L + shift) / g) if g is not None else Fraction(0)
    for key, have in (("fluid_value", L), ("rounded", rounded - shift),
                      ("integral_isolated", iso - shift)):
        if key in proof and exact(proof[key], f"proof.{key}") != have:
            raise Rejected(f"proof.{key} is {proof[key]!r:.40}, but it is {have} here")
    how = (f"the fluid {fclaim.get('kind')} {L} ({float(L):.12g}), checked exactly, rounded "
           f"up to multiples of {g}" + (f" (integral isolation bound {iso - shift})"
                                         if iso > L + shift else ""))
    if kind == "lower_bound":
        return (f"{objective} >= {value} ({float(value):.12g}) for every integral schedule "
                f"(slot {slot}): {how}")
    sv, entries = check_slotted(inst, cert.get("slotted"), slot)
    if sv - shift != value:
        raise Rejected(f"the slotted schedule's {objective} is {sv - shift} "
                       f"({float(sv - shift):.12g}), not the claimed {value}")
    return (f"{objective} = {value} ({float(value):.12g}) is the integral optimum (slot "
            f"{slot}): the slotted schedule ({entries} entries) is feasible with that value, "
            f"checked exactly, and {how}, reach it")


PROOFS = {"ordering-lp-dual": check_ordering_lp_dual, "lp-ov-dual": check_lp_ov_dual,
          "lp-ov-branch-dual": check_lp_ov_branch_dual,
          "interval-lp-dual": check_interval_lp_dual,
          "time-indexed-lp-dual": check_time_indexed_lp_dual}


def check_header(inst, cert, claim, value) -> None:
    """The fields that restate what the proof is about rather than prove it: none may be
    malformed or disagree with what is checked (a wrong restatement is rejected, never passed
    over).  ``instance`` (optional): ``digest`` (SHA-256 of the instance's canonical form,
    64 hex digits), ``coflows`` and ``flows`` (counts), each checked against the instance
    given; ``claim.value_float`` (optional): the double nearest ``claim.value`` (compared in
    :func:`check` once the proof holds);
    ``claim.algorithm`` (optional): a name; ``proof.stats`` (optional): counts the search
    reports (not part of the proof), non-negative integers; ``proof.source`` (optional): the
    solver's name."""
    if "instance" in cert:
        block = cert["instance"]
        if not isinstance(block, dict):
            raise Unreadable(f"certificate: 'instance' must be an object (digest, coflows, "
                             f"flows), got {block!r:.40}")
        if "digest" in block:
            recorded = block["digest"]
            if (not isinstance(recorded, str) or len(recorded) != 64
                    or any(ch not in "0123456789abcdef" for ch in recorded)):
                raise Unreadable(f"instance.digest: expected 64 hex digits, got {recorded!r:.80}")
            if recorded != inst.digest():
                raise Rejected("the certificate is for another instance (digest "
                               f"{recorded[:12]}..., this instance {inst.digest()[:12]}...)")
        for key, have in (("coflows", inst.K), ("flows", len(inst.flows))):
            if key in block:
                n = block[key]
                if isinstance(n, bool) or not isinstance(n, int):
                    raise Unreadable(f"instance.{key}: expected an integer, got {n!r:.40}")
                if n != have:
                    raise Rejected(f"the certificate is for an instance with {n} {key}; this "
                                   f"one has {have}")
    if "value_float" in claim:
        vf = claim["value_float"]
        if isinstance(vf, bool) or not isinstance(vf, (int, float)):
            raise Unreadable(f"claim.value_float: expected a number, got {vf!r:.40}")
    if "algorithm" in claim and not isinstance(claim["algorithm"], str):
        raise Unreadable(f"claim.algorithm: expected a name, got {claim['algorithm']!r:.40}")
    proof = cert.get("proof")
    if isinstance(proof, dict) and "source" in proof and not isinstance(proof["source"], str):
        raise Unreadable(f"proof.source: expected the solver's name, got {proof['source']!r:.40}")
    if isinstance(proof, dict) and "stats" in proof:
        stats = proof["stats"]
        if not isinstance(stats, dict) or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in stats.values()):
            raise Unreadable(f"proof.stats: expected counts (non-negative integers), got "
                             f"{stats!r:.60}")


def check(instance_doc, cert) -> str:
    """The verdict on one certificate: a sentence (raises Rejected or Unreadable)."""
    verdict = _check(instance_doc, cert)
    # the claim restated as a double must be the claim's (checked after the proof, so that a
    # wrong proof is reported as such first)
    value = exact(cert["claim"]["value"], "claim.value")
    vf = cert["claim"].get("value_float", float(value))
    if float(vf) != float(value):
        raise Rejected(f"claim.value_float {vf!r} is not the claimed value {value} (the "
                       f"double nearest it is {float(value)!r})")
    return verdict


def _check(instance_doc, cert) -> str:
    inst = Instance(instance_doc)
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise Unreadable(f"certificate: not a {FORMAT} document")
    if isinstance(cert.get("version"), bool) or cert.get("version") != 1:
        raise Unreadable(f"certificate: version {cert.get('version')!r} (this checker reads 1)")
    claim = cert.get("claim")
    if not isinstance(claim, dict):
        raise Unreadable("certificate: missing 'claim'")
    kind, objective = claim.get("kind"), claim.get("objective")
    if kind not in ("lower_bound", "optimum"):
        raise Unreadable(f"claim.kind {kind!r}: this checker confirms 'lower_bound' and "
                         "'optimum' claims")
    if objective not in OBJECTIVES:
        raise Unreadable(f"claim.objective must be one of {', '.join(OBJECTIVES)}")
    value = exact(claim.get("value"), "claim.value")
    check_header(inst, cert, claim, value)
    model = claim.get("model", "fluid")
    if model == "integral":
        return check_integral(instance_doc, inst, cert, kind, value, objective)
    if model != "fluid":
        raise Unreadable(f"claim.model {model!r}: this checker reads 'fluid' and 'integral'")
    if kind == "optimum":
        return check_optimum(inst, cert, value, objective)
    proof = cert.get("proof")
    if not isinstance(proof, dict) or not isinstance(proof.get("type"), str) or \
            proof["type"] not in PROOFS:
        raise Unreadable(f"proof.type must be one of {', '.join(PROOFS)}")
    proved = PROOFS[proof["type"]](inst, proof, objective)
    if proved < value:
        raise Rejected(f"the proof gives {proved} ({float(proved):.12g}), less than the claimed "
                       f"{value} ({float(value):.12g})")
    what = {"ordering-lp-dual": "cuts", "lp-ov-branch-dual": "leaves"}.get(proof["type"], "rows")
    return (f"{objective} >= {value} ({float(value):.12g}) for every feasible schedule "
            f"({proof['type']}, {len(proof.get(what, []))} {what}, checked exactly)")


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
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
            # ValueError: json.JSONDecodeError, and an integer literal above Python's
            # int_max_str_digits (4,300 digits)
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
    except MALFORMED as e:
        # a malformed field that no rule above names: never a traceback, never a confirmation
        print(f"check_certificate: {argv[1]}: malformed certificate, not checked "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
