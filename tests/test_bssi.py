"""BSSI (Sincronia Algorithms 1 and 3) and its dual lower bound: the published example (Fig. 1,
Fig. 2, Table 2), the seeds digest's traces T-S3 and T-S4, release dates, weights,
heterogeneous capacities, and the Mastrolilli et al. equivalence."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.orderings import best_order_search, bssi, bssi_dual_bound, bssi_trace, mastrolilli
from coflowopt.rates import greedy
from coflowopt.testing import digest_ts3, digest_ts4, instances, sincronia_fig1
from coflowopt.verify import verify_schedule

F = Fraction


# ---------------------------------------------------------------------------------- instances
fig1 = sincronia_fig1          # sizes scaled to integers by eps's denominator
ts3, ts4 = digest_ts3, digest_ts4


def library_or(name, fallback):
    """The instance library entry if it exists (another module owns it), else ``fallback``."""
    try:
        from coflowopt.library import load_instance
        return load_instance(name)
    except Exception:
        return fallback


# ---------------------------------------------------------------------------------- Table 2
def table2(eps):
    """Table 2 of the tech report: (k, b (1-based [2m] numbering), sigma(k), weights after)."""
    e = Fraction(eps)
    return [(5, 4, "C5", [e / (2 + e), 1, 1, 1, 0]),
            (4, 3, "C1", [0, 1, 1, 1 - e / 2, 0]),
            (3, 3, "C4", [0, 1, 1, 0, 0]),
            (2, 2, "C3", [0, 1, 0, 0, 0]),
            (1, 1, "C2", [0, 0, 0, 0, 0])]


@pytest.mark.parametrize("eps", [F(0), F(1, 100), F(1, 7)])
def test_table2_step_by_step_exact(eps):
    inst = fig1(eps)
    t = bssi_trace(inst, exact=True, tie_break="paper")
    rows = [(r["k"], r["b"], inst.coflow_ids[r["coflow"]], list(r["weights"]))
            for r in t.steps()]
    assert rows == table2(eps)
    assert [inst.coflow_ids[k] for k in t.order] == ["C2", "C3", "C4", "C1", "C5"]
    if eps == F(1, 100):  # the printed values at epsilon = 0.01
        assert t.weights[0][0] == F(1, 201) and t.weights[1][3] == F(199, 200)


@pytest.mark.parametrize("name,eps", [("papers/sincronia-fig1", 0.0),
                                      ("papers/sincronia-fig1-eps0.01", 0.01)])
def test_table2_in_floats(name, eps):
    fallback = fig1(F(eps).limit_denominator(100)).scaled(1 / (100 if eps else 1), 1)
    inst = library_or(name, fallback)
    t = bssi_trace(inst)
    assert [r["b"] for r in t.steps()] == [4, 3, 3, 2, 1]
    assert [inst.coflow_ids[k] for k in t.order] == ["C2", "C3", "C4", "C1", "C5"]
    for got, (_, _, _, want) in zip(t.weights, table2(F(eps).limit_denominator(100))):
        np.testing.assert_allclose(got.astype(float), [float(x) for x in want], rtol=1e-12,
                                   atol=1e-15)


def test_library_fig1_matches_the_construction():
    lib = library_or("papers/sincronia-fig1", None)
    if lib is None:
        pytest.skip("instance library entry papers/sincronia-fig1 not present")
    assert lib == fig1(0)
    for name, build in (("papers/sincronia-t-s3", ts3), ("papers/sincronia-t-s4", ts4)):
        entry = library_or(name, None)
        assert entry is None or entry == build()


def test_first_rule_differs_on_fig1():
    # the reference C++'s rule (first port, first coflow) takes ingress 1 and places C1 last
    inst = fig1(0)
    t = bssi_trace(inst, exact=True, tie_break="first")
    assert t.steps().__next__()["b"] == 1
    assert inst.coflow_ids[t.order[-1]] == "C1"


# ---------------------------------------------------------------------------------- Fig. 2
def average_cct(inst, order):
    rep = verify_schedule(inst, greedy(inst, order)).raise_if_invalid()
    rep_x = verify_schedule(inst, greedy(inst, order), mode="exact").raise_if_invalid()
    assert abs(float(rep_x.weighted_completion_time) - rep.weighted_completion_time) < 1e-12
    return rep.average_cct


def test_fig2_average_ccts_with_greedy_rates():
    inst = fig1(0)
    ids = inst.coflow_ids
    varys = [ids.index(c) for c in ("C1", "C2", "C3", "C4", "C5")]
    optimal = [ids.index(c) for c in ("C2", "C3", "C4", "C5", "C1")]
    assert average_cct(inst, varys) == pytest.approx(3.6, abs=1e-12)
    assert average_cct(inst, bssi(inst)) == pytest.approx(2.6, abs=1e-12)
    assert average_cct(inst, optimal) == pytest.approx(2.4, abs=1e-12)
    best = best_order_search(inst)
    assert best.objective / 5 == pytest.approx(2.4, abs=1e-12)
    assert [ids[k] for k in best.order] == ["C2", "C3", "C4", "C5", "C1"]


# ---------------------------------------------------------------------------------- bound
def test_dual_bound_fig1_eps001_equals_opt():
    inst = fig1(F(1, 100))                      # sizes x100: C1 flows 100, singles 201
    lb = bssi_dual_bound(inst, exact=True)
    assert lb.value_exact / 100 == F(1205, 100)  # 12.05
    assert lb.scale == 1
    optimal = [1, 2, 3, 4, 0]                    # C2..C5 at 2.01, C1 at 4.01
    rep = verify_schedule(inst, greedy(inst, optimal), mode="exact").raise_if_invalid()
    assert rep.weighted_completion_time == lb.value_exact   # LB = OPT = 12.05 (x100)
    # the float run certifies a bound within rounding of it
    lbf = bssi_dual_bound(inst)
    assert lbf.value_exact <= lb.value_exact and float(lbf.value_exact) == pytest.approx(1205)


def test_dual_bound_ts3_is_10_and_optimal():
    inst = ts3()
    lb = bssi_dual_bound(inst, exact=True)
    assert lb.value_exact == 10
    assert best_order_search(inst).objective == 10


def test_dual_bound_ts4_is_269_over_9():
    inst = ts4()
    lb = bssi_dual_bound(inst, exact=True)
    assert lb.value_exact == F(269, 9)
    assert bssi_dual_bound(inst).value == pytest.approx(269 / 9, rel=1e-12)
    assert best_order_search(inst).objective == 33        # strictly above the bound


# ---------------------------------------------------------------------------------- T-S3, T-S4
def test_ts3_trace():
    inst = ts3()
    for rule in ("paper", "first"):
        t = bssi_trace(inst, exact=True, tie_break=rule)
        assert t.order.tolist() == [0, 1, 2]                        # A, B, C
        assert [r["coflow"] for r in t.steps()] == [2, 1, 0]        # C last, then B, then A
        assert [r["beta"] for r in t.steps()] == [F(1, 3), F(1, 6), F(1, 2)]
        # step 1: E1 (load 6); step 2: I1 and E1 tie at 3 and both rules take I1 (the digest
        # writes E1, which its own "lowest id" rule contradicts; beta and the order do not
        # depend on it: A and B have the same loads at I1 and E1); step 3: I1 and E1 tie at 1
        assert [r["port"] for r in t.steps()] == [2, 0, 0]
        assert [list(r["weights"]) for r in t.steps()] == [[F(2, 3), F(1, 3), 0],
                                                           [F(1, 2), 0, 0], [0, 0, 0]]
    rep = verify_schedule(inst, greedy(inst, bssi(inst))).raise_if_invalid()
    assert rep.coflow_completion.tolist() == [1, 3, 6] and rep.weighted_completion_time == 10


def test_ts4_trace():
    inst = ts4()
    t = bssi_trace(inst, exact=True)
    assert t.order.tolist() == [0, 2, 1]                             # A, C, B
    assert [r["port"] for r in t.steps()] == [0, 3, 2]               # I1, E2, E1
    assert [r["beta"] for r in t.steps()] == [F(1, 9), F(4, 99), F(7, 54)]
    assert list(t.weights[0]) == [F(7, 9), 0, F(4, 9)]
    rep = verify_schedule(inst, greedy(inst, t.order)).raise_if_invalid()
    assert rep.coflow_completion.tolist() == [6, 16, 11] and rep.weighted_completion_time == 33


# ---------------------------------------------------------------------------------- weights
def test_weighted_vs_unweighted():
    # two coflows on one port: unweighted, the shorter goes first (SPT); with weight 10 the
    # longer one has the larger w/p and goes first (Smith's rule, which BSSI is on one port)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], weight=1),
                                  Coflow("B", [(0, 0, 2)], weight=10)])
    assert bssi(inst, weighted=False).tolist() == [0, 1]
    assert bssi(inst).tolist() == [1, 0]
    assert bssi(inst.with_weights(1.0)).tolist() == bssi(inst, weighted=False).tolist()
    t = bssi_trace(inst, exact=True)
    # step 1: ratios 1/1 and 10/2, A last with beta 1, B's weight 10 - 1 * 2 = 8; step 2: 8/2
    assert [r["beta"] for r in t.steps()] == [F(1), F(4)]
    # LB = 1 * (3^2 + 1 + 4) / 2 + 4 * (2^2 + 2^2) / 2 = 23 = OPT (B at 2, A at 3)
    assert bssi_dual_bound(inst, exact=True).value_exact == 23
    assert best_order_search(inst).objective == 2 * 10 + 3 * 1


def test_zero_weights_go_last():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], weight=0),
                                  Coflow("B", [(0, 0, 5)], weight=1)])
    assert bssi(inst).tolist() == [1, 0]


# ---------------------------------------------------------------------------------- releases
def late_release():
    # A: 3 units released at 0; B: 1 unit released at 100, on the same port pair
    return Instance.from_coflows([Coflow("A", [(0, 0, 3)], release=0),
                                  Coflow("B", [(0, 0, 1)], release=100)])


def test_algorithm3_puts_the_late_coflow_last():
    inst = late_release()
    assert bssi(inst, release="ignore").tolist() == [1, 0]      # SPT: B first
    t = bssi_trace(inst, exact=True)                            # Algorithm 3
    assert t.order.tolist() == [0, 1]
    first, second = list(t.steps())
    # step 1: r_max = 100 > load/2 = 2: the else branch, gamma_B = residual weight 1, no beta
    assert first["coflow"] == 1 and first["release_branch"]
    assert first["gamma"] == 1 and first["beta"] == 0
    assert second["coflow"] == 0 and not second["release_branch"] and second["beta"] == F(1, 3)
    lb = bssi_dual_bound(inst, exact=True)
    # gamma_B r_B + 1/2 beta_A (3^2 + 3^2) = 100 + 3 = 103 <= OPT = 3 + 101 = 104
    assert lb.value_exact == 103 and lb.release_term == 100
    assert best_order_search(inst).objective == 104
    # the zero-release bound is valid too, and weaker here
    assert bssi_dual_bound(inst, release="ignore", exact=True).value_exact < 103


def test_algorithm3_is_algorithm1_without_releases():
    for seed in range(20):
        inst = _rand(seed)
        assert (bssi(inst, release="algorithm3") == bssi(inst, release="ignore")).all()


# ---------------------------------------------------------------------------------- capacities
def test_heterogeneous_capacities_use_processing_times():
    # ingress 0 (capacity 10) carries 10 units = 1 time unit; egress 1 (capacity 1) carries 3
    # units = 3 time units.  By data ingress 0 is the bottleneck, by time egress 1 is.
    inst = Instance.from_coflows(
        [Coflow("A", [(0, 0, 7)]), Coflow("B", [(0, 1, 3)])],
        ingress_capacity=[10.0], egress_capacity=[10.0, 1.0])
    t = bssi_trace(inst, exact=True)
    assert list(t.steps())[0]["port"] == 2                   # egress 1 in unified numbering
    assert t.order.tolist() == [0, 1]                        # B (3 time units) last
    # greedy with this order is optimal and the bound holds
    lb = bssi_dual_bound(inst, exact=True)
    assert lb.value_exact <= best_order_search(inst).objective


def test_uniform_capacity_scales_beta_not_order():
    inst = _rand(3)
    fast = inst.replace(ingress_capacity=inst.ingress_capacity * 4,
                        egress_capacity=inst.egress_capacity * 4)
    a, b = bssi_trace(inst, exact=True), bssi_trace(fast, exact=True)
    assert (a.order == b.order).all() and (a.bottleneck == b.bottleneck).all()
    assert [x * 4 for x in a.beta] == list(b.beta)
    assert bssi_dual_bound(fast, exact=True).value_exact * 4 == \
        bssi_dual_bound(inst, exact=True).value_exact


# ---------------------------------------------------------------------------------- properties
def _rand(seed, **kw):
    from coflowopt.testing import random_instance
    return random_instance(np.random.default_rng(seed), **kw)


@settings(max_examples=40)
@given(instances(max_ports=3, max_coflows=5, releases=True, heterogeneous=True),
       st.sampled_from(["paper", "first"]))
def test_bound_is_below_every_order(inst, rule):
    lb = bssi_dual_bound(inst, tie_break=rule, exact=True)
    lbf = bssi_dual_bound(inst, tie_break=rule)
    assert lbf.value_exact <= lb.value_exact * (1 + F(1, 10 ** 9)) and lbf.scale <= 1
    best = best_order_search(inst)
    assert float(lb.value_exact) <= best.objective * (1 + 1e-12)
    assert float(lbf.value_exact) <= best.objective * (1 + 1e-12)


@settings(max_examples=40)
@given(instances(max_ports=3, max_coflows=6, heterogeneous=True),
       st.booleans(), st.sampled_from(["paper", "first"]))
def test_exact_and_float_runs_agree(inst, integer, rule):
    if integer:  # integer sizes make ties common: the tolerance must resolve them the same way
        inst = inst.replace(flow_size=np.ceil(inst.flow_size))
    a = bssi_trace(inst, exact=True, tie_break=rule)
    b = bssi_trace(inst, tie_break=rule)
    assert a.order.tolist() == b.order.tolist()
    assert a.bottleneck.tolist() == b.bottleneck.tolist()
    np.testing.assert_allclose(b.beta, a.beta.astype(float), rtol=1e-9, atol=1e-12)


@settings(max_examples=40)
@given(instances(max_ports=4, max_coflows=7, heterogeneous=True), st.booleans())
def test_mastrolilli_equals_bssi_first(inst, integer):
    if integer:
        inst = inst.replace(flow_size=np.ceil(inst.flow_size))
    assert mastrolilli(inst).tolist() == bssi(inst, tie_break="first",
                                              release="ignore").tolist()


def test_mastrolilli_equals_bssi_on_unit_capacities_with_ties():
    # unit capacities and integer sizes: the case where Sincronia says BSSI *is* the
    # Mastrolilli et al. algorithm on the 2m ports
    for seed in range(100):
        inst = _rand(seed, max_ports=4, max_coflows=8, integer_sizes=True, weights=seed % 2)
        assert (mastrolilli(inst) == bssi(inst, tie_break="first", release="ignore")).all()


@settings(max_examples=30)
@given(instances(max_ports=3, max_coflows=6, weights=True, heterogeneous=True))
def test_theorem1_with_greedy(inst):
    # zero releases: sum w C <= 4 LB, and C_k <= 2 x ordered load at b_k (Lemma 3)
    lb = bssi_dual_bound(inst)
    rep = verify_schedule(inst, greedy(inst, lb.order)).raise_if_invalid()
    cc = rep.coflow_completion[lb.order]
    assert np.all(cc <= 2 * lb.load.astype(float) * (1 + 1e-9))
    assert rep.weighted_completion_time <= 4 * lb.value * (1 + 1e-9)


def test_fb_trace_order_and_bound(fb_trace_path):
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path).with_releases(0.0)
    order = bssi(inst)
    assert sorted(order.tolist()) == list(range(526))
    assert (bssi(inst, tie_break="first") == mastrolilli(inst)).all()
    lb = bssi_dual_bound(inst)
    assert lb.scale <= 1 and float(lb.value_exact) == pytest.approx(lb.value, rel=1e-9)


# ---------------------------------------------------------------------------------- validation
@pytest.mark.parametrize("kwargs,match", [
    ({"tie_break": "last"}, "tie_break"),
    ({"release": "yes"}, "release"),
    ({"exact": "no"}, "exact"),
])
def test_bad_parameters(kwargs, match):
    inst = ts3()
    for f in (bssi, bssi_trace, bssi_dual_bound):
        with pytest.raises(InvalidParameterError, match=match):
            f(inst, **kwargs)


def test_exact_group_sums_are_exact():
    from coflowopt.orderings.bssi import _exact_group_sums
    rng = np.random.default_rng(1)
    # a wide exponent spread in group 1 forces the Python-integer path for that group
    values = np.concatenate([rng.uniform(0, 100, 500) / rng.integers(1, 150, 500),
                             [1e30, 3.0, 1e-30, 0.1]])
    group = np.concatenate([rng.integers(0, 7, 500), [7, 7, 7, 8]])
    S, E = _exact_group_sums(values, group, 9)
    want = [F(0)] * 9
    for v, g in zip(values.tolist(), group.tolist()):
        want[g] += F(v)
    assert [F(s) * F(2) ** int(e) for s, e in zip(S, E)] == want
