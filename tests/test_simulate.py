"""The generic event-driven simulator: events, pieces, errors, and its cost model."""

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.simulate import SimulationError, simulate
from coflowopt.verify import verify_schedule


class MaddFifo:
    """Coflows in release order; each gets MADD rates d/Gamma on the residual capacity.
    Reschedules only at releases and coflow completions."""

    name = "test-madd"
    reschedule_on = frozenset({"release", "coflow_completion"})

    def reset(self, inst):
        self.inst = inst

    def allocate(self, st):
        inst = self.inst
        res = inst.capacity.astype(float).copy()
        fl, rt = [], []
        for k in st.active_coflows:
            f = np.arange(inst.flow_ptr[k], inst.flow_ptr[k + 1])
            f = f[~st.flow_done[f]]
            ports = np.concatenate([inst.flow_src[f], inst.flow_egress_port[f]])
            load = np.bincount(ports, weights=np.concatenate([st.remaining[f]] * 2),
                               minlength=inst.num_ports)
            with np.errstate(divide="ignore", invalid="ignore"):
                gamma = np.max(np.where(load > 0, load / res, 0))
            if not np.isfinite(gamma) or gamma <= 0:
                continue
            r = st.remaining[f] / gamma
            np.subtract.at(res, inst.flow_src[f], r)
            np.subtract.at(res, inst.flow_egress_port[f], r)
            res = np.maximum(res, 0)
            fl.append(f)
            rt.append(r)
        if not fl:
            return np.zeros(0, int), np.zeros(0)
        return np.concatenate(fl), np.concatenate(rt)

    def next_timer(self, st):
        return np.inf


def shuffle_3x2():
    # the dissertation's 3x2 shuffle (Fig. 3.2): MADD finishes every flow at Gamma = 4
    return Instance.from_coflows([Coflow("S", [(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1),
                                               (2, 0, 2), (2, 1, 2)])], num_egress=3)


def test_madd_single_coflow_finishes_at_gamma():
    inst = shuffle_3x2()
    res = simulate(inst, MaddFifo())
    rep = verify_schedule(inst, res.schedule).raise_if_invalid()
    assert rep.coflow_completion.tolist() == [4.0]
    assert res.coflow_completion.tolist() == [4.0]
    # one policy call: rates never change, every flow is one piece
    assert res.policy_calls == 1 and res.schedule.num_pieces == 6


def test_coflow_level_policy_does_not_pay_per_flow_event():
    # 30 coflows of 10 flows each with different sizes: flows finish at many distinct times,
    # but the policy is called only at releases and coflow completions
    rng = np.random.default_rng(0)
    cofs = [Coflow(f"c{k}", [(int(rng.integers(0, 4)), int(rng.integers(0, 4)),
                               float(rng.integers(1, 9))) for _ in range(10)],
                   release=float(k // 3)) for k in range(30)]
    inst = Instance.from_coflows(cofs, num_ingress=4, num_egress=4)
    res = simulate(inst, MaddFifo())
    verify_schedule(inst, res.schedule).raise_if_invalid()
    assert res.policy_calls <= 2 * inst.num_coflows + 1
    assert res.events <= 2 * inst.num_coflows + 1


def test_release_dates_are_respected_and_recorded():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 0, 1)], release=5)])
    res = simulate(inst, MaddFifo())
    rep = verify_schedule(inst, res.schedule).raise_if_invalid()
    assert rep.coflow_completion.tolist() == [2.0, 6.0]
    assert float(rep.weighted_cct) == 3.0


class Bad:
    name = "bad"

    def __init__(self, mode, reschedule=("release", "coflow_completion")):
        self.mode = mode
        self.reschedule_on = frozenset(reschedule)

    def reset(self, inst):
        self.inst = inst

    def allocate(self, st):
        f = st.active_flows
        if self.mode == "negative":
            return f, -np.ones(f.size)
        if self.mode == "nan":
            return f, np.full(f.size, np.nan)
        if self.mode == "unreleased":
            return np.arange(self.inst.num_flows), np.ones(self.inst.num_flows)
        if self.mode == "nothing":
            return np.zeros(0, int), np.zeros(0)
        if self.mode == "twice":
            return np.concatenate([f, f]), np.ones(2 * f.size)
        raise AssertionError

    def next_timer(self, st):
        return np.inf


