"""Iterative MADD with backfilling (Varys Pseudocode 1): worked examples, the single-coflow
guarantee, the compiled kernel against the generic simulator and against an independent
plain-Python allocation, and the cost model (reallocation at coflow events only)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.rates.madd import MaddPolicy, madd
from coflowopt.simulate import SimState
from coflowopt.verify import verify_schedule

BACKFILLS = ["varys", "coflowsim", None]


def shuffle_3x2():
    # dissertation Fig. 3.2 / E3: s1, s2 send 1 to each receiver, s3 sends 2 to each
    return Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1),
                                                (2, 0, 2), (2, 1, 2)])])


def e4_family(n: int):
    # dissertation E4 (Fig. 4.6 family): n small senders with 1 unit per receiver, one big
    # sender with n units per receiver, 2 receivers.  MADD 2n, per-flow fairness 3n - 1.
    flows = [(i, j, 1) for i in range(n) for j in range(2)] + [(n, 0, n), (n, 1, n)]
    return Instance.from_coflows([Coflow("E4", flows)])


def fig_b2():
    # dissertation Fig. B.2 / E9: C1 = {P1->E1, P1->E2}, C2 = {P2->E1, P2->E2}, unit flows
    return Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
                                  Coflow("C2", [(1, 0, 1), (1, 1, 1)])])


def fig_5_1():
    # dissertation Fig. 5.1 / E5 (ingress contention only: one egress per flow)
    return Instance.from_coflows([Coflow("C1", [(0, 0, 1), (1, 1, 2), (2, 2, 4)]),
                                  Coflow("C2", [(0, 3, 2), (1, 4, 2)])])


def verified(inst, sched, exact=False):
    rep = verify_schedule(inst, sched).raise_if_invalid()
    if exact:
        verify_schedule(inst, sched, mode="exact").raise_if_invalid()
    return rep


@st.composite
def random_instances(draw, max_ports=4, max_coflows=6, heterogeneous=True, deadlines=False):
    """Small random instances (shared with the other rate/policy tests)."""
    m_in = draw(st.integers(1, max_ports))
    m_out = draw(st.integers(1, max_ports))
    K = draw(st.integers(1, max_coflows))
    integral = draw(st.booleans())
    sizes = st.integers(1, 8).map(float) if integral else \
        st.floats(0.1, 8, allow_nan=False, allow_infinity=False)
    cofs = []
    for k in range(K):
        flows = [(draw(st.integers(0, m_in - 1)), draw(st.integers(0, m_out - 1)), draw(sizes))
                 for _ in range(draw(st.integers(1, 5)))]
        rel = float(draw(st.integers(0, 3))) if draw(st.booleans()) else 0.0
        dl = rel + float(draw(st.integers(1, 30))) if deadlines and draw(st.booleans()) else None
        cofs.append(Coflow(f"c{k}", flows, release=rel, deadline=dl))
    het = heterogeneous and draw(st.booleans())
    cap = st.sampled_from([0.5, 1.0, 2.0])
    cin = [draw(cap) if het else 1.0 for _ in range(m_in)]
    cout = [draw(cap) if het else 1.0 for _ in range(m_out)]
    inst = Instance.from_coflows(cofs, ingress_capacity=cin, egress_capacity=cout)
    return inst, list(draw(st.permutations(range(K))))


# ------------------------------------------------------------------------------ examples
@pytest.mark.parametrize("backfill", BACKFILLS)
def test_shuffle_3x2_finishes_at_gamma_4(backfill):
    inst = shuffle_3x2()
    s = madd(inst, [0], backfill=backfill)
    rep = verified(inst, s, exact=True)
    assert rep.coflow_completion.tolist() == [4.0]
    assert rep.flow_completion.tolist() == [4.0] * 6       # every flow ends together
    assert s.num_pieces == 6                                # one rate per flow, never changed


@pytest.mark.parametrize("n", [2, 3, 4, 10, 100])
def test_e4_family_madd_is_2n(n):
    inst = e4_family(n)
    rep = verified(inst, madd(inst, [0]))
    assert rep.coflow_completion[0] == pytest.approx(2 * n, rel=1e-12)


@pytest.mark.parametrize("backfill", BACKFILLS)
@pytest.mark.parametrize("order", [[0, 1], [1, 0]])
def test_fig_b2_iterative_madd_interleaves(order, backfill):
    # C1 first at 1/2 per flow leaves half of E1 and E2 to C2: both finish at 2 (the optimum;
    # every permutation schedule gives (2, 3))
    inst = fig_b2()
    rep = verified(inst, madd(inst, order, backfill=backfill), exact=True)
    assert rep.coflow_completion.tolist() == [2.0, 2.0]


def test_fig_5_1_order_c2_c1_is_optimal():
    # "optimal 3 / 3: finishing flows in the coflow order (C2 followed by C1)"
    inst = fig_5_1()
    rep = verified(inst, madd(inst, [1, 0]), exact=True)
    assert rep.coflow_completion.tolist() == [4.0, 2.0]
    assert rep.average_cct == 3.0
    assert float(np.mean(rep.flow_completion)) == 3.0
    # without work conservation C1 waits for C2 and then takes its Gamma 4 alone
    rep0 = verified(inst, madd(inst, [1, 0], backfill=None), exact=True)
    assert rep0.coflow_completion.tolist() == [6.0, 2.0]


def test_starved_coflow_gets_rate_only_from_backfilling():
    # A holds ingress 0 for 4 time units; B needs ingress 0 and egress 1: MADD gives B
    # nothing (Gamma = inf on the residual); backfilling has nothing to give either (ingress 0
    # is full), so B starts at 4.  C (ingress 1 -> egress 1) is not blocked.
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)]), Coflow("B", [(0, 1, 1)]),
                                  Coflow("C", [(1, 1, 2)])])
    for bf in BACKFILLS:
        rep = verified(inst, madd(inst, [0, 1, 2], backfill=bf), exact=True)
        assert rep.coflow_completion.tolist() == [4.0, 5.0, 2.0]


def test_coflowsim_rule_gives_skipped_coflows_a_fair_share():
    # A takes all of ingress 0 (Gamma 2).  B and C both need ingress 0 (skipped: Gamma inf)
    # but also have a flow at ingress 1 / egress 1, where B and C share fairly under the
    # coflowsim rule (1/2 each), while the Varys rule serves them in order (B first, full).
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]),
                                  Coflow("B", [(0, 1, 2), (1, 2, 2)]),
                                  Coflow("C", [(0, 1, 2), (1, 2, 2)])], num_egress=3)
    s_cs = madd(inst, [0, 1, 2], backfill="coflowsim")
    s_vr = madd(inst, [0, 1, 2], backfill="varys")
    first_rate = {}
    for name, s in (("coflowsim", s_cs), ("varys", s_vr)):
        verified(inst, s, exact=True)
        at0 = {int(f): float(r) for f, st_, r in zip(s.flow, s.start, s.rate) if st_ == 0}
        first_rate[name] = (at0.get(2, 0.0), at0.get(4, 0.0))
    assert first_rate["coflowsim"] == (0.5, 0.5)
    assert first_rate["varys"] == (1.0, 0.0)


# ------------------------------------------------------------------------------ guarantees
@st.composite
def single_coflows(draw):
    m_in, m_out = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    flows = [(draw(st.integers(0, m_in - 1)), draw(st.integers(0, m_out - 1)),
              float(draw(st.integers(1, 20)))) for _ in range(draw(st.integers(1, 12)))]
    return Instance.from_coflows([Coflow("X", flows)], num_ingress=m_in, num_egress=m_out)


@given(single_coflows(), st.sampled_from(BACKFILLS))
def test_single_coflow_finishes_at_rho(inst, backfill):
    rep = verified(inst, madd(inst, [0], backfill=backfill))
    assert rep.coflow_completion[0] == pytest.approx(float(inst.rho[0]), rel=1e-12)


@given(random_instances(), st.sampled_from(BACKFILLS))
def test_kernel_equals_generic_simulator(case, backfill):
    inst, order = case
    a = madd(inst, order, backfill=backfill, engine="kernel")
    b = madd(inst, order, backfill=backfill, engine="python")
    ra, rb = verified(inst, a), verified(inst, b)
    np.testing.assert_allclose(ra.coflow_completion, rb.coflow_completion, rtol=1e-9)
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-9)
    # the cost model: the policy is called at releases and coflow completions only (plus a
    # flow-completion step when no coflow can complete under the current rates)
    assert a.meta["policy_calls"] == b.meta["policy_calls"]


@given(random_instances())
def test_first_coflow_of_the_order_gets_its_rho_when_alone(case):
    inst, order = case
    inst = inst.with_releases(0.0)
    rep = verified(inst, madd(inst, order))
    k = order[0]
    # the top coflow is never slowed by the others (it allocates first, on the full capacity)
    assert rep.coflow_completion[k] <= float(inst.rho[k]) * (1 + 1e-9)


# ------------------------------------------------------------------------------ reference
def _fill(groups, res, tol):
    """Independent weighted progressive filling: groups = [(weight, port_a, port_b)]."""
    rate = [0.0] * len(groups)
    live = [w > 0 and res[a] > tol and res[b] > tol for w, a, b in groups]
    res = dict(res)
    while any(live):
        wsum = {}
        for g, (w, a, b) in enumerate(groups):
            if live[g]:
                wsum[a] = wsum.get(a, 0.0) + w
                wsum[b] = wsum.get(b, 0.0) + w
        step = min(res[p] / s for p, s in wsum.items())
        for g, (w, a, b) in enumerate(groups):
            if live[g]:
                rate[g] += w * step
        for p, s in wsum.items():
            res[p] -= s * step
        for g, (w, a, b) in enumerate(groups):
            if live[g] and (res[a] <= tol or res[b] <= tol):
                live[g] = False
    return rate


def reference_allocation(inst, order, rem, backfill, tol=1e-12):
    """Pseudocode 1 (allocBandwidth + backfilling) written plainly, from the module's rules."""
    cap = {p: float(c) for p, c in enumerate(inst.capacity)}
    res = dict(cap)
    src, dst = inst.flow_src, inst.flow_egress_port
    rate = {}
    gammas = []
    for k in order:
        fl = [f for f in range(inst.flow_ptr[k], inst.flow_ptr[k + 1]) if rem[f] > 0]
        load = {}
        for f in fl:
            load[src[f]] = load.get(src[f], 0.0) + rem[f]
            load[dst[f]] = load.get(dst[f], 0.0) + rem[f]
        if any(res[p] <= tol for p in load):
            gammas.append(math.inf)
            continue
        g = max(load[p] / res[p] for p in load)
        gammas.append(g)
        for f in fl:
            r = min(rem[f] / g, res[src[f]], res[dst[f]])
            rate[f] = rate.get(f, 0.0) + r
            res[src[f]] = max(0.0, res[src[f]] - r)
            res[dst[f]] = max(0.0, res[dst[f]] - r)
    if backfill == "varys":
        for k in order:
            fl = [f for f in range(inst.flow_ptr[k], inst.flow_ptr[k + 1]) if rem[f] > 0]
            pairs = {}
            for f in fl:
                pairs.setdefault((int(src[f]), int(dst[f])), []).append(f)
            keys = list(pairs)
            groups = [(sum(rem[f] for f in pairs[key]), key[0], key[1]) for key in keys]
            got = _fill(groups, res, tol)
            for key, (w, a, b), amount in zip(keys, groups, got):
                if amount <= 0:
                    continue
                for f in pairs[key]:
                    rate[f] = rate.get(f, 0.0) + amount * rem[f] / w
                res[a] = max(0.0, res[a] - amount)
                res[b] = max(0.0, res[b] - amount)
    elif backfill == "coflowsim":
        skipped = [f for k, g in zip(order, gammas) if math.isinf(g)
                   for f in range(inst.flow_ptr[k], inst.flow_ptr[k + 1])
                   if rem[f] > 0 and res[src[f]] > tol and res[dst[f]] > tol]
        n = {}
        for f in skipped:
            n[src[f]] = n.get(src[f], 0) + 1
            n[dst[f]] = n.get(dst[f], 0) + 1
        share = {f: min(res[src[f]] / n[src[f]], res[dst[f]] / n[dst[f]]) for f in skipped}
        for f, x in share.items():
            if x > tol:
                rate[f] = rate.get(f, 0.0) + x
                res[src[f]] -= x
                res[dst[f]] -= x
        res = {p: max(0.0, v) for p, v in res.items()}
        for k in order:
            for f in range(inst.flow_ptr[k], inst.flow_ptr[k + 1]):
                if rem[f] > 0:
                    a = min(res[src[f]], res[dst[f]])
                    if a > tol:
                        rate[f] = rate.get(f, 0.0) + a
                        res[src[f]] -= a
                        res[dst[f]] -= a
    return {f: r for f, r in rate.items() if r > 0}


