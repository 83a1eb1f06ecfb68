"""LP-A, LP-B (integral-model bounds over unit slots) and lp-deadline-greedy (issue 13, first
slice): hand-checked examples, the theory-frontier digest's section 8.3 instances with known
answers, and hypothesis properties ``LP-A <= LP-B <= integral OPT <= lp-deadline-greedy`` and
``E_{2 tau}[ALG] <= rho LP`` (``proofs/lp-deadline-greedy.md``,
``formulations/lp_a_lp_b.md``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.bounds.integral_time_indexed import (integral_lp_solution, lp_a_bound,
                                                    lp_b_bound)
from coflowopt.formulations.certificates import check_certificate, LPCertificate
from coflowopt.formulations.time_indexed_integral import geometric_boundaries
from coflowopt.lp_deadline import (grid_stretch, guarantee_factor, lp_deadline_greedy,
                                   lp_deadline_pieces, ordered_load_bound, tau_deadlines)
from coflowopt.registry import get_algorithm
from coflowopt.slotted import verify_slotted
from coflowopt.slotted_greedy import first_slots, slotted_greedy
from coflowopt.testing import big_switch_as_paths, integral_optimum
from coflowopt.verify import verify_schedule

pytest.importorskip("highspy")

TOL = Fraction(1, 10 ** 9)


def close(a, b, rtol=1e-9) -> bool:
    a, b = Fraction(a), Fraction(b)
    return abs(a - b) <= rtol * max(1, abs(b))


def kdd(D: int, release: float = 0.0) -> Instance:
    """One coflow: the all-to-all K_{D,D} of unit flows (Delta = D)."""
    return Instance.from_coflows([Coflow("K", [(i, j, 1) for i in range(D) for j in range(D)],
                                         release=release)])


def checked_schedule(inst, sched):
    rep = verify_slotted(inst, sched)
    assert rep.ok, rep.summary()
    fl = verify_schedule(inst, sched.to_schedule(exact=True), mode="exact")
    assert fl.ok and fl.weighted_completion_time == rep.weighted_completion_time
    return rep


# ------------------------------------------------------------------- digest 8.3 #1: one coflow
@pytest.mark.parametrize("D", [2, 3, 4])
def test_single_coflow_kdd_cutoff_and_gap(D):
    """LP-A with the Delta cut-off equals OPT = Delta; without it (Delta + 1) / 2 (digest 2.10:
    the gap -> 2); LP-B needs the cut-off as well."""
    inst = kdd(D)
    assert integral_optimum(inst) == D
    assert close(lp_a_bound(inst).value, D)
    assert close(lp_b_bound(inst).value, D)
    assert close(lp_a_bound(inst, cutoff=False).value, Fraction(D + 1, 2))
    assert close(lp_b_bound(inst, cutoff=False).value, Fraction(D + 1, 2))


@pytest.mark.parametrize("r", [1, 2.5])
def test_single_coflow_release(r):
    """OPT = ceil(r) + Delta (Konig), and so is LP-A; lp-deadline-greedy (one coflow: the
    greedy) stays within its per-coflow bound a + 1 + 2 (Delta - 1)."""
    inst = kdd(3, release=r)
    a = int(np.ceil(r))
    assert close(lp_a_bound(inst).value, a + 3)
    assert integral_optimum(inst) == a + 3
    s = lp_deadline_greedy(inst)
    rep = checked_schedule(inst, s)
    assert rep.weighted_completion_time <= a + 1 + 2 * (3 - 1)


def test_lp_a_is_not_a_fluid_bound():
    """One flow of 3 units on capacity 2: fluid OPT 1.5, integral OPT 2 = LP-A (so LP-A is
    claimed for the integral model only)."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)])], ingress_capacity=[2.0],
                                 egress_capacity=[2.0])
    res = lp_a_bound(inst)
    assert close(res.value, 2) and res.extra["bounds_model"].startswith("integral optimum")
    exact = get_algorithm("exact", "bnb").func(inst)
    assert exact.kind == "optimal" and float(exact.value) == 1.5


