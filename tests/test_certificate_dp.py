"""Optimum certificates whose closures read ``DPB`` of sets above the checker's recomputation
limit: the values listed in ``proof.dp``, each checked by one step of the recursion
(proofs/optimum-certificates.md, section 3a).

The limit (``proof.dp.exact_max_set``, 16 by default) is lowered here so that small instances
exercise the entries; a raised value, a dropped entry and an omitted last coflow are rejected.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from coflowopt.certificate_files import optimum_certificate
from coflowopt.exact.branch_and_bound import bnb
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats.instance_json import write_instance_json
from coflowopt.generators import uniform_random
from coflowopt.verify import verify_schedule
from tests.test_optimum_certificates import check

CASES = {
    "unit-9": lambda: uniform_random(4, 9, seed=1),
    "weights-releases-8": lambda: uniform_random(3, 8, seed=2, weights=(1, 3), releases=(0, 2)),
}


def written(inst, tmp_path, exact_max=3, child_exact=2, **kw):
    res = bnb(inst, time_limit=60, certificate_nodes=True, seed_bounds=False, **kw)
    assert res.kind == "optimal" and res.certificate_status == "proved exactly"
    assert verify_schedule(inst, res.schedule, mode="exact").ok
    cert = optimum_certificate(inst, res, dp_exact_max=exact_max, dp_child_exact=child_exact)
    path = tmp_path / "inst.json"
    write_instance_json(inst, path)
    return res, cert, path


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    res, cert, path = written(CASES[request.param](), tmp_path_factory.mktemp("dp"))
    assert cert["proof"]["dp"]["entries"], "the closures need no listed value"
    return res, cert, path


def test_listed_values_confirmed(case):
    res, cert, path = case
    dp = cert["proof"]["dp"]
    assert dp["exact_max_set"] == 3
    # only sets above the limit, at most their DPB as the checker's recursion needs
    assert all(len(e["set"]) > 2 for e in dp["entries"])
    p = check(path, cert)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "DP values of large sets" in p.stdout


def _largest(cert) -> int:
    ents = cert["proof"]["dp"]["entries"]
    return max(range(len(ents)), key=lambda i: len(ents[i]["set"]))


def test_raised_value_rejected(case):
    _, cert, path = case
    bad = copy.deepcopy(cert)
    ent = bad["proof"]["dp"]["entries"][_largest(cert)]
    ent["value"] = str(2 * Fraction(ent["value"]))
    p = check(path, bad)
    assert p.returncode == 1 and "exceeds" in p.stdout, p.stdout + p.stderr
    assert len(p.stdout.strip().splitlines()) == 1


@pytest.mark.parametrize("which", ["largest", "smallest"])
def test_dropped_entry_rejected(case, which):
    _, cert, path = case
    ents = cert["proof"]["dp"]["entries"]
    # (a set within exact_max_set would be recomputed: dropping its entry changes nothing)
    i = _largest(cert) if which == "largest" else \
        min((j for j in range(len(ents)) if len(ents[j]["set"]) > 3),
            key=lambda j: len(ents[j]["set"]))
    bad = copy.deepcopy(cert)
    del bad["proof"]["dp"]["entries"][i]
    p = check(path, bad)
    # the closure or the parent entry that read it falls back to the cheap bound
    assert p.returncode == 1 and p.stdout.startswith("REJECTED:"), p.stdout + p.stderr
    assert "below the claimed optimum" in p.stdout or "exceeds" in p.stdout


def test_omitted_last_coflow_rejected(case):
    _, cert, path = case
    bad = copy.deepcopy(cert)
    ent = bad["proof"]["dp"]["entries"][_largest(cert)]
    k = ent["last"].pop()
    p = check(path, bad)
    assert p.returncode == 1 and f"coflow {k} may complete last" in p.stdout, p.stdout


def test_listed_twice_or_outside_rejected(case):
    _, cert, path = case
    bad = copy.deepcopy(cert)
    ents = bad["proof"]["dp"]["entries"]
    ents.append(copy.deepcopy(ents[0]))
    p = check(path, bad)
    assert p.returncode == 1 and "listed twice" in p.stdout
    bad = copy.deepcopy(cert)
    bad["proof"]["dp"]["entries"][0]["last"].append(10 ** 6)
    p = check(path, bad)
    assert p.returncode == 1 and "outside the set" in p.stdout
    bad = copy.deepcopy(cert)
    bad["proof"]["dp"]["exact_max_set"] = 17
    assert check(path, bad).returncode == 2


def test_float_tables_proof_has_a_file(tmp_path):
    """A proof that read DPB of sets above exact_proof_max_set from the float tables
    (proofs/bnb-exact-seed-bound.md, Claim F) records those values; the file lists what its
    closures need of them (here every set above 2) and the checker confirms it."""
    inst = uniform_random(3, 6, seed=1, weights=(1, 3), releases=(0, 2))
    res = bnb(inst, time_limit=60, exact_proof_max_set=2, seed_bounds=False,
              certificate_nodes=True)
    assert res.certificate_status == "proved exactly"
    assert res.certificate["exact"]["dp_from_float_tables"] > 0
    assert res.extra["dp_values"]
    path = tmp_path / "inst.json"
    write_instance_json(inst, path)
    for em, ce in ((2, 1), (16, 10)):
        cert = optimum_certificate(inst, res, dp_exact_max=em, dp_child_exact=ce)
        p = check(path, cert)
        assert p.returncode == 0, p.stdout + p.stderr
    # without the recorded values: refused, saying why
    res.extra.pop("dp_values")
    with pytest.raises(InvalidParameterError, match="float tables"):
        optimum_certificate(inst, res)


def test_bad_limits_refused():
    inst = uniform_random(4, 5, seed=0)
    res = bnb(inst, time_limit=60, certificate_nodes=True, seed_bounds=False)
    with pytest.raises(InvalidParameterError, match="dp_child_exact"):
        optimum_certificate(inst, res, dp_exact_max=17)
    with pytest.raises(InvalidParameterError, match="dp_child_exact"):
        optimum_certificate(inst, res, dp_exact_max=3, dp_child_exact=4)


def test_entry_cap_refused(tmp_path):
    inst = CASES["unit-9"]()
    res = bnb(inst, time_limit=60, certificate_nodes=True, seed_bounds=False)
    with pytest.raises(InvalidParameterError, match="cap 1"):
        optimum_certificate(inst, res, dp_exact_max=3, dp_child_exact=2, max_dp_entries=1)