def random_state(inst, data):
    """A state with every coflow released and each flow done, half or a quarter sent, or
    untouched."""
    frac = data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=inst.num_flows,
                              max_size=inst.num_flows))
    rem = inst.flow_size * np.asarray(frac)
    alive = np.flatnonzero([rem[inst.flow_ptr[k]:inst.flow_ptr[k + 1]].sum() > 0
                            for k in range(inst.num_coflows)])
    return SimState(inst, 0.0, rem, inst.flow_size - rem, np.ones(inst.num_coflows, bool),
                    np.zeros(inst.num_coflows, bool), rem == 0, alive,
                    np.flatnonzero(rem > 0), np.full(inst.num_coflows, np.nan))


@given(random_instances(), st.sampled_from(["varys", "coflowsim"]), st.data())
def test_backfilled_allocation_is_work_conserving(case, backfill, data):
    # after backfilling, every unfinished flow of an active coflow has a full port
    inst, order = case
    state = random_state(inst, data)
    pol = MaddPolicy(order, backfill=backfill)
    pol.reset(inst)
    flows, rates = pol.allocate(state)
    load = np.zeros(inst.num_ports)
    np.add.at(load, inst.flow_src[flows], rates)
    np.add.at(load, inst.flow_egress_port[flows], rates)
    cap = inst.capacity
    assert np.all(load <= cap * (1 + 1e-9))
    full = load >= cap * (1 - 1e-9)
    waiting = state.active_flows
    assert np.all(full[inst.flow_src[waiting]] | full[inst.flow_egress_port[waiting]])


