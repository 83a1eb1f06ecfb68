"""The SYN vs ASY study's pieces (experiments/syn_asy_slotted_study.py): the Sinkhorn ASY
policy verifies and is work-conserving where cap-only Sinkhorn is, and the finding the page
states -- with MTU packets the slotted twins equal the fluid ones -- holds on a small draw."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.simulate import simulate
from coflowopt.verify import verify_schedule

STUDY = Path(__file__).resolve().parent.parent / "experiments" / "syn_asy_slotted_study.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("syn_asy_slotted_study", STUDY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sinkhorn_policy_t_a1(study):
    # T-A1 as three unit flows released together: cap-only Sinkhorn gives rows 1/2, 1/2 and
    # 1, then column 0 (1/2 + 1 = 3/2) scales to 1/3, 2/3: the rates [[1/3, 1/2], [2/3, 0]]
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0), (0, 1, 1.0), (1, 0, 1.0)])])
    sched = simulate(inst, study.SinkhornPolicy()).schedule
    rep = verify_schedule(inst, sched)
    assert rep.ok
    first = sched.start == 0
    rates = dict(zip(sched.flow[first].tolist(), sched.rate[first].tolist()))
    assert rates == pytest.approx({0: 1 / 3, 1: 1 / 2, 2: 2 / 3})


def test_packet_mixes(study):
    rng = np.random.default_rng(0)
    n = np.array([1, 2, 3, 1000])
    assert study.packet_lengths("fixed", n, rng).tolist() == [1500, 3000, 4500, 1_500_000]
    assert study.packet_lengths("mss-ack", n, rng).tolist() == [1500, 1540, 3040, 770_000]
    b = study.packet_lengths("bimodal", n, rng)
    assert np.all((b >= 40 * n) & (b <= 1500 * n))
    assert abs(b[-1] / 1000 - 916) < 60          # mean packet 916 B (seed 002 Sec. III-A)


@pytest.mark.parametrize("network", ["big-switch", "leaf-spine"])
def test_mtu_packets_slotted_equals_fluid(study, network):
    rows = study.one_instance(network, "flows", "uniform", 0.8, 10, 3)
    by = {(r["mix"], r["algorithm"]): r["total_cct"] for r in rows}
    for syn, asy in [("syn-ocf", "asy-fifo"), ("syn-srjf", "asy-srtf"),
                     ("syn-bssi", "asy-bssi")]:
        assert by[("fixed", syn)] == pytest.approx(by[("fixed", asy)], rel=1e-9)
    # packetisation never helps SYN: each bimodal packet takes a whole slot
    for syn, asy in [("syn-ocf", "asy-fifo"), ("syn-bssi", "asy-bssi")]:
        assert by[("bimodal", syn)] > by[("bimodal", asy)]