@pytest.mark.parametrize("mode,match", [("negative", "rate"), ("nan", "rate"),
                                        ("unreleased", "not released"),
                                        ("nothing", "no future event"),
                                        ("twice", "twice")])
def test_bad_policies_are_named(mode, match):
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 0, 1)], release=5)])
    with pytest.raises(SimulationError, match=match):
        simulate(inst, Bad(mode))


def test_capacity_violations_are_left_to_the_verifier():
    class Greedy2:
        name = "overload"
        reschedule_on = frozenset({"release", "flow_completion"})

        def reset(self, inst):
            pass

        def allocate(self, st):
            return st.active_flows, np.full(st.active_flows.size, 2.0)

        def next_timer(self, st):
            return np.inf

    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (0, 1, 2)])])
    res = simulate(inst, Greedy2())
    rep = verify_schedule(inst, res.schedule)
    assert not rep.ok and set(rep.violation_counts) == {"capacity"}


def test_timer_events_call_the_policy():
    class Timed(MaddFifo):
        name = "timed"
        reschedule_on = frozenset({"release", "coflow_completion", "timer"})

        def reset(self, inst):
            super().reset(inst)
            self.calls = []

        def allocate(self, st):
            self.calls.append((st.time, st.events))
            return super().allocate(st)

        def next_timer(self, st):
            return np.floor(st.time) + 1.0

    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3.5)])])
    pol = Timed()
    res = simulate(inst, pol)
    verify_schedule(inst, res.schedule).raise_if_invalid()
    times = [t for t, _ in pol.calls]
    assert times == [0.0, 1.0, 2.0, 3.0]
    assert all("timer" in ev for _, ev in pol.calls[1:])


def test_stuck_coflow_policy_steps_to_flow_completions():
    # a coflow-level policy that serves only one flow of a two-flow coflow at a time: no
    # coflow can complete under its rates, so the simulator steps to the flow completion and
    # asks again instead of stalling
    class OneFlow:
        name = "one-flow"
        reschedule_on = frozenset({"release", "coflow_completion"})

        def reset(self, inst):
            pass

        def allocate(self, st):
            return st.active_flows[:1], np.ones(1)

        def next_timer(self, st):
            return np.inf

    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 2)])])
    res = simulate(inst, OneFlow())
    rep = verify_schedule(inst, res.schedule).raise_if_invalid()
    assert rep.coflow_completion.tolist() == [3.0]


def test_done_flows_log_lists_finished_flows_in_completion_order():
    # FIFO MADD: coflow 0's flows (sizes 2 and 1) share ingress 0, Gamma = 3, so both finish
    # at 3; then coflow 1's flow (size 1) at 4.  Each call sees exactly the flows finished
    # before it, in completion order
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (0, 1, 1)]),
                                  Coflow("B", [(0, 0, 1)])])
    seen = []

    class Logging(MaddFifo):
        def allocate(self, st):
            seen.append((st.time, st.done_flows.tolist()))
            return super().allocate(st)

    res = simulate(inst, Logging())
    assert seen == [(0.0, []), (3.0, [0, 1])]
    assert res.flow_completion.tolist() == [3.0, 3.0, 4.0]


def test_schedule_length_bounds_on_a_big_switch_needs_no_paths():
    """The big-switch sums (ingress and egress bincounts, issue 17) are the paths' sums bit
    for bit (each port adds its flows' sizes in flow order either way: the same instance
    written as paths takes the general form), and the instance is not left holding the
    paths' CSR (23 MB on the Facebook trace)."""
    from coflowopt.simulate import schedule_length_bounds
    from coflowopt.testing import big_switch_as_paths

    rng = np.random.default_rng(7)
    for _ in range(20):
        coflows = [Coflow(str(k), [(int(rng.integers(3)), int(rng.integers(4)),
                                    float(rng.random() * 10 + 1e-3))
                                   for _ in range(int(rng.integers(1, 30)))],
                          release=float(rng.random() * 5))
                   for k in range(int(rng.integers(1, 8)))]
        inst = Instance.from_coflows(coflows, num_ingress=3, num_egress=5,
                                     ingress_capacity=rng.random(3) + 0.5,
                                     egress_capacity=rng.random(5) + 0.5)
        got = schedule_length_bounds(inst)
        assert "flow_resource" not in vars(inst) and "path_length" not in vars(inst)
        paths = big_switch_as_paths(inst)
        assert not paths.is_big_switch
        assert got == schedule_length_bounds(paths)


