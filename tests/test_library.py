"""The instance library: every entry loads, every provenance file follows the schema, every
stored schedule verifies (float and exact) with exactly the recorded values."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction

import numpy as np
import pytest

from coflowopt import Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats.instance_json import dumps_instance, read_instance_json
from coflowopt.generators import madd_fair_family
from coflowopt.library import (METRICS, PROVENANCE_FORMAT, agrees_with_printed,
                               default_instances, library_dir, list_instances, load_instance,
                               load_provenance, load_schedule, schedule_metrics)
from coflowopt.verify import verify_schedule

NAMES = list_instances()
TAGS = {"TEXT", "RECON", "DERIV"}
TOP_KEYS = {"format", "version", "name", "title", "instance", "source", "construction",
            "assumptions", "units", "printed", "claims", "discrepancies", "notes"}
CLAIM_KEYS = {"id", "description", "tag", "printed", "derived", "status", "schedule",
              "verified", "optimality", "notes"}
VERIFIED = [(n, c["id"]) for n in NAMES for c in load_provenance(n)["claims"]
            if c["status"] == "verified"]


def test_library_has_the_paper_examples():
    expected = {"papers/dissertation-fig5.1", "papers/dissertation-fig3.2",
                "papers/sincronia-fig1", "papers/sincronia-fig1-eps0.01",
                "papers/sincronia-t-s3", "papers/sincronia-t-s4", "papers/dissertation-figB.2",
                "papers/dissertation-fig6.1", "papers/dissertation-fig5.3",
                "papers/dissertation-figB.1"}
    assert expected <= set(NAMES)
    assert library_dir().name == "instances"


@pytest.mark.parametrize("name", NAMES)
def test_entry_loads_and_is_written_in_the_exact_format(name):
    inst = load_instance(name)
    assert isinstance(inst, Instance) and inst.meta["library_name"] == name
    path = library_dir() / f"{name}.json"
    # Written by write_instance_json: exact shape, no meta, byte-identical on re-serialising.
    assert path.read_text(encoding="utf-8") == dumps_instance(read_instance_json(path))
    assert "meta" not in json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_provenance_follows_the_schema(name):
    p = load_provenance(name)
    assert set(p) == TOP_KEYS
    assert p["format"] == PROVENANCE_FORMAT and p["version"] == 1 and p["name"] == name
    assert (library_dir() / name).parent.joinpath(p["instance"]) == \
        library_dir() / f"{name}.json"
    assert set(p["source"]) == {"paper", "location", "digest", "tag"}
    assert p["source"]["tag"] in TAGS
    for key in ("title", "construction"):
        assert isinstance(p[key], str) and p[key]
    for key in ("assumptions", "printed", "discrepancies", "notes"):
        assert isinstance(p[key], list) and all(isinstance(s, str) for s in p[key])
    assert p["printed"], "every entry quotes what its source printed"
    assert set(p["units"]) == {"size", "time"}
    ids = [c["id"] for c in p["claims"]]
    assert ids and len(set(ids)) == len(ids)
    for c in p["claims"]:
        assert set(c) == CLAIM_KEYS, c["id"]
        assert c["tag"] in TAGS and c["status"] in {"verified", "unverified"}
        assert c["printed"] or c["derived"], f"{c['id']} states no value"
        if c["status"] == "verified":
            assert c["schedule"] == f"{name.split('/')[-1]}.{c['id']}.schedule.json"
            assert (library_dir() / name).parent.joinpath(c["schedule"]).is_file()
            assert set(c["verified"]) == {"float", "exact"}
            for mode in ("float", "exact"):
                assert set(c["verified"][mode]) == set(METRICS)
            assert set(c["printed"]) | set(c["derived"]) <= set(METRICS)
        else:
            assert c["schedule"] is None and c["verified"] is None
        if c["optimality"] is not None:
            assert set(c["optimality"]) == {"claimed", "status", "argument"}
            assert c["optimality"]["status"] in {"proved", "cited", "refuted"}


@pytest.mark.parametrize("name, claim", VERIFIED, ids=[f"{n}:{c}" for n, c in VERIFIED])
def test_stored_schedule_verifies_with_the_recorded_values(name, claim):
    inst = load_instance(name)
    rec = next(c for c in load_provenance(name)["claims"] if c["id"] == claim)
    for mode in ("float", "exact"):
        report = verify_schedule(inst, load_schedule(name, claim, exact=mode == "exact"),
                                 mode=mode)
        assert report.ok, report.summary()
        assert schedule_metrics(inst, report) == rec["verified"][mode]
    exact = rec["verified"]["exact"]
    for source in ("printed", "derived"):
        for metric, text in rec[source].items():
            if isinstance(text, list):
                assert len(text) == len(exact[metric])
                assert all(map(agrees_with_printed, text, exact[metric])), (metric, text)
            else:
                assert agrees_with_printed(text, exact[metric]), (metric, text)


def test_key_values_of_the_papers():
    """A few headline numbers, spelled out (the parametrized test checks all of them)."""
    def exact(name, claim, metric):
        rec = next(c for c in load_provenance(name)["claims"] if c["id"] == claim)
        return rec["verified"]["exact"][metric]

    assert exact("papers/dissertation-fig5.1", "optimal", "average_cct") == "3"
    assert exact("papers/dissertation-fig5.1", "fair", "average_fct") == "17/5"
    assert exact("papers/dissertation-fig3.2", "fair", "average_cct") == "5"
    assert exact("papers/sincronia-fig1", "optimal", "average_cct") == "12/5"
    assert exact("papers/sincronia-fig1", "sincronia", "average_cct") == "13/5"
    assert exact("papers/sincronia-fig1", "varys", "average_cct") == "18/5"
    assert float(Fraction(exact("papers/sincronia-fig1-eps0.01", "optimal",
                                "total_completion_time"))) == pytest.approx(12.05, abs=1e-12)
    assert exact("papers/sincronia-t-s4", "bssi-greedy", "total_completion_time") == "33"
    assert exact("papers/dissertation-fig6.1", "optimal", "average_cct") == "11/3"
    assert exact("papers/dissertation-figB.1", "optimum", "average_cct") == "7/6"


def test_fig_b1_records_that_the_printed_optimum_is_not_optimal():
    p = load_provenance("papers/dissertation-figB.1")
    claims = {c["id"]: c for c in p["claims"]}
    assert claims["printed-optimal"]["optimality"]["status"] == "refuted"
    assert claims["printed-optimal"]["printed"]["average_cct"] == "1.5"
    assert claims["optimum"]["optimality"]["status"] == "proved"
    assert p["discrepancies"]


def test_unverified_claims_are_marked():
    p = load_provenance("papers/dissertation-fig5.1")
    edf = next(c for c in p["claims"] if c["id"] == "edf-deadline-2")
    assert edf["status"] == "unverified" and edf["verified"] is None


def test_3x2_shuffle_is_the_madd_fair_family_at_n2():
    assert load_instance("papers/dissertation-fig3.2") == madd_fair_family(2)


def test_builder_and_files_agree():
    spec = importlib.util.spec_from_file_location("make_papers",
                                                  library_dir() / "make_papers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--check"]) == 0


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(InvalidParameterError, match="papers/dissertation-fig5.1"):
        load_instance("papers/no-such-entry")
    with pytest.raises(InvalidParameterError, match="valid names"):
        load_provenance("../pyproject")
    with pytest.raises(InvalidParameterError, match="claims with a schedule: optimal"):
        load_schedule("papers/dissertation-fig5.1", "edf-deadline-2")


def test_load_schedule_exact_and_float():
    exact = load_schedule("papers/dissertation-fig5.1", "wss", exact=True)
    assert exact.exact and Fraction(1, 3) in exact.rate.tolist()
    floats = load_schedule("papers/dissertation-fig5.1", "wss")
    assert not floats.exact and 1 / 3 in floats.rate.tolist()


def test_agrees_with_printed():
    assert agrees_with_printed("3.67", "11/3") and agrees_with_printed("5.33", "16/3")
    assert agrees_with_printed("12.05", 12.049999999999999)
    assert not agrees_with_printed("3.6", "11/3") and not agrees_with_printed("4", "41/10")
    assert agrees_with_printed("25%", 25)


def test_default_instances():
    d = default_instances()
    names = list(d)
    assert sum(n.startswith("papers/") for n in names) >= 4
    assert {"random/uniform-4x4-6-seed0", "random/uniform-4x4-6-releases-seed1"} <= set(names)
    assert any(inst.has_releases for inst in d.values())
    again = default_instances()
    assert all(again[n] == d[n] for n in names)
    rnd = d["random/uniform-4x4-6-seed0"]
    assert (rnd.num_coflows, rnd.num_ingress, rnd.num_egress) == (6, 4, 4)
    assert np.all(d["random/uniform-4x4-6-releases-seed1"].release <= 5)
