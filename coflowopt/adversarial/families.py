"""Published bad families, as generators with a parameter, each checked against its claim.

===================  =========================================================  ============
family               published behaviour                                        checker
===================  =========================================================  ============
Sincronia Fig. 4     Varys (SEBF) / OPT unbounded as N grows, t > N^(1+eps)     :func:`check_sincronia_fig4`
Theorem 2 instance   order-preserving work-conserving tight at 2:               :func:`check_theorem2`
                     (1+tau)^2 (best) vs tau + 2 tau^2 (poor)
Claim 1              every work-conserving non-preemptive allocation            :func:`check_claim1`
                     arbitrarily worse than optimal
permutation          best permutation schedule 2.5 vs optimum 2 (Fig. B.2);     :func:`check_permutation`
                     our family: (3n - 1) / (2n) -> 3/2
open-shop LP gap     LP relaxations of concurrent open shop: gap -> 2           :func:`check_open_shop_gap`
DRF utilisation      (1 + (K - 1) eps) / K -> 0, HUG 1                          :func:`check_drf`
===================  =========================================================  ============

``python -m coflowopt.adversarial.families`` prints the table of published against measured
values.  Every schedule is verified by :func:`coflowopt.verify.verify_schedule`; optima come
from :func:`coflowopt.exact.bnb` (kind ``optimal``) on small members and from the closed forms
proved in ``proofs/`` on large ones.

References
----------
Sincronia technical report (Agarwal et al., SIGCOMM 2018): Fig. 4 and Sec. 3.1; Theorem 2 and
Sec. 9 (Figs. 11-13, the tight instance); Claim 1 (Sec. 3.2).  Chowdhury's dissertation
(2015): Theorem B.3.1, Fig. B.2; Lemma D.3.6.  Mastrolilli, Queyranne, Schulz, Svensson, Uhan,
Oper. Res. Lett. 38(5), 2010 (LP relaxations of concurrent open shop have integrality gap 2).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..generators import sincronia_fig4
from ..instance import Coflow, Instance
from ..limits import check_integer
from ..schedule import Schedule
from ..verify import verify_schedule

__all__ = ["sincronia_fig4", "fig4_closed_forms", "check_sincronia_fig4",
           "idempotent_latin_square", "theorem2_instance", "theorem2_schedules",
           "check_theorem2", "prefix_maximal", "claim1_instance", "claim1_closed_forms",
           "nonpreemptive_work_conserving_schedules", "check_claim1", "permutation_family",
           "permutation_schedules", "is_permutation_schedule", "check_permutation",
           "open_shop_gap_instance", "open_shop_closed_forms", "check_open_shop_gap",
           "drf_family_vectors", "check_drf", "table_rows", "format_table",
           "format_markdown"]


def _int(name: str, v, minimum: int) -> int:
    return check_integer(v, name, minimum)


def _verified(instance: Instance, schedule: Schedule, mode: str = "exact"):
    rep = verify_schedule(instance, schedule, mode=mode)
    rep.raise_if_invalid()
    return rep


def _opt(instance: Instance, time_limit: float = 60.0):
    from ..exact import bnb
    res = bnb(instance, time_limit=time_limit)
    if res.kind != "optimal":
        raise AssertionError(f"bnb could not prove the optimum ({res.status})")
    return res


def _run(instance: Instance, label: str):
    from .objective import parse_algorithm
    res = parse_algorithm(label).run(instance)
    if res.kind != "feasible":
        raise AssertionError(f"{label}: schedule rejected by the verifier: {res.message}")
    return res


# ------------------------------------------------------------------------------ Fig. 4
def fig4_closed_forms(t: int, N: int) -> dict[str, int]:
    """``sum_k C_k`` on :func:`~coflowopt.generators.sincronia_fig4` (unit weights).

    ``opt = N(N+1)/2 + 2t + 2N`` for ``t >= 2`` (proofs/sincronia-fig4-sebf.md: the instance
    is a concurrent open shop, so a permutation is optimal, and the singles go first);
    ``sebf = N(N+1)/2 + t(N+2)`` (SEBF runs the N unit coflows first, rho 1 < 2, with any
    work-conserving order-preserving rates).

    Examples
    --------
    >>> fig4_closed_forms(4, 2)
    {'opt': 15, 'sebf': 19}
    """
    t, N = _int("t", t, 2), _int("N", N, 0)
    return {"opt": N * (N + 1) // 2 + 2 * t + 2 * N, "sebf": N * (N + 1) // 2 + t * (N + 2)}


def check_sincronia_fig4(t: int, N: int, *, exact_opt: bool | None = None,
                         algorithms=("sebf+greedy", "sebf+madd", "bssi+greedy")
                         ) -> dict[str, Any]:
    """Run the algorithms on Fig. 4 (``t`` singles, ``N`` identical coflows); verify, compare
    with the closed-form optimum (and bnb's when ``exact_opt``, default for ``t + N <= 8``)
    and with the best fast certified bound.

    Returns
    -------
    dict
        ``values`` (verified, per algorithm), ``opt`` (closed form), ``opt_bnb`` (or None),
        ``lb`` (best certified bound and its name), ``ratios`` (ALG/OPT).

    Raises
    ------
    AssertionError
        If a closed form disagrees with a verified or proven value.
    """
    from ..registry import get_algorithm
    from .objective import fast_bounds
    inst = sincronia_fig4(t, N)
    cf = fig4_closed_forms(t, N)
    values = {}
    for label in algorithms:
        try:
            values[label] = float(_run(inst, label).value)
        except Exception as e:  # an unregistered algorithm (e.g. MADD absent) is skipped
            if "unknown" in str(e):
                continue
            raise
    if "sebf+greedy" in values and values["sebf+greedy"] != cf["sebf"]:
        raise AssertionError(f"SEBF+greedy {values['sebf+greedy']} != closed form {cf['sebf']}")
    if exact_opt is None:
        exact_opt = t + N <= 8
    opt_bnb = None
    if exact_opt:
        opt_bnb = _opt(inst).value
        if opt_bnb != cf["opt"]:
            raise AssertionError(f"bnb optimum {opt_bnb} != closed form {cf['opt']}")
    lbs = {n: get_algorithm("bound", n).func(inst) for n in fast_bounds()}
    name, lb = max(((n, r) for n, r in lbs.items() if r.value is not None),
                   key=lambda nr: float(nr[1].value))
    if float(lb.value) > cf["opt"] * (1 + 1e-9):
        raise AssertionError(f"certified bound {name} {lb.value} above the optimum {cf['opt']}")
    return {"t": t, "N": N, "values": values, "opt": cf["opt"], "opt_bnb": opt_bnb,
            "lb": float(lb.value), "lb_name": name,
            "ratios": {k: v / cf["opt"] for k, v in values.items()},
            "ratios_lb": {k: v / float(lb.value) for k, v in values.items()}}


# ------------------------------------------------------------------------------ Theorem 2
def idempotent_latin_square(n: int) -> np.ndarray:
    """An ``n x n`` Latin square on ``0..n-1`` with ``L[i, i] = i`` (exists for ``n != 2``).

    Odd ``n``: ``L[i, j] = (i + j) / 2 mod n``.  Even ``n >= 4``: the odd square of order
    ``n - 1`` prolonged along its transversal ``{(i, i + 1)}`` (which avoids the diagonal), the
    new symbol ``n - 1`` placed on the transversal and at ``(n-1, n-1)``.

    Examples
    --------
    >>> idempotent_latin_square(3).tolist()
    [[0, 2, 1], [2, 1, 0], [1, 0, 2]]
    """
    n = _int("n", n, 1)
    if n == 2:
        raise NotSupportedError("there is no idempotent Latin square of order 2")
    if n % 2 == 1:
        inv2 = (n + 1) // 2
        i, j = np.indices((n, n))
        return ((i + j) * inv2) % n
    m = n - 1
    L = np.full((n, n), -1, dtype=np.int64)
    L[:m, :m] = idempotent_latin_square(m)
    for i in range(m):
        j = (i + 1) % m
        s = L[i, j]
        L[i, j] = m
        L[i, m] = s
        L[m, j] = s
    L[m, m] = m
    return L


def theorem2_instance(tau: int) -> Instance:
    """Our reconstruction of the tight instance of Sincronia's Theorem 2 (Figs. 11-13).

    ``tau`` ingress ports ``0..tau-1`` and ``tau + 1`` egress ports ``0..tau``.  Coflow ``"C1"``
    (weight 1): a unit flow from every ingress ``i`` to every egress ``j < tau`` (``tau^2``
    flows, ingress-major).  Coflow ``"C2"`` (weight ``tau``): a unit flow from every ingress
    ``i`` to egress ``tau``.  The order is C1 then C2.

    The figures are graphics; the text fixes ``tau = ceil(3/eps)``, ``tau + 1`` ports, the
    weights, the two costs ``(1 + tau)^2`` and ``tau + 2 tau^2``.  This instance reproduces
    both costs (:func:`theorem2_schedules`); it is a reconstruction, not the drawing.

    Raises
    ------
    InvalidParameterError
        For ``tau < 3`` (the good schedule needs an idempotent Latin square of order tau).
    """
    tau = _int("tau", tau, 3)
    c1 = [(i, j, 1) for i in range(tau) for j in range(tau)]
    c2 = [(i, tau, 1) for i in range(tau)]
    return Instance.from_coflows([Coflow("C1", c1, weight=1), Coflow("C2", c2, weight=tau)],
                                 num_ingress=tau, num_egress=tau + 1,
                                 meta={"name": f"theorem2(tau={tau})",
                                       "source": "reconstruction of Sincronia Figs. 11-13"})


def theorem2_schedules(tau: int) -> dict[str, Schedule]:
    """The two order-preserving work-conserving schedules of the Theorem 2 instance.

    ``"poor"`` (Fig. 13's cost ``tau + 2 tau^2``): C1 as ``tau`` perfect matchings
    ``i -> i + t mod tau`` in ``[t, t+1)``, which keeps every ingress busy, so C2 waits until
    ``tau`` and then crosses egress ``tau`` one unit at a time: ``C1 = tau``, ``C2 = 2 tau``.

    ``"good"`` (Fig. 12's cost ``(1 + tau)^2``): with ``L`` an idempotent Latin square,
    ``[0, 1)`` serves C1's diagonal ``i -> i``; ``[t, t+1)`` (``1 <= t < tau``) serves C1's
    flows ``(i, j)``, ``i != j``, with ``L[i, j] = t`` -- ingress ``t`` and egress ``t`` are the
    ones left out, and ingress ``t`` has already sent to egress ``t`` -- plus C2's flow from
    ingress ``t``; ``[tau, tau+1)`` serves the cells with ``L[i, j] = 0``, ``i != j``, and C2's
    flow from ingress 0.  ``C1 = C2 = tau + 1``.
    """
    tau = _int("tau", tau, 3)
    inst = theorem2_instance(tau)
    f1 = lambda i, j: i * tau + j                       # noqa: E731  (C1's flows, ingress-major)
    f2 = lambda i: tau * tau + i                        # noqa: E731
    poor = [(t, t + 1, [(f1(i, (i + t) % tau), 1) for i in range(tau)]) for t in range(tau)]
    poor += [(tau + i, tau + i + 1, [(f2(i), 1)]) for i in range(tau)]
    L = idempotent_latin_square(tau)
    good = [(0, 1, [(f1(i, i), 1) for i in range(tau)])]
    for t in list(range(1, tau)) + [0]:
        slot = tau if t == 0 else t
        rates = [(f1(i, j), 1) for i in range(tau) for j in range(tau) if i != j and L[i, j] == t]
        rates.append((f2(t), 1))
        good.append((slot, slot + 1, rates))
    assert inst.num_flows == tau * tau + tau
    return {"good": Schedule.from_segments(good, meta={"family": "theorem2", "tau": tau}),
            "poor": Schedule.from_segments(poor, meta={"family": "theorem2", "tau": tau})}


def prefix_maximal(instance: Instance, schedule: Schedule, order, *,
                   rtol: float = 1e-9) -> bool:
    """Whether the schedule is work-conserving and order-preserving in the strong (prefix)
    sense: at every instant and for every ``k``, every released unfinished flow of
    ``sigma(1..k)`` has a port saturated by the flows of ``sigma(1..k)``.

    This is what Sincronia's Lemma 3 needs (Definition 1 in fluid form) and what Algorithm 2
    (greedy) produces; ``k = K`` is work conservation.
    """
    from ..testing import interval_rates
    rep = verify_schedule(instance, schedule)
    rep.raise_if_invalid()
    st = interval_rates(instance, schedule, rep.flow_completion)
    order = np.asarray(order, dtype=np.int64)
    pos = np.empty(instance.num_coflows, dtype=np.int64)
    pos[order] = np.arange(order.size)
    fpos = pos[instance.flow_coflow]
    src, dst = instance.flow_src, instance.flow_egress_port
    cap = instance.capacity[:, None]
    for k in range(order.size):
        mine = fpos <= k
        R = st["rate"] * mine[:, None]
        load = np.zeros_like(st["load"])
        np.add.at(load, src, R)
        np.add.at(load, dst, R)
        sat = load >= cap * (1 - rtol)
        bad = st["active"] & mine[:, None] & ~sat[src] & ~sat[dst]
        if bad.any():
            return False
    return True


def check_theorem2(tau: int, *, exact_opt: bool = False) -> dict[str, Any]:
    """Verify both schedules (exact arithmetic), their costs against the printed
    ``(1 + tau)^2`` and ``tau + 2 tau^2``, that both are prefix-maximal for the order (C1, C2),
    and report greedy's cost and (``exact_opt``) the unconstrained optimum.

    Raises
    ------
    AssertionError
        If a cost or a property disagrees.
    """
    inst = theorem2_instance(tau)
    sch = theorem2_schedules(tau)
    out: dict[str, Any] = {"tau": tau, "printed_good": (1 + tau) ** 2,
                           "printed_poor": tau + 2 * tau ** 2}
    for name, s in sch.items():
        rep = _verified(inst, s)
        out[name] = rep.weighted_completion_time
        out[f"{name}_prefix_maximal"] = prefix_maximal(inst, s, [0, 1])
        if not out[f"{name}_prefix_maximal"]:
            raise AssertionError(f"the {name} schedule is not work-conserving order-preserving")
    if out["good"] != out["printed_good"] or out["poor"] != out["printed_poor"]:
        raise AssertionError(f"costs {out['good']}, {out['poor']} != printed "
                             f"{out['printed_good']}, {out['printed_poor']}")
    out["ratio"] = Fraction(out["poor"]) / out["good"]
    out["eps"] = Fraction(3, tau)
    if not out["ratio"] > 2 - out["eps"]:
        raise AssertionError(f"ratio {out['ratio']} <= 2 - 3/tau")
    from ..api import run_schedule
    g = run_schedule(inst, "given", "greedy")
    out["greedy"] = float(g.value)
    out["opt"] = _opt(inst).value if exact_opt else None
    return out


# ------------------------------------------------------------------------------ Claim 1
def claim1_instance(n: int, L: int | None = None) -> Instance:
    """Claim 1's family (our construction; the claim's text gives none).

    One port pair.  Coflow ``"B"``: one flow of ``L`` units (default ``n^2``), released at 0;
    coflows ``"S1".."Sn"``: one unit flow each, released at 1.  ``L >= 2`` (default
    ``max(2, n^2)``).  A work-conserving allocation
    must start B at time 0 (nothing else is released); a non-preemptive one cannot stop it, so
    every small coflow waits until ``L``.
    """
    n = _int("n", n, 1)
    L = max(2, n * n) if L is None else _int("L", L, 2)
    cs = [Coflow("B", [(0, 0, L)], release=0)]
    cs += [Coflow(f"S{i + 1}", [(0, 0, 1)], release=1) for i in range(n)]
    return Instance.from_coflows(cs, meta={"name": f"claim1(n={n}, L={L})"})


def claim1_closed_forms(n: int, L: int | None = None) -> dict[str, int]:
    """``np``: every non-preemptive work-conserving schedule, ``L (n+1) + n (n+1) / 2``;
    ``opt``: SRPT on the single port pair (optimal for ``sum C`` with preemption and releases,
    Schrage 1968), ``L + 2n + n (n+1) / 2`` (for ``L >= 2``)."""
    L = max(2, n * n) if L is None else L
    return {"np": L * (n + 1) + n * (n + 1) // 2, "opt": L + 2 * n + n * (n + 1) // 2}


def nonpreemptive_work_conserving_schedules(instance: Instance, *, limit: int = 100000
                                            ) -> list[Schedule]:
    """Every work-conserving non-preemptive schedule (unit capacities).

    Non-preemptive: a flow, once started, runs at rate 1 until it is done.  Work-conserving:
    at every decision time (0, a release, a completion) the flows started form, with the
    running ones, a maximal set of released flows with pairwise distinct ports.  The
    enumeration branches over every maximal set.

    Raises
    ------
    NotSupportedError
        For capacities other than 1, or more than ``limit`` schedules.
    """
    if not np.all(instance.capacity == 1):
        raise NotSupportedError("the enumeration assumes unit capacities")
    F = instance.num_flows
    rel = instance.release[instance.flow_coflow]
    src, dst, size = instance.flow_src, instance.flow_egress_port, instance.flow_size
    out: list[Schedule] = []

    def maximal_sets(cands, busy):
        # all maximal sets of candidates with pairwise distinct, free ports
        res = []

        def rec(i, chosen, used):
            if i == len(cands):
                if all(src[f] in used or dst[f] in used for f in cands if f not in chosen):
                    res.append(list(chosen))
                return
            f = cands[i]
            if src[f] not in used and dst[f] not in used:
                rec(i + 1, chosen + [f], used | {src[f], dst[f]})
            rec(i + 1, chosen, used)
        rec(0, [], set(busy))
        return res

    def go(t, start: dict, end: dict):
        if len(out) >= limit:
            raise NotSupportedError(f"more than {limit} schedules")
        if len(end) == F:
            out.append(Schedule.from_pieces(list(end), [start[f] for f in end],
                                            list(end.values()), [1.0] * F))
            return
        running = [f for f in end if end[f] > t]
        busy = {int(src[f]) for f in running} | {int(dst[f]) for f in running}
        cands = [f for f in range(F) if f not in start and rel[f] <= t]
        for chosen in maximal_sets(cands, busy):
            s2, e2 = dict(start), dict(end)
            for f in chosen:
                s2[f] = t
                e2[f] = t + float(size[f])
            nxt = [e for e in e2.values() if e > t] + [r for r in rel if r > t]
            if not nxt and len(e2) < F:
                raise AssertionError("stuck")
            go(min(nxt) if nxt else t, s2, e2)

    go(float(rel.min()), {}, {})
    return out


def check_claim1(n: int, L: int | None = None, *, exact_opt: bool = True) -> dict[str, Any]:
    """Enumerate every non-preemptive work-conserving schedule of :func:`claim1_instance`,
    verify each, and compare the best with the optimum (bnb and SRPT's closed form)."""
    inst = claim1_instance(n, L)
    cf = claim1_closed_forms(n, L)
    schedules = nonpreemptive_work_conserving_schedules(inst)
    costs = sorted({float(_verified(inst, s, "float").weighted_completion_time)
                    for s in schedules})
    if costs != [cf["np"]]:
        raise AssertionError(f"non-preemptive work-conserving costs {costs} != {cf['np']}")
    opt = _opt(inst).value if exact_opt else None
    if opt is not None and opt != cf["opt"]:
        raise AssertionError(f"bnb optimum {opt} != closed form {cf['opt']}")
    return {"n": n, "L": L if L is not None else max(2, n * n), "np_schedules": len(schedules),
            "np_costs": costs, "np": cf["np"],
            "opt": cf["opt"], "opt_bnb": opt, "ratio": cf["np"] / cf["opt"]}


# ------------------------------------------------------------------------------ permutations
def permutation_family(n: int) -> Instance:
    """``n`` coflows on an ``n x n`` fabric: coflow ``"C{k+1}"`` sends one unit from ingress
    ``k`` to every egress.  ``n = 2`` is the dissertation's Fig. B.2 (Thm B.3.1)."""
    n = _int("n", n, 1)
    return Instance.from_coflows(
        [Coflow(f"C{k + 1}", [(k, j, 1) for j in range(n)]) for k in range(n)],
        meta={"name": f"permutation_family(n={n})"})


def permutation_schedules(n: int) -> dict[str, Schedule]:
    """``"optimal"``: coflow k sends to egress ``(k + t) mod n`` in ``[t, t+1)`` (every coflow
    done at ``n``: ``sum C = n^2``, optimal since each ingress carries ``n``).
    ``"permutation"``: the best permutation schedule for the order 1..n: coflow k sends to
    egress j in ``[j + k, j + k + 1)``, ``C_k = n + k`` (0-based k), ``sum = n^2 + n(n-1)/2``."""
    n = _int("n", n, 1)
    f = lambda k, j: k * n + j                           # noqa: E731
    opt = [(t, t + 1, [(f(k, (k + t) % n), 1) for k in range(n)]) for t in range(n)]
    perm = [(s, s + 1, [(f(k, s - k), 1) for k in range(n) if 0 <= s - k < n])
            for s in range(2 * n - 1)]
    return {"optimal": Schedule.from_segments(opt), "permutation": Schedule.from_segments(perm)}


def is_permutation_schedule(instance: Instance, schedule: Schedule, order) -> bool:
    """Whether every port serves the coflows one after another in ``order`` (all data of
    ``sigma(i)`` through the port before any data of ``sigma(j)``, ``i < j``): the
    dissertation's permutation schedules (no interleaving at any port)."""
    s = schedule.to_float() if schedule.exact else schedule
    pos = {int(k): i for i, k in enumerate(order)}
    P = instance.num_ports
    first = np.full((P, instance.num_coflows), np.inf)
    last = np.full((P, instance.num_coflows), -np.inf)
    for fl, a, b, r in zip(s.flow, s.start, s.end, s.rate):
        if r <= 0:
            continue
        k = int(instance.flow_coflow[fl])
        for p in (int(instance.flow_src[fl]), int(instance.flow_egress_port[fl])):
            first[p, k] = min(first[p, k], a)
            last[p, k] = max(last[p, k], b)
    for p in range(P):
        ks = sorted((k for k in range(instance.num_coflows) if np.isfinite(first[p, k])),
                    key=lambda k: pos[k])
        for a, b in zip(ks, ks[1:]):
            if last[p, a] > first[p, b] + 1e-12:
                return False
    return True


def check_permutation(n: int, *, exact_opt: bool | None = None) -> dict[str, Any]:
    """Verify both schedules of :func:`permutation_schedules`, that the permutation one is a
    permutation schedule and the optimal one is not, their costs against the closed forms,
    and (``n <= 4`` by default) the optimum with bnb."""
    inst = permutation_family(n)
    sch = permutation_schedules(n)
    opt_v = _verified(inst, sch["optimal"]).weighted_completion_time
    perm_v = _verified(inst, sch["permutation"]).weighted_completion_time
    if opt_v != n * n or perm_v != n * n + n * (n - 1) // 2:
        raise AssertionError(f"costs {opt_v}, {perm_v} disagree with the closed forms")
    if not is_permutation_schedule(inst, sch["permutation"], range(n)):
        raise AssertionError("the permutation schedule interleaves coflows at a port")
    if n > 1 and is_permutation_schedule(inst, sch["optimal"], range(n)):
        raise AssertionError("the optimal schedule should interleave")
    if exact_opt is None:
        exact_opt = n <= 4
    opt = _opt(inst).value if exact_opt else None
    if opt is not None and opt != n * n:
        raise AssertionError(f"bnb optimum {opt} != n^2")
    return {"n": n, "opt": n * n, "opt_bnb": opt, "permutation": int(perm_v),
            "average_cct_opt": Fraction(n * n, n), "average_cct_permutation":
                Fraction(n * n + n * (n - 1) // 2, n),
            "ratio": Fraction(int(perm_v), n * n)}


# ------------------------------------------------------------------------------ open shop
def open_shop_gap_instance(n: int, k: int) -> Instance:
    """Concurrent open shop as a coflow instance where only ingress constrains.

    ``n`` jobs (coflows ``"J1".."Jn"``), one ingress port (machine) for every ``k``-subset of
    the jobs, a unit flow of job ``j`` on every machine that contains ``j``, each flow to an
    egress port of its own (so no egress ever binds).
    """
    n, k = _int("n", n, 1), _int("k", k, 1)
    if k > n:
        raise InvalidParameterError(f"k must be <= n, got k={k}, n={n}")
    machines = list(itertools.combinations(range(n), k))
    flows: list[list] = [[] for _ in range(n)]
    e = 0
    for m, S in enumerate(machines):
        for j in S:
            flows[j].append((m, e, 1))
            e += 1
    return Instance.from_coflows([Coflow(f"J{j + 1}", flows[j]) for j in range(n)],
                                 num_ingress=len(machines), num_egress=e,
                                 meta={"name": f"open_shop_gap(n={n}, k={k})"})


def open_shop_closed_forms(n: int, k: int) -> dict[str, Fraction]:
    """``opt = sum_{r=1..n} min(r, k)``; ``lp = n (k + 1) / 2`` (the parallel-inequality LP:
    ``C_j = (k+1)/2`` is feasible, and summing every machine's full-set inequality shows it is
    optimal); the gap ``opt / lp -> 2k/(k+1)`` as ``n -> infinity`` (proofs/open-shop-lp-gap.md).
    """
    return {"opt": Fraction(sum(min(r, k) for r in range(1, n + 1))),
            "lp": Fraction(n * (k + 1), 2)}


def check_open_shop_gap(n: int, k: int, *, bounds=("isolated", "port", "bssi-dual",
                                                   "ordering-lp", "lp-ov", "interval-lp"),
                        exact_opt: bool | None = None) -> dict[str, Any]:
    """Each registered bound's value and its gap ``OPT / bound`` on the family; the ordering LP
    must equal the closed form ``n (k+1) / 2``; the optimum equals its closed form (bnb when
    ``n <= 6`` by default)."""
    from ..registry import get_algorithm
    inst = open_shop_gap_instance(n, k)
    cf = open_shop_closed_forms(n, k)
    out: dict[str, Any] = {"n": n, "k": k, "opt": cf["opt"], "lp": cf["lp"], "bounds": {}}
    if exact_opt is None:
        exact_opt = n <= 6
    if exact_opt:
        v = _opt(inst, time_limit=120).value
        if v != cf["opt"]:
            raise AssertionError(f"bnb optimum {v} != closed form {cf['opt']}")
        out["opt_bnb"] = v
    for b in bounds:
        res = get_algorithm("bound", b).func(inst)
        if res.value is None:
            continue
        val = float(res.value)
        if val > float(cf["opt"]) * (1 + 1e-9):
            raise AssertionError(f"bound {b} = {val} above the optimum {cf['opt']}")
        out["bounds"][b] = {"value": val, "gap": float(cf["opt"]) / val}
    if "ordering-lp" in out["bounds"] and \
            abs(out["bounds"]["ordering-lp"]["value"] - float(cf["lp"])) > 1e-6 * float(cf["lp"]):
        raise AssertionError(f"ordering LP {out['bounds']['ordering-lp']['value']} != "
                             f"{cf['lp']}")
    out["gap_closed_form"] = cf["opt"] / cf["lp"]
    return out


# ------------------------------------------------------------------------------ DRF
def drf_family_vectors(K: int, N: int, eps) -> list[list[Fraction]]:
    """Lemma D.3.6: ``N`` coflows on ``K`` links, each demanding 1 on link 1 and ``eps`` on
    every other link (exact fractions)."""
    K, N = _int("K", K, 1), _int("N", N, 1)
    e = Fraction(eps)
    return [[Fraction(1)] + [e] * (K - 1) for _ in range(N)]


def check_drf(K: int, N: int = 3, eps=Fraction(1, 100)) -> dict[str, Any]:
    """DRF's utilisation equals ``(1 + (K-1) eps) / K`` and HUG's is 1 (exact arithmetic,
    :func:`coflowopt.fairness.allocate`)."""
    from ..fairness import allocate
    vec = drf_family_vectors(K, N, eps)
    drf = allocate(vec, "drf").utilisation_fraction
    hug = allocate(vec, "hug").utilisation_fraction
    formula = (1 + (K - 1) * Fraction(eps)) / K
    if drf != formula or hug != 1:
        raise AssertionError(f"DRF {drf} vs formula {formula}; HUG {hug}")
    return {"K": K, "N": N, "eps": Fraction(eps), "drf": drf, "formula": formula, "hug": hug}


# ------------------------------------------------------------------------------ table
def _row(family, param, published, limit, ratio, base, value_kind, measured, check):
    return {"family": family, "param": param, "published": published, "limit": limit,
            "ratio": ratio, "base": base, "value_kind": value_kind, "measured": measured,
            "check": check}


def table_rows(quick: bool = False) -> list[dict[str, Any]]:
    """Published against measured, one row per family member (``quick``: fewer members).

    Every row has ``family``, ``param``, ``published`` (the published behaviour), ``limit``
    (the published limit of the ratio as the parameter grows), ``ratio`` (measured, a float),
    ``base`` (what the ratio divides by), ``value_kind`` (how the numbers are known: verified
    schedules, bnb-proved optima, closed forms proved in ``proofs/``), ``measured`` (details)
    and ``check`` (the checker that raised nothing).
    """
    rows: list[dict[str, Any]] = []
    fig4 = [(4, 2), (9, 3)] if quick else [(4, 2), (9, 3), (16, 4), (25, 5), (64, 8), (100, 10)]
    for t, N in fig4:
        r = check_sincronia_fig4(t, N)
        meas = ", ".join(f"{k} {v:.3f}" for k, v in r["ratios"].items())
        rows.append(_row(
            "Sincronia Fig. 4", f"t={t}, N={N}", "SEBF/OPT unbounded (t > N^(1+eps))",
            "infinity (~2N/5 at t = N^2)", r["ratios"]["sebf+greedy"], "SEBF+greedy / OPT",
            "verified schedules; OPT " + ("bnb-proved = closed form" if r["opt_bnb"] else
                                          "closed form (proofs/sincronia-fig4-sebf-unbounded.md)"),
            f"ALG/OPT: {meas}; OPT {r['opt']}", "check_sincronia_fig4"))
    for tau in ([3, 4] if quick else [3, 4, 6, 10, 30]):
        r = check_theorem2(tau, exact_opt=tau <= 4)
        rows.append(_row(
            "Theorem 2 (reconstruction)", f"tau={tau}",
            f"best {(1 + tau) ** 2}, poor {tau + 2 * tau ** 2}, ratio > 2 - 3/tau", "2",
            float(r["ratio"]), "poor / best order-preserving WC schedule (order C1, C2)",
            "verified schedules (exact)" + ("; OPT bnb-proved" if r["opt"] is not None else ""),
            f"best {r['good']}, poor {r['poor']}; greedy {r['greedy']:g}"
            + (f"; OPT {r['opt']}" if r["opt"] is not None else ""), "check_theorem2"))
    for n in ([2, 3] if quick else [1, 2, 3, 4, 5]):
        r = check_claim1(n)
        rows.append(_row(
            "Claim 1 (our construction)", f"n={n}, L={r['L']}",
            "non-preemptive WC / OPT unbounded", "infinity (~2n/3 at L = n^2)", float(r["ratio"]),
            "best non-preemptive WC schedule / OPT",
            "all NP-WC schedules enumerated and verified; OPT bnb-proved = closed form",
            f"{r['np_schedules']} NP-WC schedules, all cost {r['np']}; OPT {r['opt']}",
            "check_claim1"))
    for n in ([2, 3] if quick else [2, 3, 4, 8, 16]):
        r = check_permutation(n)
        rows.append(_row(
            "permutation schedules", f"n={n}",
            "Fig. B.2 (n=2): avg CCT 2.5 vs 2" if n == 2 else "(our family)", "3/2",
            float(r["ratio"]), "best permutation schedule / OPT",
            "verified schedules (exact); OPT " + ("bnb-proved" if r["opt_bnb"] else
                                                  "closed form (per-ingress load)"),
            f"avg CCT {float(r['average_cct_permutation']):g} vs "
            f"{float(r['average_cct_opt']):g}", "check_permutation"))
    for n, k in ([(4, 2)] if quick else [(4, 2), (6, 3), (8, 4)]):
        r = check_open_shop_gap(n, k, exact_opt=n <= 6)
        meas = ", ".join(f"{b} {v['gap']:.3f}" for b, v in r["bounds"].items())
        rows.append(_row(
            "open-shop LP gap", f"n={n}, k={k}", "integrality gap 2 (limit)",
            "2 (2k/(k+1) at n -> infinity)", float(r["gap_closed_form"]),
            "OPT / ordering LP", "certified bounds; OPT " + (
                "bnb-proved = closed form" if "opt_bnb" in r else "closed form"),
            f"OPT {r['opt']}, LP {r['lp']}; OPT/bound: {meas}", "check_open_shop_gap"))
    if not quick:                    # closed forms only: the limits, no instance built
        cf = "closed form only (proved in proofs/; no instance built)"
        for N in (100, 1000):
            c = fig4_closed_forms(N * N, N)
            rows.append(_row("Sincronia Fig. 4", f"t={N * N}, N={N}",
                             "SEBF/OPT unbounded (t > N^(1+eps))", "infinity (~2N/5 at t = N^2)",
                             c["sebf"] / c["opt"], "SEBF / OPT", cf,
                             f"SEBF {c['sebf']}, OPT {c['opt']}", "fig4_closed_forms"))
        tau = 300
        rows.append(_row("Theorem 2 (reconstruction)", f"tau={tau}",
                         f"best {(1 + tau) ** 2}, poor {tau + 2 * tau ** 2}", "2",
                         (tau + 2 * tau ** 2) / (1 + tau) ** 2,
                         "poor / best order-preserving WC schedule", cf,
                         "printed costs", "theorem2_schedules (closed forms)"))
        c = claim1_closed_forms(64)
        rows.append(_row("Claim 1 (our construction)", "n=64, L=4096",
                         "non-preemptive WC / OPT unbounded", "infinity (~2n/3 at L = n^2)",
                         c["np"] / c["opt"], "best non-preemptive WC schedule / OPT", cf,
                         f"NP-WC {c['np']}, OPT {c['opt']}", "claim1_closed_forms"))
        n = 1000
        rows.append(_row("permutation schedules", f"n={n}", "(our family)", "3/2",
                         (3 * n - 1) / (2 * n), "best permutation schedule / OPT", cf,
                         "(3n - 1) / (2n)", "permutation_schedules (closed forms)"))
        for n, k in ((100, 10), (10000, 100)):
            c = open_shop_closed_forms(n, k)
            rows.append(_row("open-shop LP gap", f"n={n}, k={k}", "integrality gap 2 (limit)",
                             "2 (2k/(k+1) at n -> infinity)", float(c["opt"] / c["lp"]),
                             "OPT / ordering LP", cf, f"OPT {c['opt']}, LP {c['lp']}",
                             "open_shop_closed_forms"))
    for K in ([4, 64] if quick else [2, 16, 256, 1024]):
        r = check_drf(K)
        rows.append(_row(
            "DRF utilisation", f"K={K}, N=3, eps=1/100", "(1 + (K-1) eps)/K, HUG 1",
            "eps as K -> infinity (-> 0 with eps)", float(r["drf"]), "DRF utilisation / link capacity",
            "exact fractions", f"DRF {r['drf']}, HUG {r['hug']}", "check_drf"))
    first = {f: i for i, f in enumerate(dict.fromkeys(r["family"] for r in rows))}
    rows.sort(key=lambda r: first[r["family"]])      # stable: closed forms after members
    return rows


def format_table(rows) -> str:
    """The rows as a text table (the one printer, :func:`coflowopt.tables.format_table`)."""
    from ..tables import format_table as table
    return table(["family", "parameter", "published", "measured"],
                 [[r["family"], r["param"], r["published"],
                   f"{r['ratio']:.4f} = {r['base']}; {r['measured']}"] for r in rows],
                 left=range(4), rule=False)


def format_markdown(rows) -> str:
    """The rows as a markdown table (``experiments/families_table.py`` writes it)."""
    lines = ["| family | parameter | published behaviour | published limit | measured ratio | "
             "ratio base | how the values are known | details |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['family']} | {r['param']} | {r['published']} | {r['limit']} | "
                     f"**{r['ratio']:.4f}** | {r['base']} | {r['value_kind']} | "
                     f"{r['measured']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m coflowopt.adversarial.families",
                                description="published against measured behaviour of the "
                                            "known bad families")
    p.add_argument("--quick", action="store_true", help="fewer, smaller members")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    a = p.parse_args(argv)
    rows = table_rows(quick=a.quick)
    print(format_markdown(rows) if a.markdown else format_table(rows))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