def test_event_loop_kernels_equal_their_numpy_forms():
    """The compiled passes of the event loop (``_simulate_kernel``) give what the numpy forms
    give (``_same_rate`` both ways, the next coflow completion, the sortedness test), on random
    sorted flow lists that share flows with equal and with changed rates."""
    from coflowopt.simulate import (_advance, _allocation_ok, _check_allocation, _increasing,
                                    _next_coflow_completion, _rate_changes, _same_rate)
    rng = np.random.default_rng(7)
    for trial in range(300):
        F = int(rng.integers(0, 60))
        f_old = np.flatnonzero(rng.random(F) < 0.6).astype(np.int64)
        f_new = np.flatnonzero(rng.random(F) < 0.6).astype(np.int64)
        r_old = rng.integers(1, 4, f_old.size).astype(float)
        r_new = rng.integers(1, 4, f_new.size).astype(float)
        got = _rate_changes(f_old, r_old, f_new, r_new)
        want = (_same_rate(f_old, r_old, f_new, r_new), _same_rate(f_new, r_new, f_old, r_old))
        assert all(np.array_equal(g, w) for g, w in zip(got, want))
        assert _rate_changes(f_old, r_old, f_new, r_new, compiled=False)[0].tolist() == \
            want[0].tolist()
        # flows of coflows of 1-4 flows; some coflows have finished flows
        K = max(1, F // 2)
        coflow_of = np.sort(rng.integers(0, K, max(F, 1))).astype(np.int64)
        unfinished = np.bincount(coflow_of, minlength=K).astype(np.int64)
        served = np.flatnonzero(rng.random(coflow_of.size) < 0.8).astype(np.int64)
        fin = rng.integers(0, 5, served.size).astype(float) + rng.random()
        assert _next_coflow_completion(served, fin, coflow_of, unfinished) == \
            _next_coflow_completion(served, fin, coflow_of, unfinished, compiled=False)
        a = rng.integers(0, 9, int(rng.integers(0, 6))).astype(np.int64)
        assert _increasing(a) == bool(np.all(a[1:] > a[:-1]))
        # one step of the clock: the same bytes left (bits) and the same flows done
        size = rng.integers(1, 5, max(F, 1)).astype(float)
        rem = size * rng.random(size.size)
        rem[rng.random(size.size) < 0.2] = 1e-12
        rates = rng.integers(1, 4, served.size).astype(float)
        fin = 1.0 + rem[served] / rates
        t_next = float(rng.choice([1.0 + rng.random(), fin.min() if fin.size else 2.0]))
        want_rem = rem.copy()
        want = _advance(served, rates, fin, want_rem, size, 1.0, t_next, compiled=False)
        got_rem = rem.copy()
        assert np.array_equal(_advance(served, rates, fin, got_rem, size, 1.0, t_next), want)
        assert got_rem.tobytes() == want_rem.tobytes()
        # the one-pass check accepts exactly what _check_allocation accepts
        done = rng.random(size.size) < 0.3
        released = rng.random(K) < 0.8
        r = rng.choice([0.0, 1.0, 2.0, -1.0, np.nan, np.inf], served.size,
                       p=[0.3, 0.3, 0.37, 0.01, 0.01, 0.01])
        try:
            _check_allocation(Bad("nothing"), served, r, done, released, coflow_of, 0.0)
            ok = True
        except SimulationError:
            ok = False
        assert _allocation_ok(served, r, done, released, coflow_of) == ok