# ------------------------------------------------------------------- digest 8.3 #2: one machine
def test_single_machine_unit_jobs_lp_equals_smith():
    """Every coflow a copy of the pair (0, 0), p_j = 1: LP-A = OPT = Smith's rule."""
    w = [3.0, 1.0, 2.0, 5.0]
    inst = Instance.from_coflows([Coflow(f"J{j}", [(0, 0, 1)], weight=w[j]) for j in range(4)])
    smith = sum(wj * (i + 1) for i, wj in enumerate(sorted(w, reverse=True)))
    assert integral_optimum(inst) == smith
    assert close(lp_a_bound(inst).value, smith)
    s = lp_deadline_greedy(inst)
    assert checked_schedule(inst, s).weighted_completion_time == smith


def test_single_machine_general_jobs():
    """p_j copies of (0, 0): LP-A <= LP-B <= OPT = Smith's rule (by w / p)."""
    p, w = [3, 1, 2], [1.0, 1.0, 4.0]
    inst = Instance.from_coflows([Coflow(f"J{j}", [(0, 0, p[j])], weight=w[j])
                                  for j in range(3)])
    order = sorted(range(3), key=lambda j: -w[j] / p[j])
    t, smith = 0, 0.0
    for j in order:
        t += p[j]
        smith += w[j] * t
    assert integral_optimum(inst) == smith
    a, b = lp_a_bound(inst).value, lp_b_bound(inst).value
    assert a <= b * (1 + TOL) and b <= smith


# ---------------------------------------------------------------- digest 8.3 #3: open shop
def test_concurrent_open_shop_private_pairs():
    """Machine i is the private pair (i, i); a job's operations are parallel copies."""
    p = [[2, 1, 0], [1, 2, 2], [0, 1, 3]]
    w = [2.0, 1.0, 1.0]
    inst = Instance.from_coflows([Coflow(f"J{j}", [(i, i, p[j][i]) for i in range(3)
                                                    if p[j][i]], weight=w[j])
                                  for j in range(3)])
    opt = integral_optimum(inst)
    # preemption does not help in concurrent open shop: the best permutation
    import itertools
    best = min(sum(w[j] * max(sum(p[k][i] for k in perm[:perm.index(j) + 1]) if p[j][i] else 0
                              for i in range(3)) for j in range(3))
               for perm in itertools.permutations(range(3)))
    assert opt == best
    assert lp_a_bound(inst).value <= lp_b_bound(inst).value * (1 + TOL) <= opt
    assert checked_schedule(inst, lp_deadline_greedy(inst)).weighted_completion_time >= opt


# ------------------------------------------------------------ digest 8.3 #4: greedy tightness
def test_greedy_tightness_gadget_meets_the_ordered_load_bound():
    """e = (u, v) last; one earlier edge at u, one at v, kept in different slots by an even
    earlier edge at the v-edge's ingress: e lands in slot 2D - 1 = 3 (D = 2), exactly the
    bound a + 1 + (H_u - 1) + (H_v - 1) of lemma 1."""
    # ingress x1 = 0, u = 1; egress y1 = 0, y2 = 1, v = 2
    inst = Instance.from_coflows([Coflow("P", [(0, 1, 1)]), Coflow("Q", [(1, 0, 1)]),
                                  Coflow("R", [(0, 2, 1)]), Coflow("J", [(1, 2, 1)])])
    order = [0, 1, 2, 3]
    s = slotted_greedy(inst, "order", order=order)
    rep = checked_schedule(inst, s)
    assert rep.coflow_completion[3] == 3
    assert ordered_load_bound(inst, order).tolist()[3] == 3
    assert all(c <= b for c, b in zip(rep.coflow_completion, ordered_load_bound(inst, order)))


# ------------------------------------------------------- digest 8.3 #5: deadline-load example
def test_deadline_load_example_lp_b_above_lp_a():
    """(a,x), (a,y) in J1 (weight 1); (b,x) in J2 and (c,y) in J3 (weight 10).  LP-A lets J1
    finish at 2 (every port's load condition holds): 22; LP-B cannot (x and y are full in slot
    1 in the LP too): 22.5; OPT 23 (J2, J3 in slot 1, J1's edges in slots 2 and 3)."""
    inst = Instance.from_coflows([Coflow("J1", [(0, 0, 1), (0, 1, 1)], weight=1),
                                  Coflow("J2", [(1, 0, 1)], weight=10),
                                  Coflow("J3", [(2, 1, 1)], weight=10)])
    assert close(lp_a_bound(inst).value, 22)
    assert close(lp_b_bound(inst).value, Fraction(45, 2))
    assert integral_optimum(inst) == 23
    assert checked_schedule(inst, lp_deadline_greedy(inst)).weighted_completion_time == 23
    assert checked_schedule(inst, lp_deadline_greedy(inst, lp="b")).weighted_completion_time \
        == 23


