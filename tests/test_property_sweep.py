"""``experiments/property_sweep.py`` checks ``bound <= OPT <= schedule`` on thousands of
instances; here the same function runs on one instance of each kind (releases, weights,
heterogeneous capacities), so that the script cannot drift from the code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "experiments" / "property_sweep.py"


@pytest.fixture(scope="module")
def sweep_module():
    spec = importlib.util.spec_from_file_location("property_sweep", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("seed", [0, 3, 5, 6])
def test_sweep_checks_hold(sweep_module, seed):
    row = sweep_module.check_instance(seed, time_indexed=seed == 0)
    assert row["violations"] == []
    assert row["checks"] >= 25
    assert row["opt"] <= min(row["schedules"].values()) * (1 + 1e-6)
    assert max(row["bounds"].values()) <= row["opt"] * (1 + 1e-6)


def test_switches_cover_every_combination(sweep_module):
    seen = {tuple(sweep_module.make_instance(s)[1].values()) for s in range(8)}
    assert len(seen) == 8
