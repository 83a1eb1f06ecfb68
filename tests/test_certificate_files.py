"""Certificate files and the standalone checker (tools/check_certificate.py): every certified
bound of the ordering-LP family is confirmed by a checker that imports nothing from coflowopt;
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

from coflowopt import Coflow, Instance
from coflowopt.certificate_files import instance_digest, lower_bound_certificate
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats import read_instance, write_instance
from coflowopt.registry import get_algorithm
from coflowopt.testing import random_instance

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "tools" / "check_certificate.py"
FAMILY = ("isolated", "port", "bssi-dual", "ordering-lp")


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
    assert imports <= {"__future__", "hashlib", "json", "sys", "fractions"}, imports


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
    out.append(("claim raised", c, "less than the claimed"))
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


def test_only_certified_family_bounds_have_files():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    res = get_algorithm("bound", "interval-lp").func(inst)
    with pytest.raises(InvalidParameterError, match="ordering-LP family"):
        lower_bound_certificate(inst, res)