@given(random_instances(), st.sampled_from(BACKFILLS), st.data())
def test_kernel_allocation_equals_plain_reference(case, backfill, data):
    inst, order = case
    state = random_state(inst, data)
    rem, alive = state.remaining, state.active_coflows
    pol = MaddPolicy(order, backfill=backfill)
    pol.reset(inst)
    flows, rates = pol.allocate(state)
    got = dict(zip(flows.tolist(), rates.tolist()))
    ranked = [k for k in order if k in set(alive.tolist())]
    want = reference_allocation(inst, ranked, rem, backfill)
    assert set(got) == set(want)
    for f in want:
        assert got[f] == pytest.approx(want[f], rel=1e-9, abs=1e-12)


# ------------------------------------------------------------------------------ parameters
@given(random_instances(), st.sampled_from(["varys", "coflowsim", None]))
def test_a_piece_ends_only_when_its_rate_changes(case, backfill):
    # consecutive pieces of a flow that touch have rates that differ by more than the snap
    # (a recomputed rate equal up to rounding keeps the piece open)
    from coflowopt.rates.madd import SNAP_RTOL
    inst, order = case     # madd: a static order (Varys re-ranks and does not snap)
    s = madd(inst, order, backfill=backfill).sorted()
    touch = (s.flow[1:] == s.flow[:-1]) & (s.start[1:] == s.end[:-1])
    a, b = s.rate[:-1][touch], s.rate[1:][touch]
    assert np.all(np.abs(a - b) > SNAP_RTOL * np.maximum(a, b))