# ---------------------------------------------------------- digest 8.3 #6: release gadgets
def test_release_gadget():
    """A late, light coflow among early heavy ones: the r_k term of the bound."""
    inst = Instance.from_coflows([Coflow("H1", [(0, 0, 4), (1, 1, 4)]),
                                  Coflow("H2", [(0, 1, 3), (1, 0, 3)]),
                                  Coflow("L", [(0, 0, 1)], release=3, weight=5)])
    opt = integral_optimum(inst)
    pieces = lp_deadline_pieces(inst)
    assert pieces.factor == 5
    s = lp_deadline_greedy(inst)
    v = checked_schedule(inst, s).weighted_completion_time
    assert opt <= v <= pieces.expectation <= 5 * pieces.lp_value * (1 + TOL)
    assert lp_a_bound(inst).value <= opt


# ------------------------------------------------------------------------ certificates
def test_certificates_recheck_and_refuse_tampering():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)], weight=2),
                                  Coflow("B", [(0, 1, 1), (1, 0, 3)], release=1),
                                  Coflow("C", [(1, 1, 2)], weight=0.5)])
    for f in (lp_a_bound, lp_b_bound):
        res = f(inst)
        chk = check_certificate(inst, res.certificate, repair=True)
        assert chk.ok and chk.value == res.value
        bad = LPCertificate(formulation=res.certificate.formulation,
                            params=res.certificate.params,
                            row_duals=np.asarray(res.certificate.row_duals) * 3.0,
                            claimed_value=float(res.value) * 3)
        assert not check_certificate(inst, bad, repair=False).ok


def test_weighted_cct_and_slot_length():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], weight=2, release=1),
                                  Coflow("B", [(0, 1, 1)], release=0.5)])
    a = lp_a_bound(inst)
    c = lp_a_bound(inst, objective="weighted_cct")
    assert close(a.value - c.value, 2 * 1 + 1 * 0.5)
    # slot 0.5 with capacity 2: one unit per half slot
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 2)])], ingress_capacity=[2.0],
                                  egress_capacity=[2.0])
    assert close(lp_a_bound(inst2, slot=0.5).value, 1)
    s = lp_deadline_greedy(inst2, slot=0.5)
    assert s.slot == 0.5 and checked_schedule(inst2, s).weighted_completion_time == 1


