"""Certificate files of optima (``coflowopt exact --certificate``) and their standalone check.

``coflowopt.certificate_files.optimum_certificate`` writes the exact schedule and the branch and
bound's closed nodes with bounds that ``tools/check_certificate.py`` (standard library only)
rebuilds; the checker runs here as a process.  A tampered certificate (a capacity multiplier
changed, a node dropped, a schedule rate raised, another instance) is rejected with exit 1.
proofs/optimum-certificates.md.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from coflowopt import Instance
from coflowopt.certificate_files import optimum_certificate
from coflowopt.exact.branch_and_bound import bnb
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats.instance_json import write_instance_json
from coflowopt.generators import uniform_random
from coflowopt.topology import leaf_spine, on_topology
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "tools" / "check_certificate.py"


def check(inst_path, cert) -> subprocess.CompletedProcess:
    cpath = Path(inst_path).with_suffix(".cert.json")
    cpath.write_text(json.dumps(cert))
    return subprocess.run([sys.executable, str(CHECKER), str(inst_path), str(cpath)],
                          capture_output=True, text=True, timeout=120)


def certified(inst, tmp_path, name="inst", **kw):
    res = bnb(inst, time_limit=60, certificate_nodes=True, seed_bounds=False, **kw)
    assert res.kind == "optimal" and res.certificate_status == "proved exactly"
    assert verify_schedule(inst, res.schedule, mode="exact").ok
    cert = optimum_certificate(inst, res)
    path = tmp_path / f"{name}.json"
    write_instance_json(inst, path)
    return res, cert, path


def topology_instance(seed=1, K=4):
    rng = np.random.default_rng(seed)
    topo = leaf_spine(2, 2, 2, oversubscription=2)
    H = topo.num_hosts
    counts = rng.integers(1, 3, size=K)
    F = int(counts.sum())
    src = rng.integers(0, H, F)
    dst = (src + rng.integers(1, H, F)) % H
    bs = Instance.from_arrays(
        ingress_capacity=np.ones(H), egress_capacity=np.ones(H),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=src, flow_dst=dst, flow_size=rng.integers(1, 5, F).astype(float),
        weight=rng.integers(1, 4, K).astype(float), release=np.array([0.0, 1.0, 0.0, 2.0][:K]))
    return on_topology(bs, topo, routing="ecmp", seed=seed)


CASES = {
    "unit-6": lambda: uniform_random(4, 6, seed=0),
    "weights-releases-caps-6": lambda: uniform_random(4, 6, seed=2, weights=(1, 5),
                                                      releases=(0, 4), capacities=(1, 3)),
    "releases-7": lambda: uniform_random(4, 7, seed=1, releases=(0, 5)),
    "zero-weight": lambda: uniform_random(4, 5, seed=4, weights=(0, 2)),
    "leaf-spine": topology_instance,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_certificate_confirmed(name, tmp_path):
    inst = CASES[name]()
    res, cert, path = certified(inst, tmp_path)
    assert Fraction(cert["claim"]["value"]) == res.value
    p = check(path, cert)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("CONFIRMED:") and "optimal" in p.stdout


def test_identical_coflows_dominance(tmp_path):
    # coflows 0, 1 and 2 identical (same data on the same ports, release 0), weights 1, 2, 2
    inst = Instance.from_arrays(
        ingress_capacity=np.ones(2), egress_capacity=np.ones(2),
        coflow_ids=["a", "b", "c", "d"], flow_coflow=np.array([0, 1, 2, 3, 3]),
        flow_src=np.array([0, 0, 0, 1, 0]), flow_dst=np.array([1, 1, 1, 0, 0]),
        flow_size=np.array([2.0, 2.0, 2.0, 3.0, 1.0]), weight=np.array([1.0, 2.0, 2.0, 1.0]),
        release=np.zeros(4))
    res, cert, path = certified(inst, tmp_path)
    # the default rule (proofs/completion-order-dominance.md) includes the identical pairs
    assert cert["proof"]["dominance"] == "subset"
    p = check(path, cert)
    assert p.returncode == 0, p.stdout + p.stderr
    # the identical-coflow rule alone (bnb(dominance=True)) writes and checks its own flag
    res = bnb(inst, time_limit=60, certificate_nodes=True, seed_bounds=False, dominance=True)
    cert = optimum_certificate(inst, res)
    assert cert["proof"]["dominance"] is True
    p = check(path, cert)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.fixture(scope="module", params=["lp", "lp-charged"])
def lp_case(tmp_path_factory, request):
    """An instance whose proof has nodes closed by event-LP multipliers: of the node LP
    (the search without the block charge) or of the charged node LP (the default search,
    proofs/bnb-block-charge.md)."""
    tmp = tmp_path_factory.mktemp("lp")
    res, cert, path = certified(uniform_random(4, 6, seed=0), tmp,
                                block_charge=request.param == "lp-charged")
    assert any(n["bound"]["type"] == request.param for n in cert["proof"]["nodes"])
    return res, cert, path


def test_tampered_multiplier_rejected(lp_case):
    _, cert, path = lp_case
    bad = copy.deepcopy(cert)
    node = next(n for n in bad["proof"]["nodes"] if n["bound"]["type"] in ("lp", "lp-charged")
                and n["bound"]["duals"]["capacity"])
    entry = node["bound"]["duals"]["capacity"][0]
    entry[-1] = str(2 * Fraction(entry[-1]))
    p = check(path, bad)
    assert p.returncode == 1 and p.stdout.startswith("REJECTED:"), p.stdout + p.stderr
    assert len(p.stdout.strip().splitlines()) == 1


def test_dropped_node_rejected(lp_case):
    _, cert, path = lp_case
    for i in (0, len(cert["proof"]["nodes"]) - 1):
        bad = copy.deepcopy(cert)
        del bad["proof"]["nodes"][i]
        p = check(path, bad)
        assert p.returncode == 1 and "not covered" in p.stdout, p.stdout + p.stderr


def test_raised_rate_rejected(lp_case):
    _, cert, path = lp_case
    bad = copy.deepcopy(cert)
    piece = bad["schedule"]["pieces"][0]
    piece[3] = str(Fraction(piece[3]) * Fraction(11, 10))
    p = check(path, bad)
    assert p.returncode == 1 and p.stdout.startswith("REJECTED:"), p.stdout + p.stderr


def test_claim_below_optimum_rejected(lp_case):
    _, cert, path = lp_case
    bad = copy.deepcopy(cert)
    bad["claim"]["value"] = str(Fraction(cert["claim"]["value"]) - 1)
    p = check(path, bad)
    assert p.returncode == 1 and "not the claimed" in p.stdout


def test_other_instance_rejected(lp_case, tmp_path):
    _, cert, _ = lp_case
    other = tmp_path / "other.json"
    write_instance_json(uniform_random(4, 6, seed=1), other)
    p = check(other, cert)
    assert p.returncode == 1 and "another instance" in p.stdout


def test_results_unchanged_by_recording():
    inst = uniform_random(4, 6, seed=5, weights=(1, 4), releases=(0, 3))
    a = bnb(inst, time_limit=60, seed_bounds=False)
    b = bnb(inst, time_limit=60, seed_bounds=False, certificate_nodes=True)
    assert a.value == b.value and a.bound == b.bound and a.status == b.status
    assert a.extra["search"]["nodes_expanded"] == b.extra["search"]["nodes_expanded"]
    assert "closed_nodes" not in a.extra and b.extra["closed_nodes"]


def test_refused_without_exact_proof():
    inst = uniform_random(4, 6, seed=0)
    res = bnb(inst, time_limit=60, seed_bounds=False, certificate_nodes=True,
              exact_proof=False)
    with pytest.raises(InvalidParameterError, match="proved exactly"):
        optimum_certificate(inst, res)
    res = bnb(inst, time_limit=60, seed_bounds=False)
    with pytest.raises(InvalidParameterError, match="closed nodes"):
        optimum_certificate(inst, res)


def test_cli_certificate(tmp_path):
    inst_path = tmp_path / "i.json"
    write_instance_json(uniform_random(4, 5, seed=3, weights=(1, 3)), inst_path)
    cert = tmp_path / "c.json"
    cmd = [sys.executable, "-m", "coflowopt", "exact", str(inst_path), "--certificate",
           str(cert), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["certificate_file"] == str(cert)
    q = subprocess.run([sys.executable, str(CHECKER), str(inst_path), str(cert)],
                       capture_output=True, text=True)
    assert q.returncode == 0 and q.stdout.startswith("CONFIRMED:")
    # refused: not proved exactly (nothing written, exit 1)
    cert2 = tmp_path / "c2.json"
    p = subprocess.run(cmd[:6] + [str(cert2), "-p", "exact_proof=false"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "certificate NOT written" in p.stdout and not cert2.exists()
    for bad in (["--certificate", str(tmp_path / "c.txt")],
                ["--certificate", str(cert), "--method", "enumerate-orders"]):
        p = subprocess.run(cmd[:5] + bad, capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
