"""CoflowLib's integral-model families (``int4-*``) and the integral certificates.

The stored families (counts, manifest fields, reproducible instances, entries re-checked: the
slotted schedule by ``verify_slotted``, the certificate by ``tools/check_certificate.py``), the
checker on a stored certificate and five tampered ones, the lattice bound against integral
optima (``proofs/integral-lattice-bound.md``), an integrality gap that stays open, and
``lib status`` / ``lib submit`` on the integral families.
"""

from __future__ import annotations

import copy as copymod
import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from coflowopt.certificate_files import (integral_certificate, lower_bound_certificate,
                                         optimum_certificate)
from coflowopt.coflowlib import MANIFEST, check_entry, load_checker, load_manifest
from coflowopt.exact.branch_and_bound import bnb
from coflowopt.exact.integral_mip import integral_mip, objective_lattice, round_up_to_lattice
from coflowopt.formats.instance_json import dumps_instance, read_instance_json
from coflowopt.formats.slotted_schedule import read_slotted_schedule, write_slotted_json
from coflowopt.slotted import verify_slotted
from test_coflowlib import make_module

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "instances" / "coflowlib"
FAMILIES = ("int4-unit", "int4-mixed")


def cli(*args):
    p = subprocess.run([sys.executable, "-m", "coflowopt", *map(str, args)],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def manifest():
    return load_manifest()


@pytest.fixture(scope="module")
def checker():
    return load_checker()


def entries(manifest, fam):
    return {i: e for i, e in manifest["instances"].items() if e["family"] == fam}


def test_integral_families_recorded(manifest):
    for fam in FAMILIES:
        spec = manifest["families"][fam]
        assert spec["model"] == "integral" and spec["slot"] == 1.0
        es = entries(manifest, fam)
        assert len(es) == 30
        for iid, e in es.items():
            assert e["model"] == "integral" and e["slot"] == 1.0
            assert (LIB / e["best"]["slotted"]).is_file() and "schedule" not in e["best"]
            cert = json.loads((LIB / e["certificate"]).read_text())
            claim = cert["claim"]
            assert claim["model"] == "integral" and Fraction(claim["slot"]) == 1
            best, bound = Fraction(e["best"]["value"]), Fraction(e["bound"]["value"])
            assert Fraction(claim["value"]) == bound <= best
            if e["status"] == "optimal":
                # proved by the exact certificate, never by HiGHS's bound alone
                assert claim["kind"] == "optimum" and best == bound and e["gap"] == 1.0
            else:
                assert e["status"] == "open" and claim["kind"] == "lower_bound"
            # integral optimum >= fluid optimum
            if e["fluid_optimum"] is not None:
                assert Fraction(e["fluid_optimum"]) <= bound
            assert set(e["baselines"]) == set(make_module().INTEGRAL_BASELINES)
            assert all(b["ratio"] >= 1 for b in e["baselines"].values())


def test_integral_families_are_reproducible(manifest):
    mk = make_module()
    from coflowopt.certificate_files import instance_digest
    for fam in FAMILIES:
        for seed in (0, 29):
            stored = read_instance_json(LIB / manifest["instances"][f"{fam}/{fam}-{seed:03d}"]
                                        ["instance"])
            assert instance_digest(mk.build_random(manifest["families"][fam], seed)) == \
                instance_digest(stored)
    mixed = read_instance_json(LIB / manifest["instances"]["int4-mixed/int4-mixed-000"]
                               ["instance"])
    assert (mixed.release > 0).any() and (mixed.weight > 1).any()
    assert all(float(x).is_integer() for x in list(mixed.release) + list(mixed.flow_size))


def test_integral_entries_rechecked(manifest, checker):
    for fam in FAMILIES:
        for iid in sorted(entries(manifest, fam))[:4]:
            assert check_entry(manifest, iid, checker) is None, iid


# --------------------------------------------------------------------------- the checker
def stored(manifest, iid):
    e = manifest["instances"][iid]
    return (json.loads((LIB / e["instance"]).read_text()),
            json.loads((LIB / e["certificate"]).read_text()), e)


def rejected(checker, idoc, cert) -> str:
    with pytest.raises(checker.Rejected) as exc:
        checker.check(idoc, cert)
    return str(exc.value)


def pick_mixed(manifest):
    """An optimal int4-mixed entry with a coflow released after 0 and a fluid proof of
    several closed nodes."""
    for iid, e in sorted(entries(manifest, "int4-mixed").items()):
        idoc, cert, _ = stored(manifest, iid)
        if cert["claim"]["kind"] == "optimum" and len(cert["proof"]["fluid"]["proof"]
                                                     ["nodes"]) > 1 and \
                any(c.get("release", 0) >= 1 for c in idoc["coflows"]):
            return idoc, cert
    pytest.fail("no such entry")


def test_checker_confirms_and_rejects_integral_certificates(manifest, checker):
    idoc, cert = pick_mixed(manifest)
    assert "is the integral optimum" in checker.check(idoc, cert)
    m_in = len(idoc["ingress"])

    def ports(k, pos):
        i, j, _ = idoc["coflows"][k]["flows"][pos]
        return {i, m_in + j}

    # a unit moved to a slot where its port is full (unit capacities: any other entry there)
    bad = copymod.deepcopy(cert)
    s = bad["slotted"]["slots"]
    t0, n0 = next((t, n) for t, row in enumerate(s) for n, e in enumerate(row))
    k, pos, _ = s[t0][n0]
    t1 = next(t for t, row in enumerate(s) if t != t0 and
              any(ports(a, b) & ports(k, pos) for a, b, _ in row))
    s[t0][n0][2] -= 1
    s[t1].append([k, pos, 1])
    assert "carries 2 units > capacity x slot 1" in rejected(checker, idoc, bad)
    # a unit before its coflow's release
    bad = copymod.deepcopy(cert)
    s = bad["slotted"]["slots"]
    t0, n0 = next((t, n) for t, row in enumerate(s) for n, e in enumerate(row)
                  if idoc["coflows"][e[0]].get("release", 0) >= 1)
    s[t0][n0][2] -= 1
    s[0].append([s[t0][n0][0], s[t0][n0][1], 1])
    assert "< its release" in rejected(checker, idoc, bad)
    # one unit missing
    bad = copymod.deepcopy(cert)
    bad["slotted"]["slots"][-1][0][2] -= 1
    assert "not its size" in rejected(checker, idoc, bad)
    # the claimed value lowered (the schedule is worth more) or raised (above the bound)
    value = Fraction(cert["claim"]["value"])
    for v, msg in ((value - 1, "not the claimed"), (value + 1, "less than the claimed")):
        bad = copymod.deepcopy(cert)
        bad["claim"]["value"] = str(v)
        assert msg in rejected(checker, idoc, bad)
    # a node of the fluid part's proof dropped
    bad = copymod.deepcopy(cert)
    del bad["proof"]["fluid"]["proof"]["nodes"][0]
    assert rejected(checker, idoc, bad).startswith("proof.fluid: the search space is not "
                                                   "covered")
    # the fluid part replaced by a weaker bound that does not reach the value
    inst = read_instance_json(LIB / manifest["instances"]["int4-mixed/int4-mixed-000"]
                              ["instance"])
    from coflowopt.bounds.simple import isolated_bound
    weak = lower_bound_certificate(inst, isolated_bound(inst))
    idoc0, cert0, _ = stored(manifest, "int4-mixed/int4-mixed-000")
    bad = copymod.deepcopy(cert0)
    bad["proof"]["fluid"] = weak
    assert "less than the claimed" in rejected(checker, idoc0, bad)


def test_lattice_bound_below_integral_optima(checker):
    """The checker's bound from a confirmed fluid certificate is at most the integral optimum
    integral-mip proves, and is coflowopt's lattice rounding (or the integral isolation
    bound, when larger)."""
    from coflowopt.generators import leaf_spine_coflows, uniform_random
    cases = [(uniform_random(3, 5, seed=s, flows_per_coflow=(1, 3), size=(1, 4),
                             weights=(1, 4), releases=(0, 3)), 1.0) for s in range(4)]
    # links of capacity 0.5 (2:1 oversubscription): slots of length 2
    cases.append((leaf_spine_coflows(2, 2, 2, 4, oversubscription=2, flows_per_coflow=(1, 3),
                                     size=(1, 4), integer_sizes=True, releases=(0, 3),
                                     weights=(1, 3), seed=1), 2.0))
    for inst, slot in cases:
        res = bnb(inst, time_limit=30, certificate_nodes=True, seed_bounds=False)
        fluid = optimum_certificate(inst, res)
        im = integral_mip(inst, slot=slot, time_limit=30)
        assert im.kind == "optimal"
        cert = integral_certificate(inst, fluid, slot=slot, schedule=im.schedule)
        idoc = json.loads(dumps_instance(inst))
        checker.check(idoc, json.loads(json.dumps(cert)))
        ci = checker.Instance(idoc)
        L = Fraction(fluid["claim"]["value"])
        bound, iso, g = checker.integral_bound(ci, Fraction(slot), L)
        assert L <= bound <= Fraction(im.value)
        assert bound == max(iso, round_up_to_lattice(L, objective_lattice(inst, slot)))
        assert g == objective_lattice(inst, slot)
        assert Fraction(cert["claim"]["value"]) == bound
        assert (cert["claim"]["kind"] == "optimum") == (bound == Fraction(im.value))


def triangle():
    from coflowopt import Instance
    return Instance.from_paths(resource_capacity=[1.0, 1.0, 1.0], coflow_ids=["A"],
                               flow_coflow=[0, 0, 0], flow_src=[0, 1, 0], flow_dst=[1, 2, 2],
                               flow_size=[1.0, 1.0, 1.0], path_ptr=[0, 2, 4, 6],
                               path_resource=[0, 1, 1, 2, 0, 2], host_ids=["u", "v", "w"])


def test_integral_gap_stays_open(checker):
    """Fluid optimum 2, integral optimum 3 (every two flows share a link): integral-mip
    proves 3 only by HiGHS's MIP bound, so the library records it open at the certified 2."""
    tri = triangle()
    fields, cert, sched = make_module().solve_integral(tri, 20.0, checker)
    assert fields["status"] == "open" and cert["claim"]["kind"] == "lower_bound"
    assert fields["bound"]["value"] == "2" and fields["best"]["value"] == "3"
    assert fields["gap"] == 1.5 and "HiGHS" in fields["integral_mip"]["certificate_status"]
    assert "open" in fields["integral_mip"]["note"]
    assert verify_slotted(tri, sched).weighted_completion_time == 3
    idoc = json.loads(dumps_instance(tri))
    assert "for every integral schedule" in checker.check(idoc, cert)
    # the schedule of value 3 cannot be passed off as the optimum at the bound 2
    bad = copymod.deepcopy(cert)
    bad["claim"]["kind"] = "optimum"
    bad["slotted"] = sched.to_dict(tri)
    assert "not the claimed 2" in rejected(checker, idoc, bad)


# ------------------------------------------------------------------ lib status and submit
def test_cli_status_shows_the_integral_families():
    code, out, err = cli("lib", "status", "--json")
    assert code == 0, err
    rows = {r["family"]: r for r in json.loads(out)["families"]}
    for fam in FAMILIES:
        assert rows[fam]["model"] == "integral" and rows[fam]["instances"] == 30
    code, out, err = cli("lib", "status")
    assert code == 0 and "int4-mixed" in out


@pytest.fixture()
def lib_copy(tmp_path, manifest):
    """A copy of the library with one int4-unit instance, its best replaced by a worse
    verified slotted schedule (slotted-srjf) and marked open, and one bs4-unit instance."""
    from coflowopt.registry import get_algorithm
    import coflowopt.slotted_greedy  # noqa: F401
    d = tmp_path / "coflowlib"
    iid, fluid_id = "int4-unit/int4-unit-000", "bs4-unit/bs4-unit-000"
    m = {k: v for k, v in manifest.items() if not k.startswith("_")}
    m["instances"] = {i: json.loads(json.dumps(manifest["instances"][i]))
                      for i in (iid, fluid_id)}
    for i in (iid, fluid_id):
        (d / "v1" / i.split("/")[0]).mkdir(parents=True, exist_ok=True)
        e = m["instances"][i]
        for rel in (e["instance"], e["certificate"], e["best"].get("slotted") or
                    e["best"]["schedule"]):
            shutil.copy(LIB / rel, d / rel)
    e = m["instances"][iid]
    inst = read_instance_json(d / e["instance"])
    opt = Fraction(e["best"]["value"])
    worse = None
    for name in ("slotted-srjf", "slotted-ocf", "slotted-mmf"):
        s = get_algorithm("slotted", name).func(inst)
        if verify_slotted(inst, s).weighted_completion_time > opt:
            worse = s
            break
    assert worse is not None
    write_slotted_json(worse, inst, d / e["best"]["slotted"])
    e["best"].update(value=str(verify_slotted(inst, worse).weighted_completion_time),
                     algorithm=name)
    e["status"] = "open"
    (d / MANIFEST).write_text(json.dumps(m))
    return d, iid, fluid_id, opt


def test_submit_slotted(lib_copy, tmp_path):
    d, iid, fluid_id, opt = lib_copy
    m = load_manifest(d)
    current = d / m["instances"][iid]["best"]["slotted"]
    optimum = LIB / "v1" / f"{iid}.best.slotted.json"
    # equal to the best known: not recorded
    code, out, err = cli("lib", "submit", iid, current, "--library", d)
    assert code == 1 and "does not improve" in out
    # one unit missing: rejected by the integral verifier
    doc = json.loads(optimum.read_text())
    doc["slots"][-1][0][2] -= 1
    bad = tmp_path / "bad.slotted.json"
    bad.write_text(json.dumps(doc))
    code, out, err = cli("lib", "submit", iid, bad, "--library", d)
    assert code == 1 and "rejected: the verifier (integral model)" in out, (out, err)
    # a fluid schedule for an integral instance, a slotted one for a fluid instance: exit 2
    fluid_sched = LIB / "v1" / f"{fluid_id}.best.schedule.json"
    for inst_id, path in ((iid, fluid_sched), (fluid_id, optimum)):
        code, out, err = cli("lib", "submit", inst_id, path, "--library", d)
        assert code == 2 and len(err.strip().splitlines()) == 1, (out, err)
        assert str(path) in err
    # the optimum: recorded, verified again from the library
    code, out, err = cli("lib", "submit", iid, optimum, "--library", d, "--algorithm",
                         "integral-mip", "--json")
    assert code == 0, err
    assert json.loads(out)["recorded"] is True
    m = load_manifest(d)
    e = m["instances"][iid]
    assert Fraction(e["best"]["value"]) == opt and e["best"]["slotted"].endswith(
        ".best.slotted.json")
    inst = read_instance_json(d / e["instance"])
    assert verify_slotted(inst, read_slotted_schedule(d / e["best"]["slotted"], inst)
                          ).weighted_completion_time == opt
    # the stored certificate is of the optimum: check wants the status back to optimal
    e["status"] = "optimal"
    (d / MANIFEST).write_text(json.dumps({k: v for k, v in m.items() if k != "_dir"}))
    code, out, err = cli("lib", "check", "--library", d, "--json")
    assert code == 0 and json.loads(out)["ok"] == 2, out


def test_check_refuses_a_certificate_of_the_other_model(lib_copy):
    d, iid, fluid_id, _ = lib_copy
    m = load_manifest(d)
    # the integral instance given its fluid certificate: refused by lib check
    cpath = d / m["instances"][iid]["certificate"]
    cert = json.loads(cpath.read_text())
    cpath.write_text(json.dumps(cert["proof"]["fluid"]))
    reason = check_entry(m, iid, load_checker())
    assert reason is not None and "fluid model" in reason