def test_big_switch_as_paths_same_values():
    """A big switch written as paths gives the same LP values and the same schedule."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)], weight=2),
                                  Coflow("B", [(0, 1, 1), (1, 0, 3)], release=1),
                                  Coflow("C", [(1, 1, 2), (0, 0, 1)], weight=0.5)])
    paths = big_switch_as_paths(inst)
    assert not paths.is_big_switch
    for f in (lp_a_bound, lp_b_bound):
        assert close(f(inst).value, f(paths).value)
    s1, s2 = lp_deadline_greedy(inst), lp_deadline_greedy(paths)
    assert s1.same_as(s2)
    assert verify_slotted(inst, s1).weighted_completion_time == \
        verify_slotted(paths, s2).weighted_completion_time


def test_tau_and_seed_modes():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)], weight=2),
                                  Coflow("B", [(0, 1, 1), (1, 0, 3)]),
                                  Coflow("C", [(1, 1, 2)], weight=0.5)])
    best = lp_deadline_greedy(inst)
    pieces = lp_deadline_pieces(inst)
    vb = checked_schedule(inst, best).weighted_completion_time
    assert vb == min(pieces.costs) <= pieces.expectation
    for tau in (0.1, 0.5, 1.0):
        s = lp_deadline_greedy(inst, tau=tau)
        assert checked_schedule(inst, s).weighted_completion_time >= vb
        assert s.meta["tau"] == tau
    s1, s2 = lp_deadline_greedy(inst, seed=3), lp_deadline_greedy(inst, seed=3)
    assert s1.same_as(s2) and s1.meta["seed"] == 3 and 0 < s1.meta["tau"] <= 1
    with pytest.raises(ValueError):
        lp_deadline_greedy(inst, tau=0.0)
    with pytest.raises(ValueError):
        lp_deadline_greedy(inst, tau=0.5, seed=1)


# ------------------------------------------------------------------------ properties
def check_pieces(inst, lp="a", opt=None, epsilon=None):
    """Every executable step of proofs/lp-deadline-greedy.md on one instance."""
    P = lp_deadline_pieces(inst, lp=lp, epsilon=epsilon)
    X = P.X
    bnd = P.boundaries
    K, T = X.shape
    first = first_slots(inst)
    w = [Fraction(float(v)) for v in inst.weight.tolist()]
    # mean identity: int_0^1 D_k(tau) dtau = sum_t t x_kt (exactly, piecewise constant)
    a = 0.0
    mean = [Fraction(0)] * K
    for b, order in zip(P.ends.tolist(), P.orders):
        D = tau_deadlines(X, b, bnd)
        assert tuple(np.lexsort((np.arange(K), D)).tolist()) == order
        for k in range(K):
            mean[k] += (Fraction(b) - Fraction(a)) * int(D[k])
        sched = P.schedules[order]
        rep = verify_slotted(inst, sched)
        assert rep.ok, rep.summary()
        C = [int(c) for c in rep.coflow_completion]
        bound = ordered_load_bound(inst, list(order))
        assert all(c <= int(bo) for c, bo in zip(C, bound)), (C, bound.tolist())
        # load lemma: H_q <= c_q D_k / tau (LP rows hold to the solver's tolerance)
        size = inst.flow_size
        ptr, res = inst.flow_resource_ptr, inst.flow_resource
        load = np.zeros((K, inst.num_resources))
        np.add.at(load, (np.repeat(inst.flow_coflow, np.diff(ptr)), res),
                  np.repeat(size, np.diff(ptr)))
        pos = np.empty(K, dtype=np.int64)
        pos[list(order)] = np.arange(K)
        H = np.cumsum(load[list(order)], axis=0)[pos]
        assert np.all(H <= inst.capacity[None, :] * D[:, None] / b * (1 + 1e-7) + 1e-7)
        # the per-tau bound in the proof's form: C_k <= a_k + 1 + L_k D_k / tau
        L = np.diff(ptr).max()
        assert all(C[k] <= first[k] + 1 + L * D[k] / b * (1 + 1e-7) for k in range(K))
        assert rep.weighted_completion_time == P.costs[P.orders.index(order)]
        a = b
    # int D = sum_l b_l x_kl; on unit slots = T - sum_{t<T} X_kt = Cbar_k, the LP's term
    means = [sum(int(bnd[l + 1]) * (Fraction(X[k, l]) - (Fraction(X[k, l - 1]) if l else 0))
                 for l in range(T)) for k in range(K)]
    assert mean == means
    if epsilon is None:
        cbar = [T - sum(Fraction(v) for v in X[k, :-1].tolist()) for k in range(K)]
        assert means == cbar and P.lp_value == sum(wk * c for wk, c in zip(w, cbar))
    else:
        assert P.lp_value * grid_stretch(bnd) >= sum(wk * m for wk, m in zip(w, means))
    # best piece <= expectation <= rho LP; LP bound <= OPT <= best piece
    best = min(P.costs)
    assert best <= P.expectation
    assert P.expectation <= P.factor * P.lp_value * (1 + TOL)
    assert P.factor == guarantee_factor(inst, stretch=grid_stretch(bnd))
    if opt is not None:
        assert P.bound.value <= opt <= best
    return P


@st.composite
def integral_instances(draw, max_ports=3, max_coflows=4, max_flows=3, caps=(1,),
                       releases=True):
    m = draw(st.integers(1, max_ports), label="ports")
    K = draw(st.integers(1, max_coflows), label="coflows")
    cofs = []
    for k in range(K):
        nf = draw(st.integers(1, max_flows))
        flows = [(draw(st.integers(0, m - 1)), draw(st.integers(0, m - 1)),
                  draw(st.integers(1, 3))) for _ in range(nf)]
        w = draw(st.sampled_from([1.0, 2.0, 0.5, 3.0]))
        r = draw(st.integers(0, 3)) if releases and draw(st.booleans()) else 0
        cofs.append(Coflow(f"c{k}", flows, weight=w, release=r))
    cap = [float(draw(st.sampled_from(caps))) for _ in range(2 * m)]
    return Instance.from_coflows(cofs, ingress_capacity=cap[:m], egress_capacity=cap[m:])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=integral_instances())
def test_property_unit_capacity_chain(inst):
    """LP-A <= LP-B <= integral OPT <= lp-deadline-greedy <= E_{2tau} <= rho LP (rho = 4 with
    zero releases, 5 with releases, on a unit-capacity big switch)."""
    opt = integral_optimum(inst, time_limit=20)
    a, b = lp_a_bound(inst), lp_b_bound(inst)
    assert a.kind == b.kind == "lower_bound"
    assert a.value <= b.value * (1 + TOL) + TOL
    if opt is not None:
        assert b.value <= opt
    assert guarantee_factor(inst) == (4 if not np.any(inst.release > 0) else 5)
    for lp in ("a", "b"):
        check_pieces(inst, lp, opt)
    s = lp_deadline_greedy(inst)
    v = checked_schedule(inst, s).weighted_completion_time
    if opt is not None:
        assert opt <= v


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=integral_instances(caps=(1, 2, 3), max_flows=2))
def test_property_capacities_chain(inst):
    """Whole capacities above 1: the (2L + 1) = 5 form."""
    opt = integral_optimum(inst, time_limit=20)
    P = check_pieces(inst, "a", opt)
    assert P.factor in (4, 5)


def test_property_on_topologies():
    """Paths of up to 4 links on a leaf-spine made integral (whole capacities per slot): the
    2L / 2L + 1 form, every piece checked, LP <= integral OPT <= ALG."""
    from coflowopt.testing import integral_version
    from coflowopt.topology import leaf_spine, on_topology
    rng = np.random.default_rng(5)
    topo = leaf_spine(2, 2, 2, oversubscription=2)
    for trial in range(3):
        cofs = []
        for k in range(3):
            flows = []
            for _ in range(2):
                src = int(rng.integers(0, 4))
                dst = int((src + rng.integers(1, 4)) % 4)
                flows.append((src, dst, int(rng.integers(1, 3))))
            cofs.append(Coflow(f"c{k}", flows, weight=float(rng.integers(1, 3)),
                               release=int(rng.integers(0, 2))))
        inst = integral_version(on_topology(Instance.from_coflows(cofs), topo))
        assert not inst.is_big_switch
        opt = integral_optimum(inst, time_limit=20)
        P = check_pieces(inst, "a", opt)
        L = int(np.diff(inst.flow_resource_ptr).max())
        assert P.factor in (2 * L, 2 * L + 1)
        assert checked_schedule(inst, lp_deadline_greedy(inst, lp="b")).ok


# ------------------------------------------------------------------- geometric intervals
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0])
def test_geometric_boundaries(eps):
    for T in (1, 2, 7, 40, 333):
        b = geometric_boundaries(T, eps)
        assert b[0] == 0 and b[-1] == T and np.all(np.diff(b) >= 1)
        assert all(Fraction(int(b[i])) <= (1 + Fraction(eps)) * (int(b[i - 1]) + 1)
                   for i in range(1, b.size))
        assert grid_stretch(b) <= 1 + Fraction(eps)
    assert grid_stretch(np.arange(9)) == 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=integral_instances(), eps=st.sampled_from([0.25, 0.5, 1.0]))
def test_property_geometric_intervals(inst, eps):
    """On intervals (1 + eps)^l: LP <= the unit-slot LP (a relaxation of it) <= OPT, a
    certificate that re-checks, and E <= rho(eps) LP with rho = 2L stretch (+ 1)."""
    opt = integral_optimum(inst, time_limit=20)
    for f in (lp_a_bound, lp_b_bound):
        g, u = f(inst, epsilon=eps), f(inst)
        assert g.value <= u.value * (1 + TOL) + TOL
        assert check_certificate(inst, g.certificate).value == g.value
        assert g.params["intervals"] <= u.params["intervals"]
    P = check_pieces(inst, "a", opt, epsilon=eps)
    assert P.factor <= guarantee_factor(inst) + 4 * Fraction(eps)
    s = lp_deadline_greedy(inst, epsilon=eps, lp="b")
    v = checked_schedule(inst, s).weighted_completion_time
    if opt is not None:
        assert opt <= v
