"""LP/MIP backends: HiGHS by default, OR-Tools in a worker process, gurobipy if installed.

``"highs"`` (default)
    in-process highspy through :mod:`.highs` (IPM, simplex, PDLP).
``"ortools-glop"``, ``"ortools-pdlp"``, ``"ortools-cp-sat"``, ``"ortools-scip"``
    OR-Tools' MPSolver, always in a **separate Python process** (``subprocess`` running
    ``python -m coflowopt.formulations._ortools_worker``), because OR-Tools 9.15 and
    highspy >= 1.15 cannot share a process (solver-interfaces.md section 2).  The worker imports
    only :mod:`._ortools_worker`, which never imports highspy.  A subprocess rather than a
    ``spawn`` process pool: the pool re-imports the caller's main script, which breaks scripts
    without an ``if __name__ == "__main__"`` guard.
``"gurobi"``
    gurobipy in-process (no library clash), only if it is installed.  The pip wheel's bundled
    licence is limited to 2000 variables and 2000 linear constraints
    (solver-interfaces.md section 5); larger models are refused with status
    ``"licence_limit"`` before Gurobi is called (``size_limit=None`` lifts the check for a full
    licence).

Every backend returns a :class:`~.highs.LPSolution` with a mapped status and, for LPs, the row
duals in HiGHS's sign convention (``c - A^T y`` are the reduced costs), so the same exact
certificate check (:mod:`.certificates`) applies whatever solved the LP.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
import tempfile
import time

import numpy as np

from ..exceptions import InvalidParameterError, SolverError, SolverNotAvailableError
from .highs import LPSolution, solve_with_highs
from .linear_program import LinearProgram

__all__ = ["BACKENDS", "DUAL_BACKENDS", "available_backends", "check_dual_backend", "solve_lp",
           "GUROBI_SIZE_LIMIT"]

BACKENDS = ("highs", "ortools-glop", "ortools-pdlp", "ortools-cp-sat", "ortools-scip",
            "gurobi")

#: Backends whose LP solutions carry row duals.  OR-Tools' CP-SAT and SCIP are MIP solvers: on
#: an LP, MPSolver returns dual values of 0, which an exact certificate check "repairs" into a
#: much weaker bound (lp-ov on sincronia-t-s4: 26 instead of 32).
DUAL_BACKENDS = ("highs", "ortools-glop", "ortools-pdlp", "gurobi")

#: Variables and linear constraints allowed by gurobipy's bundled restricted licence.
GUROBI_SIZE_LIMIT = 2000


def available_backends() -> dict[str, bool]:
    """Which backends are installed (found without importing them)."""
    has_ortools = importlib.util.find_spec("ortools") is not None
    has_gurobi = importlib.util.find_spec("gurobipy") is not None
    return {b: (True if b == "highs" else has_ortools if b.startswith("ortools")
                else has_gurobi) for b in BACKENDS}


def check_dual_backend(backend: str, what: str) -> None:
    """Refuse, for an LP bound ``what``, a backend that cannot give LP duals.

    Raises
    ------
    InvalidParameterError
        For an unknown backend, or one not in :data:`DUAL_BACKENDS` (the command line maps it
        to exit 2).
    """
    if backend not in BACKENDS:
        raise InvalidParameterError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend not in DUAL_BACKENDS:
        raise InvalidParameterError(
            f"backend {backend!r} is a MIP solver and returns no LP duals, which the {what} "
            f"bound's certificate needs; use one of {DUAL_BACKENDS}")


def solve_lp(lp: LinearProgram, backend: str = "highs", *, algorithm: str | None = None,
             crossover: bool = True, time_limit: float | None = None,
             size_limit: int | None = GUROBI_SIZE_LIMIT, export: str | None = None,
             options: dict | None = None) -> LPSolution:
    """Solve ``lp`` with ``backend`` and return an :class:`LPSolution`.

    Parameters
    ----------
    lp : LinearProgram
    backend : str
        One of :data:`BACKENDS`.
    algorithm : str, optional
        HiGHS algorithm (``"ipm"``, ``"simplex"``, ``"pdlp"``; default ``"ipm"`` for LPs and
        ``"choose"`` for MIPs); ignored by the other backends.
    crossover : bool
        HiGHS IPM crossover.
    time_limit : float, optional
        Seconds.
    size_limit : int or None
        Gurobi only (see the module docstring).
    export : str, optional
        HiGHS only: write the model to this ``.lp``/``.mps`` file before solving.
    options : dict, optional
        HiGHS only: further HiGHS options, each read back (e.g. ``{"ipm_optimality_tolerance": 1e-9}``).

    Raises
    ------
    SolverNotAvailableError
        If the backend is not installed.
    """
    if backend not in BACKENDS:
        raise InvalidParameterError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or
                                   not isinstance(time_limit, (int, float)) or
                                   not time_limit >= 0):
        raise InvalidParameterError(f"time_limit must be a number of seconds >= 0, got "
                                    f"{time_limit!r}")
    if not available_backends()[backend]:
        raise SolverNotAvailableError(
            f"backend {backend!r} is not installed (pip install "
            f"{'ortools' if backend.startswith('ortools') else 'gurobipy'})")
    if backend == "highs":
        algo = algorithm or ("choose" if lp.is_mip else "ipm")
        return solve_with_highs(lp, algorithm=algo, crossover=crossover,
                                time_limit=time_limit, export=export, options=options)
    if export:
        raise InvalidParameterError("export is done with the highs backend (or pyomo_models)")
    if options:
        raise InvalidParameterError("options are HiGHS options: use the highs backend")
    if backend.startswith("ortools"):
        return _solve_ortools(lp, backend.split("-", 1)[1], time_limit)
    return _solve_gurobi(lp, time_limit, size_limit)


# ----------------------------------------------------------------------------- OR-Tools
def _payload(lp: LinearProgram, solver: str, time_limit) -> dict:
    return {"c": np.asarray(lp.c, float), "offset": float(lp.offset),
            "indptr": np.asarray(lp.A.indptr), "indices": np.asarray(lp.A.indices),
            "data": np.asarray(lp.A.data, float), "row_lo": np.asarray(lp.row_lo, float),
            "row_hi": np.asarray(lp.row_hi, float), "col_lo": np.asarray(lp.col_lo, float),
            "col_hi": np.asarray(lp.col_hi, float),
            "integrality": None if lp.integrality is None else np.asarray(lp.integrality),
            "solver": solver, "time_limit": time_limit}


def run_in_ortools_worker(func_name: str, *args, timeout: float | None = None):
    """Run ``coflowopt.formulations._ortools_worker.<func_name>(*args)`` in a fresh Python
    process and return its result.

    Raises
    ------
    SolverError
        If the worker fails, crashes or times out.
    """
    with tempfile.TemporaryDirectory(prefix="coflowopt-ortools-") as tmp:
        inp, outp = os.path.join(tmp, "in.pkl"), os.path.join(tmp, "out.pkl")
        with open(inp, "wb") as fh:
            pickle.dump(args, fh)
        try:
            proc = subprocess.run([sys.executable, "-m", "coflowopt.formulations._ortools_worker",
                                   func_name, inp, outp], capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise SolverError(f"OR-Tools worker timed out after {timeout} s") from e
        if not os.path.exists(outp):
            raise SolverError(f"OR-Tools worker exited with code {proc.returncode}: "
                              f"{proc.stderr.strip()[-2000:]}")
        with open(outp, "rb") as fh:
            res = pickle.load(fh)
    if not res["ok"]:
        raise SolverError(f"OR-Tools worker failed: {res['error']}")
    return res["result"]


def _solve_ortools(lp: LinearProgram, solver: str, time_limit) -> LPSolution:
    t0 = time.perf_counter()
    timeout = None if time_limit is None else float(time_limit) + 60.0
    out = run_in_ortools_worker("solve", _payload(lp, solver, time_limit), timeout=timeout)
    sol = LPSolution(status=out["status"], raw_status=out["raw_status"],
                     objective=out.get("objective"), x=out.get("x"),
                     row_dual=out.get("row_dual"), col_dual=out.get("col_dual"),
                     seconds=time.perf_counter() - t0, mip_bound=out.get("mip_bound"),
                     solver={"name": f"ortools-{solver}", "version": out.get("version"),
                             "algorithm": out.get("solver_id"), "process": "subprocess"})
    sol.iterations = {"total": out.get("iterations")}
    return sol


# ----------------------------------------------------------------------------- gurobi
_GUROBI_STATUS = {2: "optimal", 3: "infeasible", 4: "unbounded_or_infeasible", 5: "unbounded",
                  7: "iteration_limit", 8: "node_limit", 9: "time_limit",
                  10: "solution_limit", 11: "interrupted", 12: "error", 13: "suboptimal",
                  1: "not_solved"}


def _solve_gurobi(lp: LinearProgram, time_limit, size_limit) -> LPSolution:
    import gurobipy as gp
    import scipy.sparse as sp

    lo, hi = np.asarray(lp.row_lo, float), np.asarray(lp.row_hi, float)
    eq = np.isfinite(lo) & np.isfinite(hi) & (lo == hi)
    ge = np.isfinite(lo) & ~eq
    le = np.isfinite(hi) & ~eq
    n_rows = int(eq.sum() + ge.sum() + le.sum())
    version = ".".join(str(v) for v in gp.gurobi.version())
    info = {"name": "gurobi", "version": version, "size_limit": size_limit}
    if size_limit is not None and (lp.num_cols > size_limit or n_rows > size_limit):
        return LPSolution(status="licence_limit",
                          raw_status=f"{lp.num_cols} variables, {n_rows} constraints: above the "
                                     f"{size_limit} allowed by the restricted licence",
                          solver=info)
    t0 = time.perf_counter()
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    try:
        m = gp.Model(env=env)
        vtype = np.where(lp.integrality, "I", "C") if lp.is_mip else "C"
        x = m.addMVar(lp.num_cols, lb=np.asarray(lp.col_lo, float),
                      ub=np.asarray(lp.col_hi, float), vtype=vtype)
        m.setObjective(np.asarray(lp.c, float) @ x + float(lp.offset), gp.GRB.MINIMIZE)
        A = lp.A
        blocks = []
        for mask, sense, rhs in ((eq, "=", lo), (ge, ">", lo), (le, "<", hi)):
            idx = np.flatnonzero(mask)
            if idx.size:
                c = m.addMConstr(sp.csr_matrix(A[idx]), x, sense, rhs[idx])
                blocks.append((idx, c))
        if time_limit is not None:
            m.Params.TimeLimit = float(time_limit)
        try:
            m.optimize()
        except gp.GurobiError as e:
            if getattr(e, "errno", None) == 10010:
                return LPSolution(status="licence_limit", raw_status=str(e), solver=info)
            raise SolverError(f"Gurobi failed: {e}") from e
        code = int(m.Status)
        sol = LPSolution(status=_GUROBI_STATUS.get(code, f"gurobi:{code}"),
                         raw_status=str(code), seconds=time.perf_counter() - t0, solver=info)
        if m.SolCount > 0:
            sol.x = np.asarray(x.X, float)
            sol.objective = float(m.ObjVal)
        if lp.is_mip:
            sol.mip_bound = float(m.ObjBound)
            sol.mip_gap = float(m.MIPGap) if m.SolCount > 0 else None
        elif code == 2:
            y = np.zeros(lp.num_rows)
            for idx, c in blocks:
                y[idx] += np.asarray(c.Pi, float)
            sol.row_dual = y
            sol.col_dual = np.asarray(x.RC, float)
        sol.iterations = {"simplex": int(m.IterCount), "barrier": int(m.BarIterCount)}
        return sol
    finally:
        env.dispose()
