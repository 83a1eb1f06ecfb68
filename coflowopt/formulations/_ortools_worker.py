"""OR-Tools solves, run only inside a worker process.

highspy >= 1.15 and OR-Tools 9.15 cannot be imported into one process (both ship a
``libhighs.so.1``; google/or-tools#5246, solver-interfaces.md section 2).  This module is the
only place that imports OR-Tools, and :mod:`.backends` only ever runs it as a separate Python
process (``python -m coflowopt.formulations._ortools_worker FUNC IN OUT``).  It imports nothing
that imports highspy (numpy only); :func:`solve` refuses to run if highspy is already loaded in
the process.

The payload is plain data (numpy arrays and numbers) pickled to the file ``IN``; the answer, a
dict of the same kind, is pickled to ``OUT`` (not stdout: OR-Tools may log there).
"""

from __future__ import annotations

import pickle
import sys
import time

import numpy as np

#: OR-Tools MPSolver result status -> coflowopt status.
ORTOOLS_STATUS = {0: "optimal", 1: "feasible", 2: "infeasible", 3: "unbounded", 4: "error",
                  5: "error", 6: "not_solved"}

#: Our solver names -> MPSolver ids.
SOLVER_IDS = {"glop": "GLOP", "pdlp": "PDLP", "cp-sat": "CP_SAT", "scip": "SCIP"}


def solve(payload: dict) -> dict:
    """Build the LP/MIP of ``payload`` in pywraplp and solve it.

    Payload keys: ``c``, ``offset``, ``indptr``, ``indices``, ``data`` (CSR rows), ``row_lo``,
    ``row_hi``, ``col_lo``, ``col_hi``, ``integrality`` (or None), ``solver`` (a key of
    :data:`SOLVER_IDS`), ``time_limit`` (seconds or None).
    """
    if "highspy" in sys.modules:  # pragma: no cover - guarded by the caller
        return {"status": "error", "raw_status": "highspy already loaded in the OR-Tools worker",
                "version": None}
    from ortools.init.python import init  # noqa: F401  (initialises logging quietly)
    from ortools.linear_solver import pywraplp
    import ortools

    sid = SOLVER_IDS.get(payload["solver"])
    if sid is None:
        return {"status": "error", "raw_status": f"unknown OR-Tools solver {payload['solver']!r}",
                "version": ortools.__version__}
    s = pywraplp.Solver.CreateSolver(sid)
    if s is None:
        return {"status": "error", "raw_status": f"OR-Tools cannot create {sid}",
                "version": ortools.__version__}
    inf = s.infinity()

    def b(v):
        return inf if v == np.inf else (-inf if v == -np.inf else float(v))

    n = len(payload["c"])
    integ = payload.get("integrality")
    xs = [s.IntVar(b(lo), b(hi), "") if integ is not None and integ[j]
          else s.NumVar(b(lo), b(hi), "")
          for j, (lo, hi) in enumerate(zip(payload["col_lo"], payload["col_hi"]))]
    ptr, idx, val = payload["indptr"], payload["indices"], payload["data"]
    cons = []
    for i, (lo, hi) in enumerate(zip(payload["row_lo"], payload["row_hi"])):
        ct = s.RowConstraint(b(lo), b(hi), "")
        for p in range(int(ptr[i]), int(ptr[i + 1])):
            ct.SetCoefficient(xs[int(idx[p])], float(val[p]))
        cons.append(ct)
    obj = s.Objective()
    for j in range(n):
        if payload["c"][j] != 0:
            obj.SetCoefficient(xs[j], float(payload["c"][j]))
    obj.SetOffset(float(payload.get("offset", 0.0)))
    obj.SetMinimization()
    if payload.get("time_limit") is not None:
        s.SetTimeLimit(int(max(1, 1000 * float(payload["time_limit"]))))
    t0 = time.perf_counter()
    code = s.Solve()
    secs = time.perf_counter() - t0
    out = {"status": ORTOOLS_STATUS.get(code, f"ortools:{code}"), "raw_status": str(code),
           "seconds": secs, "version": ortools.__version__, "solver_id": sid,
           "highspy_loaded": "highspy" in sys.modules}
    if code in (0, 1):
        out["x"] = np.asarray([v.solution_value() for v in xs])
        out["objective"] = float(obj.Value())
        if (integ is None or not np.any(integ)) and sid in ("GLOP", "PDLP"):
            # only the LP solvers have duals: CP-SAT and SCIP report 0 for every row
            out["row_dual"] = np.asarray([ct.dual_value() for ct in cons])
            out["col_dual"] = np.asarray([v.reduced_cost() for v in xs])
        else:
            out["mip_bound"] = float(obj.BestBound())
    out["iterations"] = int(s.iterations()) if hasattr(s, "iterations") else None
    return out


def import_clash_probe() -> dict:
    """Import OR-Tools in this (worker) process and report what else is loaded (a test hook)."""
    from ortools.linear_solver import pywraplp  # noqa: F401
    return {"highspy_loaded": "highspy" in sys.modules, "ortools_loaded": True}


def main(argv: list[str]) -> int:
    """``FUNC IN OUT``: call ``FUNC(*args)`` with the pickled argument tuple in ``IN`` and pickle
    the result (or the error) to ``OUT``."""
    func, inp, outp = argv
    with open(inp, "rb") as fh:
        args = pickle.load(fh)
    try:
        res = {"ok": True, "result": globals()[func](*args)}
    except Exception as e:  # reported to the parent, which raises SolverError
        res = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    with open(outp, "wb") as fh:
        pickle.dump(res, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
