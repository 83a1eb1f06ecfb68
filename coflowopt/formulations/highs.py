"""The one place that runs HiGHS (highspy).

Everything that touches highspy goes through :class:`HighsModel`:

* **options are read back**: :meth:`HighsModel.set_option` checks the status ``setOptionValue``
  returns *and* reads the value back, because an unknown value leaves HiGHS on its default
  (solver-interfaces.md section 6: ``solver="hipo"`` returns ``kError`` and silently stays
  ``choose``, i.e. dual simplex);
* **statuses go through one table**, :data:`HIGHS_STATUS`, with a fallback to the raw name
  (``"highs:<name>"``) for a status the table does not know;
* **time limits** are HiGHS's ``time_limit`` option, set per run;
* **duals** are returned only when HiGHS says the dual solution is valid; whether they prove a
  bound is decided by :mod:`.certificates`, never by the status.

Algorithm choice (measured in solver-interfaces.md section 4.1, and here):

``"simplex"`` (dual simplex)
    for LPs solved repeatedly with rows added (the ordering LP's cutting planes): the basis of
    the previous solve stays dual feasible when rows are added, so each re-solve is a warm
    started dual simplex; also for small LPs where an optimal basis is wanted.
``"ipm"``
    for the big one-shot LPs (time-indexed, interval-indexed, LP-OV): 25 times faster than the
    simplex on the time-indexed LP (566 s against 21-24 s); ``crossover=False`` skips the
    crossover when only a certified bound is needed (the IPM duals are repaired and checked
    exactly).  HiGHS's ``ipm`` is IPX, unless the package ``highspy-extras`` (of HiGHS's exact
    version) is installed: then it is HiPO (checked with 1.15.1), which stops at other points
    of a non-unique optimum; so ``"ipm"`` here always asks HiGHS for ``solver="ipx"``.
``"pdlp"``
    first-order, loose tolerances for very large LPs; HiGHS then often reports ``Unknown``,
    which is mapped to ``"unknown"``; its duals are still certified (and repaired) exactly.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, SolverError, SolverNotAvailableError
from .linear_program import LinearProgram

__all__ = ["HighsModel", "LPSolution", "HIGHS_STATUS", "map_highs_status", "highs_version",
           "solve_with_highs", "ALGORITHMS", "new_highs", "stdout_silenced", "SOLVER_LOG_ENV",
           "solver_log_requested"]

#: HiGHS model status name -> coflowopt status.  A status not listed maps to "highs:<name>".
HIGHS_STATUS = {
    "kOptimal": "optimal",
    "kInfeasible": "infeasible",
    "kUnboundedOrInfeasible": "unbounded_or_infeasible",
    "kUnbounded": "unbounded",
    "kTimeLimit": "time_limit",
    "kIterationLimit": "iteration_limit",
    "kSolutionLimit": "solution_limit",
    "kInterrupt": "interrupted",
    "kHighsInterrupt": "interrupted",
    "kMemoryLimit": "memory_limit",
    "kObjectiveBound": "objective_bound",
    "kObjectiveTarget": "objective_target",
    "kUnknown": "unknown",
    "kModelEmpty": "optimal",   # no rows and columns: the objective is the offset
    "kNotset": "not_solved",
    "kLoadError": "error",
    "kModelError": "error",
    "kPresolveError": "error",
    "kSolveError": "error",
    "kPostsolveError": "error",
}

#: Algorithms accepted by :class:`HighsModel` (HiGHS option ``solver``).
ALGORITHMS = ("simplex", "ipm", "pdlp", "choose")


def _highspy():
    try:
        import highspy
    except ImportError as e:  # pragma: no cover - highspy is a core dependency
        raise SolverNotAvailableError("highspy is not installed (pip install highspy)") from e
    return highspy


#: Serialises the file-descriptor swap of :func:`stdout_silenced` (fd 1 is per process).
_FD1_LOCK = threading.RLock()


@contextlib.contextmanager
def stdout_silenced(to_stderr: bool = False):
    """Point file descriptor 1 at ``/dev/null`` (or at standard error) for the ``with`` body.

    highspy >= 1.16 prints its banner ("Running HiGHS ...") on file descriptor 1 from the C++
    constructor of ``Highs``, before any option (``output_flag``, ``log_to_console``) can be
    set, and highspy offers no constructor argument or environment variable to prevent it
    (checked in the sources of highspy 1.14-1.16: ``Highs.__init__`` takes no argument).
    Redirecting ``sys.stdout`` does not help because the write bypasses Python; the
    redirection has to happen at the file-descriptor level.

    Parameters
    ----------
    to_stderr : bool, default False
        Send what is written to fd 1 meanwhile to standard error instead of discarding it
        (used when the caller asked for solver logs).

    Notes
    -----
    Thread safety: a process-wide re-entrant lock serialises the swap, so two threads creating
    models cannot restore each other's descriptor wrongly.  Another thread that writes to fd 1
    while the body runs has its output diverted too; the body is kept to the constructor call
    (microseconds) for that reason.  Python's own buffered ``sys.stdout`` is flushed first so
    that nothing already printed is diverted.
    """
    with _FD1_LOCK:
        try:
            sys.stdout.flush()
        except (AttributeError, ValueError, OSError):  # closed or replaced stdout
            pass
        try:
            saved = os.dup(1)
        except OSError:  # no fd 1 at all (a daemon): nothing can be printed on it anyway
            yield
            return
        try:
            if to_stderr:
                os.dup2(2, 1)
                yield
            else:
                devnull = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(devnull, 1)
                finally:
                    os.close(devnull)
                yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


#: Environment variable that asks for HiGHS's log (on standard error) from every model,
#: including those built in worker processes; ``coflowopt bound/exact --solver-log`` sets it.
SOLVER_LOG_ENV = "COFLOWOPT_SOLVER_LOG"


def solver_log_requested() -> bool:
    """Whether :data:`SOLVER_LOG_ENV` asks for solver logs (set and not ``0``/empty)."""
    return os.environ.get(SOLVER_LOG_ENV, "") not in ("", "0")


def new_highs(log: bool = False):
    """A fresh ``highspy.Highs`` that never writes to standard output.

    Every ``Highs`` object coflowopt creates comes from here (see :func:`stdout_silenced` for
    why the constructor needs a file-descriptor redirection).  Right after construction the
    console output is switched off (``output_flag``); with ``log=True`` HiGHS's log is kept but
    delivered to standard error through its logging callback (``log_to_console`` off), so that
    ``--json`` output on standard output stays JSON.

    Parameters
    ----------
    log : bool, default False
        Keep HiGHS's log, written to standard error.  :data:`SOLVER_LOG_ENV` turns it on for
        every model (the user asked for it).

    Returns
    -------
    highspy.Highs
    """
    hp = _highspy()
    log = bool(log) or solver_log_requested()
    with stdout_silenced(to_stderr=log):
        h = hp.Highs()
        h.setOptionValue("output_flag", bool(log))
        h.setOptionValue("log_to_console", False)
    if log:
        h.cbLogging.subscribe(lambda e: sys.stderr.write(e.message))
    return h


def highs_version() -> str:
    return new_highs().version()


def map_highs_status(status) -> str:
    """Map a ``HighsModelStatus`` (or its name) through :data:`HIGHS_STATUS`."""
    name = status if isinstance(status, str) else getattr(status, "name", str(status))
    name = name.split(".")[-1]
    return HIGHS_STATUS.get(name, f"highs:{name}")


@dataclass
class LPSolution:
    """What a solve returned, whatever the backend.

    Attributes
    ----------
    status : str
        Mapped status (``"optimal"``, ``"time_limit"``, ``"infeasible"``...).
    raw_status : str
        The backend's own status name.
    objective : float or None
        Primal objective (including the offset) when a primal solution exists.
    dual_objective : float or None
        The backend's dual objective when it reports one (not a certificate).
    x, row_dual, col_dual : ndarray or None
        Primal values, row duals and reduced costs (HiGHS convention: ``c - A^T y``).
    solver : dict
        ``name``, ``version``, ``algorithm`` and the options that were set.
    iterations : dict
    seconds : float
    mip_gap, mip_bound : float, optional
        For MIPs: relative gap and the proven dual bound.
    """

    status: str
    raw_status: str
    objective: float | None = None
    dual_objective: float | None = None
    x: np.ndarray | None = None
    row_dual: np.ndarray | None = None
    col_dual: np.ndarray | None = None
    solver: dict = field(default_factory=dict)
    iterations: dict = field(default_factory=dict)
    seconds: float = 0.0
    mip_gap: float | None = None
    mip_bound: float | None = None

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"


#: The most HiGHS threads a caller may ask for (HiGHS's own option is an int).
MAX_THREADS = 1024


def check_threads(threads) -> None:
    """Refuse a HiGHS thread count that is not None or an integer in ``0 .. MAX_THREADS``.

    HiGHS refuses a negative or huge count with kError, which reached the user as a solver
    error (exit 4) rather than as their parameter (the parameter fuzz); a method that may
    finish without creating a model (integral-mip closed by its fluid bound) calls this on
    entry, so that the value is refused whether or not a model is built."""
    if threads is None:
        return
    from ..limits import check_integer
    check_integer(threads, "threads", 0)
    if threads > MAX_THREADS:
        raise InvalidParameterError(f"threads must be at most {MAX_THREADS} (0: "
                                    f"HiGHS chooses), got {threads!r}")


class HighsModel:
    """A highspy model with read-back options, one status table and a persistent basis.

    Parameters
    ----------
    lp : LinearProgram, optional
        Loaded with :meth:`load`.
    algorithm : {"simplex", "ipm", "pdlp", "choose"}
    crossover : bool, default True
        IPM only: run crossover to a basic solution.
    threads : int, optional
    options : dict, optional
        Further HiGHS options (each read back).
    log : bool, default False
        HiGHS's log, on standard error (also when :data:`SOLVER_LOG_ENV` asks for it).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> lp = LinearProgram("toy", c=np.array([1.0, 1.0]),
    ...                    A=sp.csr_matrix(np.array([[1.0, 2.0]])),
    ...                    row_lo=np.array([2.0]), row_hi=np.array([np.inf]),
    ...                    col_lo=np.zeros(2), col_hi=np.full(2, np.inf))
    >>> sol = HighsModel(lp, algorithm="simplex").run()
    >>> sol.status, sol.objective, sol.row_dual.tolist()
    ('optimal', 1.0, [0.5])
    """

    def __init__(self, lp: LinearProgram | None = None, *, algorithm: str = "simplex",
                 crossover: bool = True, threads: int | None = None,
                 options: dict[str, Any] | None = None, log: bool = False):
        hp = _highspy()
        self._hp = hp
        log = bool(log) or solver_log_requested()
        self.h = new_highs(log=log)
        self.options: dict[str, Any] = {}
        self.set_option("output_flag", log)
        if algorithm not in ALGORITHMS:
            raise InvalidParameterError(f"HiGHS algorithm must be one of {ALGORITHMS}, got "
                                        f"{algorithm!r}")
        self.algorithm = algorithm
        # "ipm" is IPX by name: HiGHS's own "ipm" silently becomes HiPO when the optional
        # package highspy-extras is installed, which stops at other points of a non-unique
        # optimum (qsz's groups) and was 2.3-4.3x slower on the interval LP
        # (experiments/results/qsz_profile.md); a result must not depend on an extra package
        self.set_option("solver", "ipx" if algorithm == "ipm" else algorithm)
        if algorithm == "ipm":
            self.set_option("run_crossover", "on" if crossover else "off")
        if threads is not None:
            check_threads(threads)
            self.set_option("threads", int(threads))
        for k, v in (options or {}).items():
            self.set_option(k, v)
        self.num_cols = 0
        self.num_rows = 0
        self.is_mip = False
        if lp is not None:
            self.load(lp)

    # ------------------------------------------------------------------ options
    def set_option(self, name: str, value) -> None:
        """Set a HiGHS option and read it back; raise :class:`SolverError` if HiGHS refused it
        or kept another value (an unknown value leaves HiGHS on its default)."""
        hp = self._hp
        st = self.h.setOptionValue(name, value)
        if st == hp.HighsStatus.kError:
            raise SolverError(f"HiGHS refused option {name}={value!r} (setOptionValue returned "
                              "kError)")
        got = self.h.getOptionValue(name)
        if isinstance(got, tuple):  # highspy >= 1.15 returns (status, value)
            gst, got = got
            if gst == hp.HighsStatus.kError:
                raise SolverError(f"HiGHS cannot read option {name} back")
        same = (got == value) if not isinstance(value, float) else math.isclose(got, value)
        if isinstance(value, bool):
            same = bool(got) == value
        if not same:
            raise SolverError(f"HiGHS kept {name}={got!r} after setting {value!r}")
        self.options[name] = value

    # ------------------------------------------------------------------ model
    def load(self, lp: LinearProgram) -> None:
        """Pass ``lp`` to HiGHS (row-wise matrix, one call)."""
        hp = self._hp
        m = hp.HighsLp()
        m.num_col_ = lp.num_cols
        m.num_row_ = lp.num_rows
        m.col_cost_ = np.asarray(lp.c, dtype=float)
        m.col_lower_ = np.asarray(lp.col_lo, dtype=float)
        m.col_upper_ = np.asarray(lp.col_hi, dtype=float)
        m.row_lower_ = np.asarray(lp.row_lo, dtype=float)
        m.row_upper_ = np.asarray(lp.row_hi, dtype=float)
        m.offset_ = float(lp.offset)
        m.a_matrix_.format_ = hp.MatrixFormat.kRowwise
        A = lp.csr()            # nested rows (RangeRows) are expanded for the solver
        m.a_matrix_.start_ = np.asarray(A.indptr, dtype=np.int32)
        m.a_matrix_.index_ = np.asarray(A.indices, dtype=np.int32)
        m.a_matrix_.value_ = np.asarray(A.data, dtype=float)
        if lp.is_mip:
            m.integrality_ = [hp.HighsVarType.kInteger if b else hp.HighsVarType.kContinuous
                              for b in lp.integrality]
        st = self.h.passModel(m)
        if st == hp.HighsStatus.kError:
            raise SolverError(f"HiGHS rejected the model {lp.name} (passModel returned kError)")
        self.num_cols, self.num_rows, self.is_mip = lp.num_cols, lp.num_rows, lp.is_mip

    def add_rows(self, A_rows, lo: np.ndarray, hi: np.ndarray) -> None:
        """Append rows (CSR matrix over the existing columns); the basis is kept, so the next
        :meth:`run` is a warm-started dual simplex."""
        hp = self._hp
        n = A_rows.shape[0]
        if n == 0:
            return
        st = self.h.addRows(n, np.asarray(lo, float), np.asarray(hi, float), int(A_rows.nnz),
                            np.asarray(A_rows.indptr[:-1], dtype=np.int32),
                            np.asarray(A_rows.indices, dtype=np.int32),
                            np.asarray(A_rows.data, dtype=float))
        if st == hp.HighsStatus.kError:
            raise SolverError("HiGHS refused addRows")
        self.num_rows += n

    def basis(self) -> tuple[list, list] | None:
        """The current basis: HiGHS's ``HighsBasisStatus`` of every column and row (as
        highspy returns them: converting them to numbers would cost more than a small LP's
        solve); None without a valid basis."""
        b = self.h.getBasis()
        if not b.valid:
            return None
        return b.col_status, b.row_status

    def set_basis(self, col_status: list, row_status: list) -> bool:
        """Start the next :meth:`run` from this basis (``HighsBasisStatus`` lists, as
        :meth:`basis` returns them).  It is passed as an *alien* basis: HiGHS completes or
        trims it to a nonsingular one, so any statuses are accepted (a warm start only: the
        solution does not depend on it).  Returns False when HiGHS refuses it (the run then
        starts cold)."""
        hp = self._hp
        b = hp.HighsBasis()
        b.col_status = col_status
        b.row_status = row_status
        b.alien = True
        b.valid = True
        return self.h.setBasis(b) != hp.HighsStatus.kError

    def write(self, path: str) -> None:
        """Write the model (``.mps`` or ``.lp`` by the file name) with HiGHS's writer.

        Raises
        ------
        InvalidParameterError
            For a name without ``.lp`` / ``.mps`` (HiGHS picks the format by it, and wrote
            nothing for ``export=abc``, reported as a solver error), a folder that does not
            exist, or a file HiGHS cannot write.
        """
        from pathlib import Path
        p = Path(str(path))
        if p.suffix.lower() not in (".lp", ".mps"):
            raise InvalidParameterError(f"export must be a file name ending in .lp or .mps "
                                        f"(HiGHS picks the format by it), got {str(path)!r}")
        if not p.parent.is_dir():
            raise InvalidParameterError(f"export: {path}: no such folder {str(p.parent)!r}")
        st = self.h.writeModel(str(path))
        if st == self._hp.HighsStatus.kError:
            raise InvalidParameterError(f"export: HiGHS could not write {path}")

    # ------------------------------------------------------------------ solve
    def run(self, time_limit: float | None = None) -> LPSolution:
        """Solve; map the status; return primal and (valid) dual values.  ``time_limit`` is
        seconds for this run: HiGHS compares its option with the run time summed over every
        run of the object (``getRunTime``, measured: a second run given less than the first
        took stops at once with "Time limit reached"), so the option is that sum plus the
        limit (the ordering LP's cutting-plane rounds re-run one model)."""
        self.set_option("time_limit", self.h.getRunTime() + float(time_limit)
                        if time_limit is not None else float("inf"))
        t0 = time.perf_counter()
        self.h.run()
        secs = time.perf_counter() - t0
        ms = self.h.getModelStatus()
        raw = self.h.modelStatusToString(ms)
        status = map_highs_status(ms)
        info = self.h.getInfo()
        sol = self.h.getSolution()
        out = LPSolution(status=status, raw_status=raw, seconds=secs,
                         solver={"name": "highs", "version": self.h.version(),
                                 "algorithm": self.algorithm,
                                 "time_limit": time_limit,
                                 "options": {k: v for k, v in self.options.items()
                                             if k not in ("output_flag", "time_limit")}})
        out.iterations = {"simplex": int(info.simplex_iteration_count),
                          "ipm": int(info.ipm_iteration_count),
                          "crossover": int(info.crossover_iteration_count),
                          "pdlp": int(getattr(info, "pdlp_iteration_count", 0))}
        if sol.value_valid:
            out.x = np.asarray(sol.col_value, dtype=float)
            out.objective = float(info.objective_function_value)
        if sol.dual_valid and not self.is_mip:
            out.row_dual = np.asarray(sol.row_dual, dtype=float)
            out.col_dual = np.asarray(sol.col_dual, dtype=float)
            try:
                ok, dobj = self.h.getDualObjectiveValue()
                if ok == self._hp.HighsStatus.kOk:
                    out.dual_objective = float(dobj)
            except Exception:  # pragma: no cover - older highspy without it
                pass
        if self.is_mip:
            out.mip_gap = float(info.mip_gap) if math.isfinite(info.mip_gap) else None
            out.mip_bound = float(info.mip_dual_bound) if math.isfinite(info.mip_dual_bound) \
                else None
        return out


def run_on_thread_pool(make, time_limit: float | None, threads: int | None, notes: list,
                       who: str):
    """Build a model with ``make(threads)`` and solve it; if HiGHS refuses ``threads``
    because its process-wide thread pool already exists with another size, solve it again on
    that pool (``make(None)``), warn, and record why in ``notes``.

    HiGHS (>= 1.6) starts one global task scheduler at the first run in a process, sized by
    that run's ``threads`` option (``0``, the default, means automatic); a later run whose
    ``threads`` is set to another count does not solve anything (``Highs.run`` returns an
    error, model status "Not Set": the message "global scheduler has already been initialized"
    goes to the silenced log), and a MIP hands back its start as if it were a solution.
    Resizing the pool (``Highs.resetGlobalScheduler``) is not safe while another thread of the
    process may be inside HiGHS, so the requested count is ignored instead, and said so.

    Parameters
    ----------
    make : callable
        ``make(threads) -> HighsModel``.
    time_limit : float or None
    threads : int or None
    notes : list
        Receives the one-line note (once).
    who : str
        The method's name, for the note.

    Returns
    -------
    (HighsModel, LPSolution)
    """
    import warnings
    hm = make(threads)
    sol = hm.run(time_limit=time_limit)
    if threads is not None and sol.status == "not_solved" and sol.raw_status == "Not Set":
        hm2 = make(None)
        sol2 = hm2.run(time_limit=time_limit)
        if sol2.raw_status != "Not Set":
            msg = (f"{who}: threads={int(threads)} ignored: HiGHS's process-wide thread pool "
                   "was started by an earlier HiGHS run in this process with another size "
                   "(HiGHS fixes it at the first run); solved on that pool")
            if msg not in notes:
                notes.append(msg)
                warnings.warn(msg, RuntimeWarning, stacklevel=3)
            return hm2, sol2
    return hm, sol


def solve_with_highs(lp: LinearProgram, *, algorithm: str = "simplex", crossover: bool = True,
                     time_limit: float | None = None, options: dict | None = None,
                     export: str | None = None) -> LPSolution:
    """Load ``lp`` into a fresh :class:`HighsModel`, optionally write it, and solve it."""
    model = HighsModel(lp, algorithm=algorithm, crossover=crossover, options=options)
    if export:
        model.write(export)
    return model.run(time_limit=time_limit)