def test_bad_parameters_are_named():
    inst = fig_b2()
    with pytest.raises(InvalidParameterError, match="backfill"):
        madd(inst, [0, 1], backfill="greedy")
    with pytest.raises(InvalidParameterError, match="engine"):
        madd(inst, [0, 1], engine="fast")
    with pytest.raises(InvalidParameterError, match="repeats"):
        madd(inst, [0, 0])


def test_reallocates_only_at_coflow_events():
    rng = np.random.default_rng(3)
    cofs = [Coflow(f"c{k}", [(int(rng.integers(0, 4)), int(rng.integers(0, 4)),
                               float(rng.integers(1, 9))) for _ in range(12)],
                   release=float(k // 4)) for k in range(40)]
    inst = Instance.from_coflows(cofs, num_ingress=4, num_egress=4)
    s = madd(inst, np.argsort(inst.rho, kind="stable"))
    verified(inst, s)
    assert s.meta["policy_calls"] <= 2 * inst.num_coflows + 1


def test_exact_fraction_sizes_verify_exactly():
    # dyadic sizes keep every MADD rate and time a float exactly: the exact verifier agrees
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.5), (1, 0, 0.5)]),
                                  Coflow("B", [(0, 1, 1.5)], release=0.125)])
    rep = verify_schedule(inst, madd(inst, [0, 1]), mode="exact")
    assert rep.ok
    assert isinstance(rep.weighted_completion_time, Fraction)


@pytest.mark.slow
@pytest.mark.parametrize("zero_release", [False, True])
def test_fb_trace_sebf_madd_verifies(fb_trace_path, zero_release):
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path)
    if zero_release:
        inst = inst.with_releases(0.0)
    s = madd(inst, np.argsort(inst.rho, kind="stable"))
    rep = verify_schedule(inst, s)
    assert rep.ok, rep.summary()
    assert s.meta["policy_calls"] <= 2 * inst.num_coflows + 1


def test_madd_scratch_types_do_not_depend_on_the_sizes():
    """numba types an array that is both C- and F-contiguous (one row) as C: scratch of one
    flow, port or group once compiled ``_madd_allocate_indexed`` a second time."""
    numba = pytest.importorskip("numba")
    from coflowopt.rates import _madd_kernel as k

    def types(scratch):
        return [numba.typeof(a) for a in scratch]

    assert types(k.madd_scratch(1, 1, 1)) == types(k.madd_scratch(7, 5, 3))
    assert types(k.madd_scratch(1, 2, 0)) == types(k.madd_scratch(7, 5, 3))
    assert (types(k.madd_scratch_paths(1, 1, 1, 1))
            == types(k.madd_scratch_paths(7, 5, 3, 9)))
