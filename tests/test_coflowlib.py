"""CoflowLib (instances/coflowlib/, coflowopt.coflowlib, ``coflowopt lib``).

The stored library: counts, manifest fields, a sample re-checked in process (the whole library
is ``coflowopt lib check``, about 40 s, not run here), the papers family checked by the CLI as a
process; ``lib submit`` on a copy: a worse, an invalid and a better schedule.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from coflowopt.coflowlib import (MANIFEST, best_file, best_schedule, check_entry,
                                 load_checker, load_manifest, order_document, status_rows)
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats.instance_json import read_instance_json
from coflowopt.formats.schedule_io import read_schedule_json, write_schedule_json
from coflowopt.registry import get_algorithm
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "instances" / "coflowlib"


def cli(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "coflowopt", *map(str, args)], cwd=cwd,
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def manifest():
    return load_manifest()


def test_release_counts(manifest):
    es = manifest["instances"]
    assert manifest["release"] == "v1" and len(es) >= 300
    assert sum(e["status"] == "optimal" for e in es.values()) >= 250
    fams = {e["family"] for e in es.values()}
    assert {"papers", "adversarial", "bs4-unit", "bs4-weights", "bs4-releases", "bs4-hetcap",
            "bs4-mixed", "bs8-unit", "bs8-weights", "bs8-releases", "bs8-hetcap",
            "bs8-mixed", "ls222-unit", "ls222-mixed", "ft4-unit", "ft4-mixed", "bs4k12-weights"} <= fams
    assert fams <= set(manifest["families"])


def test_manifest_entries(manifest):
    for iid, e in manifest["instances"].items():
        assert iid.split("/")[0] == e["family"]
        for key in ("instance", "certificate"):
            assert (LIB / e[key]).is_file(), (iid, key)
        assert (LIB / best_file(e)).is_file()
        assert e["best"].get("verified", "exact") in ("exact", "float")
        best, bound = Fraction(e["best"]["value"]), Fraction(e["bound"]["value"])
        assert best >= bound
        if e["status"] == "optimal":
            assert best == bound and e["gap"] == 1.0
        else:
            assert e["status"] == "open" and e["gap"] == pytest.approx(float(best / bound))


def test_random_families_are_reproducible(manifest):
    sys.path.insert(0, str(LIB))
    try:
        import make_coflowlib as mk
    finally:
        sys.path.remove(str(LIB))
    from coflowopt.certificate_files import instance_digest
    for fam in ("bs4-mixed", "bs8-unit", "ls222-mixed", "ft4-unit", "bs4k12-weights"):
        for seed in (0, 29):
            iid = f"{fam}/{fam}-{seed:03d}"
            stored = read_instance_json(LIB / manifest["instances"][iid]["instance"])
            assert instance_digest(mk.build_random(manifest["families"][fam], seed)) == \
                instance_digest(stored)


def fb(iid: str) -> bool:
    return iid.startswith("fb")


def test_sample_rechecked(manifest):
    """12 instances of the small families (the FB samples are rebuilt from orders and checked
    by ``coflowopt lib check --family ...``: minutes, not here)."""
    checker = load_checker()
    ids = sorted(i for i in manifest["instances"] if not fb(i))
    sample = random.Random(0).sample(ids, 12)
    for iid in sample:
        assert check_entry(manifest, iid, checker) is None, iid


def test_status_rows(manifest):
    rows = status_rows(manifest)
    assert sum(r["instances"] for r in rows) == len(manifest["instances"])
    assert all(r["mean_gap"] >= 1.0 and r["solved"] <= r["instances"] for r in rows)


def test_cli_status_and_check_papers():
    code, out, err = cli("lib", "status", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["instances"] >= 300 and {r["family"] for r in doc["families"]} >= {"papers"}
    code, out, err = cli("lib", "check", "--family", "papers", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["checked"] == 10 and doc["failed"] == []
    code, out, err = cli("lib", "check", "--family", "nope")
    assert code == 2 and len(err.strip().splitlines()) == 1


@pytest.fixture()
def copy(tmp_path, manifest):
    """A copy of the library restricted to two bs4-unit instances, with instance 000's best
    schedule replaced by a worse verified one (BSSI + greedy) and marked open."""
    d = tmp_path / "coflowlib"
    ids = ["bs4-unit/bs4-unit-000", "bs4-unit/bs4-unit-001"]
    (d / "v1" / "bs4-unit").mkdir(parents=True)
    m = {k: v for k, v in manifest.items() if not k.startswith("_")}
    m["instances"] = {i: json.loads(json.dumps(manifest["instances"][i])) for i in ids}
    for i in ids:
        for suf in (".instance", ".certificate", ".best.schedule.json"):
            shutil.copy(LIB / "v1" / f"{i}{suf}", d / "v1" / f"{i}{suf}")
    iid = ids[0]
    inst = read_instance_json(d / "v1" / f"{iid}.instance")
    order = get_algorithm("ordering", "bssi").func(inst)
    worse = get_algorithm("rates", "greedy").func(inst, order)
    rep = verify_schedule(inst, worse, mode="exact")
    assert rep.ok
    e = m["instances"][iid]
    opt = Fraction(e["best"]["value"])
    assert Fraction(rep.weighted_completion_time) > opt
    write_schedule_json(worse, inst, d / e["best"]["schedule"])
    e["best"].update(value=str(Fraction(rep.weighted_completion_time)), algorithm="bssi+greedy")
    e["status"] = "open"
    (d / MANIFEST).write_text(json.dumps(m))
    return d, iid, opt


def test_submit_worse_invalid_better(copy, tmp_path):
    d, iid, opt = copy
    m = load_manifest(d)
    e = m["instances"][iid]
    current = d / e["best"]["schedule"]
    # equal to the best known: not recorded
    code, out, err = cli("lib", "submit", iid, current, "--library", d)
    assert code == 1 and "does not improve" in out
    # an infeasible one (a rate raised): rejected by the verifier
    optimal = LIB / "v1" / f"{iid}.best.schedule.json"
    doc = json.loads(optimal.read_text())
    seg = doc["segments"][0]
    seg["rates"][0][2] = str(Fraction(seg["rates"][0][2]) * 2)
    bad = tmp_path / "bad.schedule.json"
    bad.write_text(json.dumps(doc))
    code, out, err = cli("lib", "submit", iid, bad, "--library", d)
    assert code == 1 and "rejected" in out, (out, err)
    # the optimum: recorded
    code, out, err = cli("lib", "submit", iid, optimal, "--library", d, "--algorithm", "bnb",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["recorded"] is True
    m = load_manifest(d)
    assert Fraction(m["instances"][iid]["best"]["value"]) == opt
    assert m["instances"][iid]["best"]["algorithm"] == "bnb"
    inst = read_instance_json(d / m["instances"][iid]["instance"])
    rep = verify_schedule(inst, read_schedule_json(d / m["instances"][iid]["best"]["schedule"],
                                                   inst, exact=True), mode="exact")
    assert rep.ok and rep.weighted_completion_time == opt
    # bad input: one line, exit 2
    code, out, err = cli("lib", "submit", "nope/x", optimal, "--library", d)
    assert code == 2 and len(err.strip().splitlines()) == 1
    # a missing file is "no such file" (was the OS's "[Errno 2] ..."), a malformed one is
    # named once (the path was printed twice)
    code, out, err = cli("lib", "submit", iid, tmp_path / "none.json", "--library", d)
    assert code == 2 and err.strip().endswith("none.json: no such file"), err
    broken = tmp_path / "broken.schedule.json"
    broken.write_text('{"format": "coflowopt-schedule", "version": 1, "segments": [3]}')
    code, out, err = cli("lib", "submit", iid, broken, "--library", d)
    assert code == 2 and err.count(str(broken)) == 1 and "segments[0]" in err, err


def test_check_rejects_a_tampered_certificate(copy):
    d, iid, _ = copy
    other = "bs4-unit/bs4-unit-001"
    code, out, err = cli("lib", "check", "--library", d, "--json")
    # instance 000 was marked open with an optimum certificate: inconsistent, reported
    assert code == 1
    doc = json.loads(out)
    assert [f["instance"] for f in doc["failed"]] == [iid]
    cpath = d / "v1" / f"{other}.certificate"
    cert = json.loads(cpath.read_text())
    del cert["proof"]["nodes"][0]
    cpath.write_text(json.dumps(cert))
    code, out, err = cli("lib", "check", "--library", d, "--json")
    assert code == 1
    failed = {f["instance"]: f["reason"] for f in json.loads(out)["failed"]}
    assert "REJECTED" in failed[other]



def test_malformed_library_and_submitted_files_are_bad_input_not_a_crash(copy, tmp_path):
    """Each is exit 2 with one line naming the file (or exit 1 naming the instance for a stored
    certificate), never exit 3 and a traceback.  Before (2026-11-29, an edge fuzz of lib as
    processes): a manifest that was empty, not JSON, a list, without 'instances', with a null
    entry or a 5,000-digit integer, and a submitted schedule with a 5,000-digit integer or
    nested 100,000 deep (the kind-of-document peek caught only JSONDecodeError), and a stored
    certificate with a 5,000-digit integer (lib check), were internal errors."""
    d, iid, _ = copy
    good = json.loads((d / MANIFEST).read_text())
    optimal = LIB / "v1" / f"{iid}.best.schedule.json"

    def one_line(code, err, *words):
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err and all(w in err for w in words), err
    for name, text, words in (
            ("submitted 5000 digits", optimal.read_text().replace(
                '"start": 0', '"start": ' + "9" * 5000, 1), ("digits",)),
            ("submitted deep", "[" * 100_000 + "]" * 100_000, ("nest",))):
        sub = tmp_path / f"{name.replace(' ', '_')}.json"
        sub.write_text(text)
        code, out, err = cli("lib", "submit", iid, sub, "--library", d, "--json")
        one_line(code, err, str(sub), *words)
    bad_entry = json.loads(json.dumps(good))
    bad_entry["instances"][iid]["gap"] = "1.0"
    for text, words in (("", ("not valid JSON",)), ("[]", ("coflowlib-manifest",)),
                        (json.dumps({k: v for k, v in good.items() if k != "instances"}),
                         ("instances",)),
                        (json.dumps({**good, "instances": {**good["instances"], iid: None}}),
                         (iid, "object")),
                        (json.dumps(bad_entry), (iid, "gap")),
                        (json.dumps(good).replace('"version": 1', '"version": ' + "9" * 5000),
                         ("digits",))):
        (d / MANIFEST).write_text(text)
        for args in (["status"], ["check"], ["submit", iid, optimal]):
            code, out, err = cli("lib", *args, "--library", d, "--json")
            one_line(code, err, MANIFEST, *words)
    (d / MANIFEST).write_text(json.dumps(good))
    cpath = d / "v1" / "bs4-unit" / "bs4-unit-001.certificate"
    cpath.write_text(cpath.read_text().replace('"version":1', '"version":' + "9" * 5000, 1)
                     .replace('"version": 1', '"version": ' + "9" * 5000, 1))
    code, out, err = cli("lib", "check", "--library", d, "--json")
    assert code == 1 and "Traceback" not in err, err
    failed = {f["instance"]: f["reason"] for f in json.loads(out)["failed"]}
    assert "certificate unreadable" in failed["bs4-unit/bs4-unit-001"], failed

def test_open_instance_gets_a_checkable_bound():
    """An instance bnb does not prove in time: best verified schedule, the ordering-LP bound's
    certificate (confirmed by the checker inside ``solve``), gap > 1."""
    sys.path.insert(0, str(LIB))
    try:
        import make_coflowlib as mk
    finally:
        sys.path.remove(str(LIB))
    from coflowopt.generators import uniform_random
    inst = uniform_random(4, 14, seed=3, weights=(1, 5), releases=(0, 5))
    fields, cert, sched = mk.solve(inst, 1.0, load_checker())
    assert fields["status"] == "open" and cert["claim"]["kind"] == "lower_bound"
    assert fields["gap"] > 1
    rep = verify_schedule(inst, sched, mode="exact")
    assert rep.ok and rep.weighted_completion_time == Fraction(fields["best"]["value"])


def test_baselines_recorded(manifest):
    for e in manifest["instances"].values():
        if e.get("model") == "integral":      # slotted heuristics: test_coflowlib_integral.py
            continue
        assert set(e["baselines"]) == {"bssi+greedy", "ordering-lp+greedy", "sebf+madd",
                                       "fifo+greedy"}
        # a verified heuristic schedule is never below the proven optimum
        assert all(b["ratio"] >= 1 - 1e-9 for b in e["baselines"].values())


# ------------------------------------------------------------------------- FB-trace samples
FB_FAMILIES = {f"fb{k}-{s}" for k in (20, 50, 100, 200) for s in ("zero", "trace")}


def make_module():
    sys.path.insert(0, str(LIB))
    try:
        import make_coflowlib as mk
    finally:
        sys.path.remove(str(LIB))
    return mk


def test_fb_families_recorded(manifest):
    """Every FB family is in the manifest with its provenance; every instance file is
    self-contained (coflowopt-instance JSON, its meta naming the trace, seed and coflow ids),
    and the status is honest: open with an order document or a schedule and a bound
    certificate, or optimal."""
    assert FB_FAMILIES <= set(manifest["families"])
    for fam in FB_FAMILIES:
        src = manifest["families"][fam]["source"]
        assert src["trace"] == "FB2010-1Hr-150-0.txt" and len(src["trace_sha256"]) == 64
        es = {i: e for i, e in manifest["instances"].items() if e["family"] == fam}
        assert len(es) == len(src["seeds"]) >= 1
        for iid, e in es.items():
            assert (LIB / e["instance"]).is_file()
            if src["coflows"] > 50:
                continue        # 2-5 MB files: parsed by test_fb_provenance_regenerates
            doc = json.loads((LIB / e["instance"]).read_text())
            assert doc["format"] == "coflowopt-instance"
            meta = doc["meta"]
            assert meta["seed"] == e["sample"]["seed"] and \
                meta["sampled_coflow_ids"] == e["sample"]["coflow_ids"]
            assert [c["id"] for c in doc["coflows"]] == meta["sampled_coflow_ids"]
            assert len(doc["coflows"]) == src["coflows"]
            rel = [c.get("release", 0) for c in doc["coflows"]]
            assert min(rel) == 0 and (max(rel) == 0) == (src["releases"] == "zero")
            assert e["status"] in ("open", "optimal")
            assert e["gap"] == pytest.approx(float(Fraction(e["best"]["value"]) /
                                                   Fraction(e["bound"]["value"])))


def test_fb_provenance_regenerates(manifest, fb_trace_path):
    """The generator rebuilds the stored FB instances from the trace: the same seed gives the
    same coflow ids, and the instance has the same exact content (digest) as the file."""
    mk = make_module()
    from coflowopt.certificate_files import instance_digest
    whole = mk.read_trace(fb_trace_path)
    for fam in ("fb20-zero", "fb20-trace", "fb200-trace"):
        spec = manifest["families"][fam]
        seed = spec["source"]["seeds"][-1]
        e = manifest["instances"][f"{fam}/{fam}-{seed:03d}"]
        ids = [str(whole.coflow_ids[i])
               for i in mk.fb_sample(whole.num_coflows, spec["source"]["coflows"], seed)]
        assert ids == e["sample"]["coflow_ids"]
        built = mk.build_fb(spec, seed, fb_trace_path)
        stored = read_instance_json(LIB / e["instance"])
        assert instance_digest(built) == instance_digest(stored)
        assert built.meta["sampled_coflow_ids"] == stored.meta["sampled_coflow_ids"]


def test_fb_entry_rechecked(manifest):
    """One FB sample re-checked as ``lib check`` does: its order document rebuilt into a
    schedule and verified, its bound certificate confirmed by the standalone checker."""
    checker = load_checker()
    iid = min((i for i, e in manifest["instances"].items()
               if fb(i) and "order" in e["best"] and e["best"]["verified"] == "float"),
              key=lambda i: manifest["instances"][i]["flows"])
    assert check_entry(manifest, iid, checker) is None


def test_order_document_round_trip_and_bad_input():
    from coflowopt.generators import uniform_random
    inst = uniform_random(4, 5, seed=1)
    order = get_algorithm("ordering", "bssi").func(inst)
    doc = order_document(inst, order, "greedy", "bssi+greedy")
    assert doc["order"] == [inst.coflow_ids[k] for k in order]
    direct = verify_schedule(inst, get_algorithm("rates", "greedy").func(inst, order))
    rebuilt = verify_schedule(inst, best_schedule(inst, json.loads(json.dumps(doc))))
    assert rebuilt.weighted_completion_time == direct.weighted_completion_time
    for bad, rule in (({**doc, "order": doc["order"][:-1]}, "every coflow id"),
                      ({**doc, "order": doc["order"] + ["zz"]}, "every coflow id"),
                      ({**doc, "rates": "nope"}, "not a registered rate allocation"),
                      ({**doc, "rate_params": {"nope": 1}},
                       "'rate_params.nope': greedy has no parameter 'nope'"),
                      ({**doc, "rate_params": [1]}, "'rate_params' must be an object"),
                      ({**doc, "version": 2}, "needs version 1")):
        with pytest.raises(InvalidParameterError, match=re.escape(rule)):
            best_schedule(inst, bad)


def test_submit_order_document(copy, tmp_path):
    """An order document is verified like a schedule (rebuilt first): the current best's order
    does not improve; a malformed one is bad input (exit 2, one line)."""
    d, iid, opt = copy
    m = load_manifest(d)
    inst = read_instance_json(d / m["instances"][iid]["instance"])
    doc = order_document(inst, get_algorithm("ordering", "bssi").func(inst), "greedy")
    p = tmp_path / "o.json"
    p.write_text(json.dumps(doc))
    code, out, err = cli("lib", "submit", iid, p, "--library", d)
    assert code == 1 and "does not improve" in out, (out, err)
    p.write_text(json.dumps({**doc, "order": doc["order"][1:]}))
    code, out, err = cli("lib", "submit", iid, p, "--library", d)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "order" in err


def test_optimal_by_a_bound_the_schedule_meets(tmp_path):
    """Status optimal with a lower-bound certificate is accepted only when the best schedule,
    verified exactly, is worth exactly the certified bound; an open entry needs the bound."""
    from coflowopt import Coflow, Instance
    from coflowopt.bounds.simple import isolated_bound
    from coflowopt.certificate_files import lower_bound_certificate
    from coflowopt.formats.instance_json import write_instance_json
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(1, 1, 3.0)])])
    cert = lower_bound_certificate(inst, isolated_bound(inst))
    assert Fraction(cert["claim"]["value"]) == 5      # A done at 2, B at 3: no shared port
    (tmp_path / "v1").mkdir()
    write_instance_json(inst, tmp_path / "v1" / "x.instance")
    (tmp_path / "v1" / "x.certificate").write_text(json.dumps(cert))
    (tmp_path / "v1" / "x.best.order.json").write_text(json.dumps(
        order_document(inst, [0, 1], "greedy")))
    entry = {"family": "t", "instance": "v1/x.instance", "certificate": "v1/x.certificate",
             "status": "optimal", "best": {"value": "5", "order": "v1/x.best.order.json",
                                           "verified": "exact", "algorithm": "a"},
             "bound": {"value": "5"}, "gap": 1.0}
    m = {"_dir": str(tmp_path), "instances": {"t/x": entry}}
    checker = load_checker()
    assert check_entry(m, "t/x", checker) is None
    entry["best"]["verified"] = "float"          # optimal needs the exact verification
    assert "status optimal" in check_entry(m, "t/x", checker)
    entry["best"]["verified"] = "exact"
    entry["best"]["value"] = "6"                 # the manifest must state the verified value
    assert "worth 5" in check_entry(m, "t/x", checker)


def test_submit_to_a_float_verified_entry(tmp_path, manifest):
    """The large FB samples' bests are float-verified (exact arithmetic refuses a float
    schedule by rounding); submit verified every schedule exactly, so it refused the entry's
    own best order ("the verifier (exact mode) refuses the schedule") and no better schedule of
    those entries could ever be recorded.  Now: float mode where the entry is float-verified,
    an improvement larger than the float noise (1e-9 relative) recorded as float-verified."""
    iid = next(i for i, e in sorted(manifest["instances"].items())
               if e["best"].get("verified") == "float" and "order" in e["best"]
               and e["family"].startswith("fb100"))
    e = manifest["instances"][iid]
    d = tmp_path / "coflowlib"
    m = {k: v for k, v in manifest.items() if not k.startswith("_")}
    m["instances"] = {iid: json.loads(json.dumps(e))}
    for rel in (e["instance"], e["certificate"], e["best"]["order"]):
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(LIB / rel, d / rel)
    best = Fraction(e["best"]["value"])
    # as stored: the same value is no improvement (was: rejected by the exact verifier)
    (d / MANIFEST).write_text(json.dumps(m))
    code, out, err = cli("lib", "submit", iid, LIB / e["best"]["order"], "--library", d,
                         "--json")
    assert code == 1 and "does not improve" in out and "float mode" in out, (out, err)
    # a manifest whose best is worse by 1e-6: the same order is an improvement, recorded
    m["instances"][iid]["best"]["value"] = str(best * (1 + Fraction(1, 10**6)))
    (d / MANIFEST).write_text(json.dumps(m))
    code, out, err = cli("lib", "submit", iid, LIB / e["best"]["order"], "--library", d,
                         "--json", "--algorithm", "again")
    assert code == 0, (out, err)
    rec = load_manifest(d)["instances"][iid]["best"]
    assert rec["verified"] == "float" and rec["algorithm"] == "again"
    assert abs(Fraction(rec["value"]) - best) <= best * Fraction(1, 10**9)


def test_check_tells_unreadable_data_from_an_internal_error(tmp_path, manifest, monkeypatch):
    """A missing file is "cannot read"; an exception of the checking code itself (an
    AttributeError while the verifier was being edited) is named as an internal error, not
    blamed on the library's files."""
    import coflowopt.coflowlib as cl
    iid = "bs4-unit/bs4-unit-000"
    m = {**manifest, "instances": {iid: json.loads(json.dumps(manifest["instances"][iid]))}}
    checker = load_checker()
    assert check_entry(m, iid, checker) is None
    bad = {**m, "_dir": str(tmp_path)}
    assert check_entry(bad, iid, checker).startswith("cannot read: ")

    def broken(*a, **k):
        raise AttributeError("module has no attribute 'sorted_ends_pass'")
    monkeypatch.setattr(cl, "_verify_best", broken)
    why = check_entry(m, iid, checker)
    assert why.startswith("internal error while checking (please report it): AttributeError")
