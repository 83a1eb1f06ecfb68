"""LP and MIP formulations of coflow scheduling, their solvers and their certificates.

One module per formulation, each documented in ``formulations/<name>.md`` (variables,
constraints, objective, what it yields and why):

* :mod:`.ordering_lp` -- ordering LP with parallel inequalities per port (cutting planes);
* :mod:`.time_indexed` -- time-indexed LP (lower bound) and MIP (slotted model, upper bound);
* :mod:`.interval_lp` -- interval-indexed LP on geometric intervals;
* :mod:`.lp_ov` -- the ordering-variable LP of Shafiee and Ghaderi;
* :mod:`.pyomo_models` -- the same formulations as readable Pyomo models (small instances);
* :mod:`.highs` -- the one place that runs HiGHS; :mod:`.backends` -- OR-Tools (in a
  subprocess) and gurobipy;
* :mod:`.certificates` -- exact checking of dual certificates.

Importing this package does not import highspy (so a worker process can import
:mod:`._ortools_worker` without loading HiGHS next to OR-Tools); the submodules are imported on
first use.
"""

from __future__ import annotations

import importlib

__all__ = ["linear_program", "certificates", "highs", "backends", "ordering_lp", "time_indexed",
           "interval_lp", "lp_ov", "pyomo_models"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)
