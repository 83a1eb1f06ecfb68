"""The integral gap study's stored instances (``instances/integral-gap/``, written by
``experiments/integral_gap_study.py --store``) reproduce from the files alone: the slotted
schedules verify in the integral model at the recorded values, the fluid optimum's schedule in
the fluid verifier, ``bnb`` and ``integral-mip`` prove the same optima again, the recorded ratio
is theirs, and the sample's entries are the study's instance ``index`` rebuilt from its seed."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction

import numpy as np
import pytest

from coflowopt.formats import read_slotted_schedule
from coflowopt.library import library_dir, list_instances, load_instance, load_provenance, \
    load_schedule
from coflowopt.registry import get_algorithm
from coflowopt.slotted import verify_slotted
from coflowopt.slotted_greedy import slotted_order
from coflowopt.verify import verify_schedule

ENTRIES = [n for n in list_instances() if n.startswith("integral-gap/")]


def study_module():
    path = library_dir().parent / "experiments" / "integral_gap_study.py"
    if not path.is_file():
        pytest.skip("experiments/integral_gap_study.py is not in this tree")
    spec = importlib.util.spec_from_file_location("integral_gap_study", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def record(name: str) -> dict:
    path = library_dir() / f"{name}.study.provenance.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_study_stored_its_largest_ratios():
    kinds = {record(n)["ratio_kind"] for n in ENTRIES}
    assert {"integral_over_fluid", "slotted_over_integral"} <= kinds, ENTRIES


@pytest.mark.parametrize("name", ENTRIES)
def test_stored_integral_gap_entry_reproduces(name):
    inst = load_instance(name)
    rec = record(name)
    assert rec["format"] == "coflowopt-integral-gap-study" and rec["name"] == name
    prov = load_provenance(name)
    claims = {c["id"]: c for c in prov["claims"]}
    base = library_dir() / name
    values = {}
    for cid in ("integral-opt", "slotted-bssi"):
        if cid not in claims:
            continue
        s = read_slotted_schedule(base.parent / rec["files"][f"{cid}_slotted_schedule"], inst)
        rep = verify_slotted(inst, s)
        assert rep.ok, rep.summary()
        values[cid] = rep.weighted_completion_time
        # the claim's schedule file is the same schedule in fluid form
        fl = verify_schedule(inst, load_schedule(name, cid, exact=True), mode="exact")
        assert fl.ok and fl.weighted_completion_time == values[cid]
        assert Fraction(claims[cid]["derived"]["weighted_completion_time"]) == values[cid]
    fluid = verify_schedule(inst, load_schedule(name, "fluid-opt", exact=True), mode="exact")
    assert fluid.ok
    F, I = fluid.weighted_completion_time, values["integral-opt"]
    assert Fraction(rec["fluid_opt"]["value"]) == F and Fraction(rec["integral_opt"]["value"]) == I
    # the optima, proved again
    fo = get_algorithm("exact", "bnb").func(inst, time_limit=60)
    io = get_algorithm("exact", "integral-mip").func(inst, time_limit=60)
    assert fo.kind == "optimal" and Fraction(fo.value) == F
    assert io.kind == "optimal" and Fraction(io.value) == I
    assert F <= I
    S = verify_slotted(inst, slotted_order(inst, ordering="bssi")).weighted_completion_time
    assert Fraction(rec["slotted_bssi"]["value"]) == S and S >= I
    ratio = I / F if rec["ratio_kind"] == "integral_over_fluid" else S / I
    assert Fraction(rec["ratio_exact"]) == ratio and ratio > 1
    # a sample entry is the study's instance `index`, rebuilt from the seed alone
    recipe = rec["recipe"]
    if recipe["index"] != "search":
        mod = study_module()
        again = mod.instance_for(recipe["index"], recipe["seed"],
                                 rec["settings"]["release_max"])
        for field in ("flow_src", "flow_dst", "flow_size", "flow_ptr", "release", "weight"):
            assert np.array_equal(getattr(again, field), getattr(inst, field)), field
