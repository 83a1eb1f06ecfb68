"""Certificate files and the standalone checker (tools/check_certificate.py): every certified
bound (the ordering-LP family, LP-OV, the interval LP, the fluid time-indexed LP) is confirmed
by a checker that imports nothing from coflowopt and rebuilds the LP's rows from the instance;
tampered certificates are rejected with a reason."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from coflowopt import Coflow, Instance
from coflowopt.certificate_files import instance_digest, lower_bound_certificate
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats import read_instance, write_instance
from coflowopt.generators import uniform_random
from coflowopt.registry import get_algorithm
from coflowopt.testing import instances, random_instance
from coflowopt.topology import leaf_spine, on_topology

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "tools" / "check_certificate.py"
FAMILY = ("isolated", "port", "bssi-dual", "ordering-lp")
#: the LPs whose duals name their rows (row kind + indices) and whose rows the checker rebuilds
LP_FILES = ("lp-ov", "interval-lp", "time-indexed-lp")


def _checker():
    spec = importlib.util.spec_from_file_location("check_certificate", CHECKER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


check = _checker()


def test_checker_imports_only_the_standard_library():
    text = CHECKER.read_text(encoding="utf-8")
    imports = {line.split()[1].split(".")[0] for line in text.splitlines()
               if line.startswith(("import ", "from "))}
    assert imports <= {"__future__", "bisect", "hashlib", "json", "math", "re", "sys",
                       "fractions"}, imports


def _instances():
    out = [read_instance(ROOT / "instances" / "papers" / f"{n}.json")
           for n in ("sincronia-t-s3", "sincronia-t-s4", "sincronia-fig1", "dissertation-fig5.1")]
    rng = np.random.default_rng(11)
    for i in range(6):
        out.append(random_instance(rng, max_ports=3, max_coflows=6, max_flows=3,
                                   releases=bool(i % 2), weights=True,
                                   heterogeneous=bool(i % 3 == 0)))
    return out


def _doc(inst: Instance, tmp_path: Path) -> dict:
    p = tmp_path / "inst.json"
    write_instance(inst, p)
    return json.loads(p.read_text())


@pytest.mark.parametrize("objective", ["weighted_completion_time", "weighted_cct"])
def test_every_family_bound_is_confirmed(tmp_path, objective):
    for inst in _instances():
        doc = _doc(inst, tmp_path)
        assert check.Instance(doc).digest() == instance_digest(inst)
        for name in FAMILY:
            res = get_algorithm("bound", name).func(inst, objective=objective)
            cert = lower_bound_certificate(inst, res)
            cert = json.loads(json.dumps(cert))          # through the file form
            verdict = check.check(doc, cert)
            assert verdict.startswith(objective)
            assert Fraction(cert["claim"]["value"]) == Fraction(res.value)


@pytest.mark.parametrize("size_factor, weight_factor", [(2.0 ** -30, 1.0), (2.0 ** 30, 2.0 ** -20),
                                                        (1e-6, 1e4)])
def test_bounds_solved_in_lp_units_are_confirmed_in_the_instance_units(tmp_path, size_factor,
                                                                       weight_factor):
    # far from 1, the LPs are solved in units of powers of two (certificate params['unit']):
    # the file is written in the instance's own units and checks there
    base = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    inst = base.replace(flow_size=base.flow_size * size_factor,
                        weight=base.weight * weight_factor,
                        release=base.release * size_factor)
    doc = _doc(inst, tmp_path)
    for name in FAMILY:
        res = get_algorithm("bound", name).func(inst)
        cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
        assert check.check(doc, cert)
        assert Fraction(cert["claim"]["value"]) == Fraction(res.value)


def test_t_s4_by_hand(tmp_path):
    # T-S4: the port bound is 32 and the ordering LP 32 (OPT 33; seeds-000-002.md)
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    doc = _doc(inst, tmp_path)
    for name in ("port", "ordering-lp"):
        cert = lower_bound_certificate(inst, get_algorithm("bound", name).func(inst))
        v = Fraction(cert["claim"]["value"])
        # the port bound is exactly 32; the LP's dual, repaired into exact feasibility, loses a
        # few ulps
        assert v == 32 if name == "port" else 32 * (1 - Fraction(1, 10**12)) <= v <= 32
        assert check.check(doc, cert).startswith("weighted_completion_time >= ")


def _tamper_cases(cert: dict, inst: Instance):
    cuts = cert["proof"]["cuts"]
    out = []
    c = copy.deepcopy(cert)
    c["claim"]["value"] = str(Fraction(cert["claim"]["value"]) + Fraction(1, 10**6))
    c["claim"]["value_float"] = float(Fraction(c["claim"]["value"]))
    out.append(("claim raised", c, "less than the claimed"))
    c = copy.deepcopy(cert)
    c["claim"]["value_float"] = cert["claim"]["value_float"] * (1 + 1e-6)
    out.append(("restated value changed", c, "value_float"))
    c = copy.deepcopy(cert)
    c["instance"]["coflows"] += 1
    out.append(("restated coflow count changed", c, "an instance with"))
    c = copy.deepcopy(cert)
    c["proof"]["cuts"][0]["multiplier"] = str(Fraction(cuts[0]["multiplier"]) * 2)
    out.append(("multiplier doubled", c, "exceed its weight|less than the claimed"))
    c = copy.deepcopy(cert)
    c["proof"]["cuts"][0]["multiplier"] = str(Fraction(cuts[0]["multiplier"]) / 2)
    out.append(("multiplier halved", c, "less than the claimed|exceed"))
    c = copy.deepcopy(cert)
    del c["proof"]["cuts"][0]
    out.append(("cut dropped", c, "less than the claimed"))
    c = copy.deepcopy(cert)
    c["proof"]["cuts"][0]["multiplier"] = "-" + cuts[0]["multiplier"]
    out.append(("negative multiplier", c, "negative multiplier"))
    c = copy.deepcopy(cert)
    c["proof"]["cuts"][0]["theta"] = str(float(inst.release.max()) + 1)
    out.append(("threshold above the releases", c, "threshold"))
    c = copy.deepcopy(cert)
    c["proof"]["cuts"][0]["port"] = 10**6
    out.append(("port out of range", c, "not a port"))
    c = copy.deepcopy(cert)
    c["proof"]["cuts"][0]["set"] = c["proof"]["cuts"][0]["set"] * 2
    out.append(("set repeats a coflow", c, "repeats"))
    c = copy.deepcopy(cert)
    c["instance"]["digest"] = "0" * 64
    out.append(("another instance", c, "another instance"))
    return out


def test_tampered_certificates_are_rejected(tmp_path):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    doc = _doc(inst, tmp_path)
    cert = json.loads(json.dumps(lower_bound_certificate(
        inst, get_algorithm("bound", "ordering-lp").func(inst))))
    assert cert["proof"]["cuts"], "the ordering LP of T-S4 uses cuts"
    for what, bad, reason in _tamper_cases(cert, inst):
        with pytest.raises(check.Rejected, match=reason):
            check.check(doc, bad)
            pytest.fail(f"accepted after: {what}")


def test_a_changed_instance_is_caught_by_the_numbers_not_only_the_digest(tmp_path):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    cert = lower_bound_certificate(inst, get_algorithm("bound", "ordering-lp").func(inst))
    del cert["instance"]["digest"]
    smaller = inst.replace(flow_size=inst.flow_size / 2)
    with pytest.raises(check.Rejected):
        check.check(_doc(smaller, tmp_path), cert)


def test_as_a_process(tmp_path):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    write_instance(inst, tmp_path / "i.json")
    cert = lower_bound_certificate(inst, get_algorithm("bound", "bssi-dual").func(inst))
    (tmp_path / "c.json").write_text(json.dumps(cert))
    ok = subprocess.run([sys.executable, str(CHECKER), str(tmp_path / "i.json"),
                         str(tmp_path / "c.json")], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("CONFIRMED:"), ok
    cert["claim"]["value"] = "1000"
    (tmp_path / "c.json").write_text(json.dumps(cert))
    bad = subprocess.run([sys.executable, str(CHECKER), str(tmp_path / "i.json"),
                          str(tmp_path / "c.json")], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stdout.startswith("REJECTED:"), bad
    (tmp_path / "c.json").write_text("{not json")
    unread = subprocess.run([sys.executable, str(CHECKER), str(tmp_path / "i.json"),
                             str(tmp_path / "c.json")], capture_output=True, text=True)
    assert unread.returncode == 2 and "cannot read JSON" in unread.stderr
    assert "Traceback" not in unread.stderr



def test_huge_numbers_are_refused_as_a_process_without_a_traceback_or_a_hang(tmp_path):
    """A certificate (or instance) whose number would take the checker minutes or crash it:
    exit 2, one line naming the field or file.  Before (2026-11-29, found by a fuzz): a claimed
    value "1e999999999" (Fraction() builds the 10^9-digit integer: minutes), a JSON integer of
    5,000 digits (json's ValueError past int_max_str_digits: a traceback), and "1/0", "１/2"
    (fullwidth digit) and "1_0" were read as numbers or crashed."""
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    write_instance(inst, tmp_path / "i.json")
    cert = lower_bound_certificate(inst, get_algorithm("bound", "bssi-dual").func(inst))

    def run(c_text, i_path=tmp_path / "i.json"):
        (tmp_path / "c.json").write_text(c_text, encoding="utf-8")
        return subprocess.run([sys.executable, str(CHECKER), str(i_path),
                               str(tmp_path / "c.json")], capture_output=True, text=True,
                              timeout=60)
    for value, words in (("1e999999999", "claim.value"), ("1/0", "claim.value"),
                         ("\uff11/2", "claim.value"), ("1_0", "claim.value"),
                         ("1e99999", "claim.value")):
        c = copy.deepcopy(cert)
        c["claim"]["value"] = value
        r = run(json.dumps(c))
        assert r.returncode == 2 and words in r.stderr, (value, r)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r
    text = json.dumps(cert).replace('"version": 1', '"version": ' + "9" * 5000, 1)
    r = run(text)
    assert r.returncode == 2 and "c.json" in r.stderr and "cannot read JSON" in r.stderr, r
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r
    (tmp_path / "big.json").write_text((tmp_path / "i.json").read_text().replace(
        '"version": 1', '"version": ' + "9" * 5000, 1))
    r = run(json.dumps(cert), tmp_path / "big.json")
    assert r.returncode == 2 and "big.json" in r.stderr and "Traceback" not in r.stderr, r
    # the written forms still read: p, p/q, a decimal with a short exponent
    for value in ("1", "1/2", "0.5", "5e-1", "-0"):
        assert check.exact(value, "v") == Fraction(value)

def test_only_certified_fluid_bounds_have_files():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    res = get_algorithm("bound", "time-indexed-lp").func(inst, model="slotted")
    with pytest.raises(InvalidParameterError, match="slotted optimum"):
        lower_bound_certificate(inst, res)
    res = get_algorithm("bound", "lp-ov").func(inst)
    res.certificate_status = "uncertified"
    with pytest.raises(InvalidParameterError, match="only a certified lower bound"):
        lower_bound_certificate(inst, res)


# ------------------------------------------------------------------ LP-OV, interval, time-indexed
def _run_checker(tmp_path: Path, inst: Instance, cert: dict):
    """The checker as a process: (exit code, stdout, stderr)."""
    write_instance(inst, tmp_path / "i.json")
    (tmp_path / "c.json").write_text(json.dumps(cert))
    out = subprocess.run([sys.executable, str(CHECKER), str(tmp_path / "i.json"),
                          str(tmp_path / "c.json")], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def _proved(inst: Instance, tmp_path: Path, cert: dict) -> Fraction:
    """What the file's proof gives, by the checker's own function for its type."""
    doc = _doc(inst, tmp_path)
    proof = cert["proof"]
    return check.PROOFS[proof["type"]](check.Instance(doc), proof, cert["claim"]["objective"])


def test_lp_ov_of_two_jobs_on_one_port_by_hand(tmp_path):
    # A (size 2) and B (size 1) on one port of capacity 1, unit weights: f_A >= 2 + delta_BA,
    # f_B >= 1 + 2 delta_AB, delta_AB + delta_BA = 1, so min f_A + f_B = 3 + min(delta_BA +
    # 2 delta_AB) = 4 (B first), which is OPT (1 + 3)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    cert = json.loads(json.dumps(lower_bound_certificate(
        inst, get_algorithm("bound", "lp-ov").func(inst))))
    assert cert["proof"]["type"] == "lp-ov-dual" and cert["claim"]["value"] == "4"
    code, out, _ = _run_checker(tmp_path, inst, cert)
    assert code == 0 and out.startswith("CONFIRMED: weighted_completion_time >= 4 (4)"), out


@pytest.mark.parametrize("name, figure", [
    # formulations/lp_ov.md and time_indexed.md "Figures"; interval_lp.md "What it yields"
    ("lp-ov", 32.0), ("interval-lp", 27.67), ("time-indexed-lp", 31.17)])
def test_t_s4_lp_files_are_confirmed_as_a_process(tmp_path, name, figure):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    kw = {"slot": 1.0} if name == "time-indexed-lp" else {}
    res = get_algorithm("bound", name).func(inst, **kw)
    assert float(res.value) == pytest.approx(figure, abs=0.01)
    cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
    assert cert["proof"]["rows"], "the dual uses rows"
    code, out, err = _run_checker(tmp_path, inst, cert)
    assert code == 0 and out.startswith("CONFIRMED: weighted_completion_time >= ") and \
        f"{name}-dual" in out, (out, err)
    assert _proved(inst, tmp_path, cert) == Fraction(res.value)


@pytest.mark.parametrize("objective", ["weighted_completion_time", "weighted_cct"])
def test_every_lp_file_is_confirmed_at_the_in_process_value(tmp_path, objective):
    for inst in _instances():
        doc = _doc(inst, tmp_path)
        for name in LP_FILES:
            res = get_algorithm("bound", name).func(inst, objective=objective)
            cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
            assert check.check(doc, cert).startswith(objective)
            assert _proved(inst, tmp_path, cert) == Fraction(res.value)


def test_lp_files_in_lp_units_and_on_a_topology(tmp_path):
    # far from 1 the LPs are solved in units of powers of two: the file is in the instance's
    base = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    scaled = [base.replace(flow_size=base.flow_size * sf, weight=base.weight * wf,
                           release=base.release * sf)
              for sf, wf in ((2.0 ** -30, 1.0), (2.0 ** 30, 2.0 ** -20), (1e-6, 1e4))]
    rng = np.random.default_rng(3)
    bs = random_instance(rng, max_ports=4, max_coflows=6, max_flows=4, releases=True,
                         weights=True, heterogeneous=True)
    topo = on_topology(bs, leaf_spine(2, 2, 2, oversubscription=2), routing="ecmp", seed=1)
    assert not topo.is_big_switch
    for inst in scaled + [topo]:
        doc = _doc(inst, tmp_path)
        for name in LP_FILES:
            res = get_algorithm("bound", name).func(inst)
            cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
            assert check.check(doc, cert)
            assert _proved(inst, tmp_path, cert) == Fraction(res.value)
            if not inst.is_big_switch:
                assert all("port" not in r for r in cert["proof"]["rows"])


def test_time_indexed_without_overflow_needs_the_safe_horizon(tmp_path):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    res = get_algorithm("bound", "time-indexed-lp").func(inst, horizon="safe", overflow=False)
    cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
    assert cert["proof"]["overflow"] is False
    doc = _doc(inst, tmp_path)
    assert check.check(doc, cert)
    short = copy.deepcopy(cert)
    short["proof"]["boundaries"] = short["proof"]["boundaries"][:-1]
    with pytest.raises(check.Rejected, match="safe horizon"):
        check.check(doc, short)


def _essential_row(cert: dict, doc: dict) -> int:
    """The row with the largest multiplier whose removal leaves a proof below the claim (a
    dual may carry rows the bound does not need: dropping those proves the claim still)."""
    rows, claim = cert["proof"]["rows"], Fraction(cert["claim"]["value"])
    inst = check.Instance(doc)
    for n in sorted(range(len(rows)), key=lambda n: -abs(Fraction(rows[n]["multiplier"]))):
        proof = copy.deepcopy(cert["proof"])
        del proof["rows"][n]
        if check.PROOFS[proof["type"]](inst, proof, cert["claim"]["objective"]) < claim:
            return n
    pytest.fail("no row of the dual is needed for the claim")


def _lp_tamper_cases(cert: dict, i: int):
    rows = cert["proof"]["rows"]
    out = []
    c = copy.deepcopy(cert)
    c["proof"]["rows"][i]["multiplier"] = str(Fraction(rows[i]["multiplier"]) * 2)
    out.append(("multiplier doubled", c, "dual feasible|less than the claimed"))
    c = copy.deepcopy(cert)
    del c["proof"]["rows"][i]
    out.append(("row dropped", c, "dual feasible|less than the claimed"))
    c = copy.deepcopy(cert)
    c["claim"]["value"] = str(Fraction(cert["claim"]["value"]) * (1 + Fraction(1, 10**9)))
    out.append(("claim raised", c, "less than the claimed"))
    c = copy.deepcopy(cert)
    c["instance"]["digest"] = "0" * 64
    out.append(("another instance", c, "another instance"))
    c = copy.deepcopy(cert)
    c["proof"]["rows"][i]["coflow"] = 10**6
    out.append(("coflow out of range", c, "coflow"))
    ineq = next((n for n, r in enumerate(rows) if r.get("row") != "cumulative"), None)
    c = copy.deepcopy(cert)
    c["proof"]["rows"][ineq]["multiplier"] = "-" + rows[ineq]["multiplier"].lstrip("-")
    out.append(("negative multiplier", c, "negative multiplier"))
    return out


@pytest.mark.parametrize("name", LP_FILES)
def test_tampered_lp_files_are_rejected(tmp_path, name):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    doc = _doc(inst, tmp_path)
    cert = json.loads(json.dumps(lower_bound_certificate(
        inst, get_algorithm("bound", name).func(inst))))
    i = _essential_row(cert, doc)
    for what, bad, reason in _lp_tamper_cases(cert, i):
        with pytest.raises(check.Rejected, match=reason):
            check.check(doc, bad)
            pytest.fail(f"accepted after: {what}")
    # the same as processes: REJECTED with the reason on stdout, exit 1
    for what, bad, reason in _lp_tamper_cases(cert, i)[:4]:
        code, out, err = _run_checker(tmp_path, inst, bad)
        assert code == 1 and out.startswith("REJECTED: ") and "Traceback" not in err, \
            (what, out, err)
    # the instance changed (sizes halved, digest dropped): the rebuilt rows reject it
    c = copy.deepcopy(cert)
    del c["instance"]["digest"]
    with pytest.raises(check.Rejected):
        check.check(_doc(inst.replace(flow_size=inst.flow_size / 2), tmp_path), c)


def test_interval_grid_must_increase(tmp_path):
    inst = read_instance(ROOT / "instances" / "papers" / "sincronia-t-s4.json")
    cert = json.loads(json.dumps(lower_bound_certificate(
        inst, get_algorithm("bound", "interval-lp").func(inst))))
    cert["proof"]["tau"][1] = cert["proof"]["tau"][0]
    with pytest.raises(check.Rejected, match="increasing"):
        check.check(_doc(inst, tmp_path), cert)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(inst=instances(max_ports=3, max_coflows=5, max_flows=3, releases=True,
                      heterogeneous=True))
def test_lp_files_confirm_the_in_process_value(tmp_path, inst):
    # on random small instances (releases, weights, heterogeneous capacities) the checker,
    # rebuilding every row from the instance, proves exactly what coflowopt certified
    doc = _doc(inst, tmp_path)
    for name in LP_FILES:
        res = get_algorithm("bound", name).func(inst)
        cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
        assert check.check(doc, cert).startswith("weighted_completion_time >= ")
        assert _proved(inst, tmp_path, cert) == Fraction(res.value)


# ------------------------------------------------ malformed fields (the checker's edge)
#: CoflowLib certificates of every proof kind the checker reads: an optimum whose nodes carry
#: LP duals (and one with releases), an ordering-LP cut proof, an LP-OV dual, an integral
#: optimum (a fluid certificate inside)
MALFORMED_CASES = ("bs8-hetcap/bs8-hetcap-029", "bs4-releases/bs4-releases-026",
                   "ordering-lp", "lp-ov", "int4-unit/int4-unit-017")
BAD_VALUES = (None, "x", -1, [], {}, True, KeyError)      # KeyError: the field removed
#: fields that name rather than prove (any name is accepted), and the search's dominance rule
#: (the checker checks the closed nodes under the rule it is given)
NAMES = ("algorithm", "source", "dominance")
#: fields with a documented default that is always valid (a cut's threshold: 0)
DEFAULTED = ("theta",)
#: optional restatements: removing one leaves the same proof
RESTATEMENTS = {"instance": ("digest", "coflows", "flows"), "claim": ("value_float",),
                "proof": ("stats", "fluid_value", "rounded", "integral_isolated")}


def _field_paths(obj, path=()):
    """Every field of a JSON document, lists cut to their first entry."""
    if path:
        yield path
    if isinstance(obj, dict):
        for key, val in obj.items():
            yield from _field_paths(val, path + (key,))
    elif isinstance(obj, list) and obj:
        yield from _field_paths(obj[0], path + (0,))


def _replaced(doc, path, value):
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def _without_restatements(cert):
    """The certificate with its optional restatements removed (recursively, for the fluid
    certificate inside an integral one)."""
    out = copy.deepcopy(cert)
    for block, keys in RESTATEMENTS.items():
        if isinstance(out.get(block), dict):
            for key in keys:
                out[block].pop(key, None)
            if block == "instance" and not out[block]:
                del out[block]
    if isinstance(out.get("proof"), dict) and isinstance(out["proof"].get("fluid"), dict):
        out["proof"]["fluid"] = _without_restatements(out["proof"]["fluid"])
    return out


@pytest.mark.parametrize("case", MALFORMED_CASES)
def test_every_malformed_field_is_rejected_or_unreadable_never_a_crash(case, tmp_path):
    """Each field of a stored certificate replaced by a value of the wrong kind, or removed:
    the checker raises Rejected or Unreadable (exit 1 or 2 with one line), never another
    exception (a traceback), and confirms only when the document still means the same (an
    optional restatement removed, a name changed).  Before (2026-11-28): ``instance.digest``
    as a number, ``proof.type`` as an object and ``duals.order`` as a number were TypeErrors,
    ``"version": true`` was read as 1, and a wrong ``claim.value_float``,
    ``instance.coflows`` or ``proof.integral_isolated`` passed unread."""
    if "/" not in case:
        # CoflowLib's cut and LP-dual proofs are all on FB samples (0.1-1 MB instances, too
        # slow to read 700 times): the same proofs on 8 coflows with releases, where the
        # cuts / rows carry the bound
        inst = uniform_random(num_ports=4, num_coflows=8, size=(1, 9), releases=(0, 6), seed=2)
        inst_doc = _doc(inst, tmp_path)
        cert = json.loads(json.dumps(lower_bound_certificate(
            inst, get_algorithm("bound", case).func(inst))))
        with pytest.raises(check.Rejected):
            key = "cuts" if case == "ordering-lp" else "rows"
            check.check(inst_doc, _replaced(cert, ("proof", key), []))
    else:
        base = ROOT / "instances" / "coflowlib" / "v1" / case
        inst_doc = json.loads(base.with_suffix(".instance").read_text())
        cert = json.loads(Path(str(base) + ".certificate").read_text())
    check.check(inst_doc, cert)
    plain = _without_restatements(cert)
    confirmed_wrongly, crashes, tried = [], [], 0
    for path in list(_field_paths(cert)):
        for value in BAD_VALUES:
            doc = _replaced(cert, path, value)
            tried += 1
            try:
                verdict = check.check(inst_doc, doc)
            except (check.Rejected, check.Unreadable):
                continue
            except Exception as e:                    # noqa: BLE001 -- the defect sought
                crashes.append((path, value, f"{type(e).__name__}: {e}"))
                continue
            named = path[-1] in NAMES and (value is KeyError or isinstance(value, (str, bool)))
            named = named or (path[-1] in DEFAULTED and value is KeyError)
            if not named and _without_restatements(doc) != plain:
                confirmed_wrongly.append((path, value, verdict[:80]))
    assert tried > 100
    assert not crashes, crashes[:5]
    assert not confirmed_wrongly, confirmed_wrongly[:5]
